import type { Metadata } from "next";
import { AdminNav } from "@/components/admin/admin-nav";
import { IntegrationKeysAdmin } from "@/components/admin/integration-keys-admin";
import { listIntegrationKeys } from "@/lib/server/admin/integration-keys";
import { requirePageRole, requirePageViewer } from "@/lib/server/auth/page-access";

export const metadata: Metadata = { title: "Integration keys · Admin" };
export const dynamic = "force-dynamic";

/** Admins' list of ticketing-integration keys: create (shown once), last used, revoke. */
export default async function AdminIntegrationsPage() {
  const viewer = await requirePageViewer("/admin/integrations");
  await requirePageRole(viewer, ["admin"], "view /admin/integrations");
  return (
    <>
      <main className="mx-auto max-w-7xl px-6 py-6">
        <h1 className="text-xl font-semibold">Admin</h1>
        <p className="mt-1 text-sm text-slate-600">
          The ticketing system records changes of a task with an integration key (<code>POST /api/v1/tasks/&#123;taskId&#125;/revisions</code>); it can do nothing
          else, and agent keys cannot revise tasks. A new key is shown once; only its hash is stored. Revoking takes effect on the next request.
        </p>
        <AdminNav current="integrations" />
        <IntegrationKeysAdmin initialPage={await listIntegrationKeys(viewer)} />
      </main>
    </>
  );
}
