import type { Metadata } from "next";
import { AdminNav } from "@/components/admin/admin-nav";
import { AgentsAdmin } from "@/components/admin/agents-admin";
import { listAgents } from "@/lib/server/admin/admin";
import { catalogToolsForAdmin } from "@/lib/server/tools/imported-tools";
import { listDesks } from "@/lib/server/admin/desks";
import { requirePageViewer } from "@/lib/server/auth/page-access";
import { requirePageRole } from "@/lib/server/auth/page-access";

export const metadata: Metadata = { title: "Agents · Admin" };
export const dynamic = "force-dynamic";

export default async function AdminAgentsPage() {
  const viewer = await requirePageViewer("/admin/agents");
  await requirePageRole(viewer, ["admin"], "view /admin/agents");
  return (
    <>
      {
        <main className="mx-auto max-w-7xl px-4 py-6 sm:px-6">
          <h1 className="text-xl font-semibold">Admin</h1>
          <p className="mt-1 text-sm text-slate-600">
            An agent calls the API with its key. A new key is shown once; only its hash is stored. Revoking takes effect on the next request.
          </p>
          <AdminNav current="agents" />
          <AgentsAdmin initialPage={await listAgents(viewer)} tools={(await catalogToolsForAdmin(viewer)).tools} desks={(await listDesks(viewer, { limit: 200 })).desks} />
        </main>
      }
    </>
  );
}
