import type { Metadata } from "next";
import { AdminNav } from "@/components/admin/admin-nav";
import { ToolsAdmin } from "@/components/admin/tools-admin";
import { listAgents } from "@/lib/server/admin/admin";
import { requirePageRole, requirePageViewer } from "@/lib/server/auth/page-access";
import { configuredMcpServers, listCatalogForAdmin } from "@/lib/server/tools/imported-tools";

export const metadata: Metadata = { title: "Tools · Admin" };
export const dynamic = "force-dynamic";

export default async function AdminToolsPage() {
  const viewer = await requirePageViewer("/admin/tools");
  await requirePageRole(viewer, ["admin"], "view /admin/tools");
  return (
    <>
      {
        <main className="mx-auto max-w-7xl px-4 py-6 sm:px-6">
          <h1 className="text-xl font-semibold">Admin</h1>
          <p className="mt-1 text-sm text-slate-600">
            Import tools from an MCP server&apos;s <code>tools/list</code> or from OpenAI function definitions. Each import that changes a tool makes a new catalog version; a run keeps the version it was validated against. An agent may call an imported tool only when its allowlist says so.
          </p>
          <AdminNav current="tools" />
          <ToolsAdmin initial={await listCatalogForAdmin(viewer)} agents={(await listAgents(viewer, { limit: 200 })).agents.map((a) => ({ id: a.id, name: a.name, allowedTools: a.allowedTools }))} servers={Object.keys(configuredMcpServers())} />
        </main>
      }
    </>
  );
}
