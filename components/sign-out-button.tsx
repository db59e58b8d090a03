"use client";

import { useRouter } from "next/navigation";
import { authClient } from "@/lib/client/auth-client";

/** Ends the session and returns to the sign-in page. */
export function SignOutButton() {
  const router = useRouter();
  return (
    <button
      type="button"
      onClick={async () => {
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
