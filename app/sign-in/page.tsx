import type { Metadata } from "next";
import { redirect } from "next/navigation";
import { SignInForm } from "@/components/sign-in-form";
import { SsoSignIn } from "@/components/sso-sign-in";
import { getViewer } from "@/lib/server/auth/session";
import { serverConfig } from "@/lib/server/config/config";
import { signInProviders } from "@/lib/server/sso/oidc-providers";

export const metadata: Metadata = { title: "Sign in" };

/** What a sign-in refused by better-auth or the SSO plugin says, by the `?error=` code it came back with. */
const SSO_ERRORS: Record<string, string> = {
  sso_unmapped: "Your identity provider gives you no role or desk in Plandesk. Ask your administrator.",
  sso_wrong_desk: "This identity provider does not sign people in to your desk.",
  sso_provider_disabled: "That identity provider is no longer enabled here.",
  unable_to_create_session: "You cannot sign in: your Plandesk account is disabled.",
  account_not_linked: "An account with your email exists, but your identity provider did not confirm the email. Ask your administrator.",
};

export default async function SignInPage({ searchParams }: { searchParams: Promise<{ next?: string; error?: string }> }) {
  const { next, error } = await searchParams;
  const safeNext = next && next.startsWith("/") && !next.startsWith("//") ? next : "/runs";
  if (await getViewer()) redirect(safeNext);
  const demo = serverConfig().demo;
  const providers = await signInProviders();
  const ssoError = error ? (Object.prototype.hasOwnProperty.call(SSO_ERRORS, error) ? SSO_ERRORS[error] : "Signing in through your identity provider did not work. Try again.") : null;
  return (
    <main className="mx-auto flex min-h-screen max-w-md flex-col justify-center px-6">
      <h1 className="text-2xl font-semibold">Sign in to Plandesk</h1>
      <p className="mt-1 text-sm text-slate-600">Review, edit and approve the plans agents want to execute.</p>
      {ssoError && (
        <p role="alert" className="mt-6 rounded-md border border-red-300 bg-red-50 px-3 py-2 text-sm text-red-800">
          {ssoError}
        </p>
      )}
      <SignInForm next={safeNext} />
      <SsoSignIn providers={providers} next={safeNext} />
      {demo && (
        <section aria-labelledby="demo-h" className="mt-8 rounded-md border border-amber-300 bg-amber-50 p-4 text-sm">
          <h2 id="demo-h" className="font-medium">Demo desk</h2>
          <p className="mt-1">
            Password <code className="font-mono">plandesk-demo</code> for <code className="font-mono">operator@plandesk.test</code>,{" "}
            <code className="font-mono">senior@plandesk.test</code>, <code className="font-mono">supervisor@plandesk.test</code>,{" "}
            <code className="font-mono">admin@plandesk.test</code>.
          </p>
        </section>
      )}
    </main>
  );
}
