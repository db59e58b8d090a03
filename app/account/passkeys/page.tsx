import type { Metadata } from "next";
import { AppHeader } from "@/components/app-header";
import { PasskeysPanel } from "@/components/passkeys-panel";
import { requirePageViewer } from "@/lib/server/auth/page-access";
import { listOwnPasskeys, mustRegisterPasskey } from "@/lib/server/auth/passkey-requirement";

export const metadata: Metadata = { title: "Passkeys" };
export const dynamic = "force-dynamic";

/**
 * The signed-in person's passkeys (the account menu's "Passkeys"): register one or more, remove
 * one. A person whose role requires a passkey and who has none lands here from every other page.
 */
export default async function PasskeysPage() {
  const viewer = await requirePageViewer("/account/passkeys", { allowWithoutPasskey: true });
  const required = await mustRegisterPasskey(viewer);
  const rows = await listOwnPasskeys(viewer);
  return (
    <>
      <AppHeader viewer={viewer} />
      <main className="mx-auto max-w-3xl px-4 py-6 sm:px-6">
        <h1 className="text-xl font-semibold">Passkeys</h1>
        {required && (
          <p role="alert" className="mt-3 rounded-md border border-amber-300 bg-amber-50 px-3 py-2 text-sm text-amber-900">
            People with the {viewer.role} role must have a passkey. Register one to continue.
          </p>
        )}
        <p className="mt-2 text-sm text-slate-600">
          A passkey signs you in without a password, and signs the approvals the gate policy marks as signed: your authenticator confirms the run,
          its plan version and the exact steps you approve.
        </p>
        <PasskeysPanel rows={rows} />
      </main>
    </>
  );
}
