"use client";

import { useRouter } from "next/navigation";

/**
 * Ends the session and returns to the sign-in page. better-auth's browser client loads on the
 * click, so every page's first-load JavaScript goes without it.
 */
export function SignOutButton() {
  const router = useRouter();
  return (
    <button
      type="button"
      onClick={async () => {
        const { authClient } = await import("@/lib/client/auth-client");
        await authClient.signOut();
        router.replace("/sign-in");
        router.refresh();
      }}
      className="whitespace-nowrap rounded-md border border-slate-300 px-2.5 py-1 text-slate-700 hover:bg-slate-50"
    >
      Sign out
    </button>
  );
}
