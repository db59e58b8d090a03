"use client";

import { useState } from "react";
import { authClient } from "@/lib/client/auth-client";

/** A desk's identity provider as the sign-in page offers it (lib/server/sso/oidc-providers.ts `SignInProvider`). */
export type SsoProviderButton = { id: string; label: string };

/**
 * "Continue with <provider>" buttons (not "Sign in …": the password form's button keeps that name alone): each starts better-auth's sign-in through that provider
 * (`/api/auth/sign-in/social`), which sends the browser to the provider and back to `next`; a
 * refusal comes back to /sign-in with `?error=` (shown by the page).
 */
export function SsoSignIn({ providers, next }: { providers: SsoProviderButton[]; next: string }) {
  const [pending, setPending] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  if (providers.length === 0) return null;
  const start = async (id: string) => {
    setPending(id);
    setError(null);
    // a provider id is data (registered by an admin), not one of better-auth's built-in names
    const { error: refused } = await authClient.signIn.social({ provider: id as never, callbackURL: next, errorCallbackURL: "/sign-in" });
    if (refused) {
      setPending(null);
      setError(refused.status === 429 ? "Too many sign-ins from here. Wait a minute and try again." : "That identity provider cannot be reached now. Try again, or sign in with your password.");
    }
  };
  return (
    <section aria-labelledby="sso-h" className="mt-6">
      <h2 id="sso-h" className="text-sm font-medium text-slate-700">
        Or sign in with your company account
      </h2>
      {error && (
        <p role="alert" className="mt-2 rounded-md border border-red-300 bg-red-50 px-3 py-2 text-sm text-red-800">
          {error}
        </p>
      )}
      <ul className="mt-2 space-y-2">
        {providers.map((p) => (
          <li key={p.id}>
            <button
              type="button"
              onClick={() => void start(p.id)}
              disabled={pending !== null}
              className="w-full rounded-md border border-slate-300 bg-white px-4 py-2 font-medium text-slate-900 hover:bg-slate-50 disabled:opacity-60"
            >
              {pending === p.id ? `Opening ${p.label}…` : `Continue with ${p.label}`}
            </button>
          </li>
        ))}
      </ul>
    </section>
  );
}
