import type { Metadata } from "next";
import { AdminNav } from "@/components/admin/admin-nav";
import { IntegrationKeysAdmin } from "@/components/admin/integration-keys-admin";
import { listIntegrationKeys } from "@/lib/server/admin/integration-keys";
import { requirePageRole, requirePageViewer } from "@/lib/server/auth/page-access";

export const metadata: Metadata = { title: "Integration keys · Admin" };
export const dynamic = "force-dynamic";

/** Admins' list of integration keys: create with scopes (shown once), scopes, last used, revoke. */
export default async function AdminIntegrationsPage() {
  const viewer = await requirePageViewer("/admin/integrations");
  await requirePageRole(viewer, ["admin"], "view /admin/integrations");
  return (
    <>
      <main className="mx-auto max-w-7xl px-6 py-6">
        <h1 className="text-xl font-semibold">Admin</h1>
        <p className="mt-1 text-sm text-slate-600">
          Your ticketing system and systems of record reach Plandesk with integration keys. A key holds the scopes chosen when it is made:{" "}
          <code>tasks</code> opens and revises tasks and reports ticket events, <code>records</code> pushes and reads records through the records door; a
          request outside its scopes is refused (<code>key_scope_missing</code>). Agent keys cannot revise tasks. A new key is shown once; only its hash is
          stored. Revoking takes effect on the next request.
        </p>
        <AdminNav current="integrations" />
        <IntegrationKeysAdmin initialPage={await listIntegrationKeys(viewer)} />
      </main>
    </>
  );
}
