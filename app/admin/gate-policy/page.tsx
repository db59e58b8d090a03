import type { Metadata } from "next";
import { AdminNav } from "@/components/admin/admin-nav";
import { GatePolicyAdmin } from "@/components/admin/gate-policy-admin";
import { getGatePolicyForAdmin } from "@/lib/server/gate-policy/list-gate-policy";
import { catalogToolsForAdmin } from "@/lib/server/tools/imported-tools";
import { requirePageRole, requirePageViewer } from "@/lib/server/auth/page-access";

export const metadata: Metadata = { title: "Gate policy · Admin" };
export const dynamic = "force-dynamic";

/**
 * `/admin/gate-policy`: the gate policy as data, admins only. `?tool=&desk=&note=` (from a
 * recurring edit on /insights) opens the draft with one more rule for that tool, not saved.
 */
export default async function AdminGatePolicyPage({ searchParams }: { searchParams: Promise<{ tool?: string; desk?: string; note?: string }> }) {
  const q = await searchParams;
  const prefill = q.tool ? { tool: q.tool.slice(0, 64), desk: (q.desk ?? "").slice(0, 64), note: (q.note ?? "").slice(0, 200) } : null;
  const viewer = await requirePageViewer("/admin/gate-policy");
  await requirePageRole(viewer, ["admin"], "view /admin/gate-policy");
  const data = await getGatePolicyForAdmin(viewer);
  return (
    <>
      <main className="mx-auto max-w-7xl px-4 py-6 sm:px-6">
        <h1 className="text-xl font-semibold">Admin</h1>
        <p className="mt-1 text-sm text-slate-600">
          Which steps need approval, by whom and how fast: per tool, amount band, account or account tag, and desk. A save writes a new version; decisions already made keep theirs.
        </p>
        <AdminNav current="gate-policy" />
        <GatePolicyAdmin key={data.live.version} prefill={prefill} live={data.live} versions={data.versions} tools={(await catalogToolsForAdmin(viewer)).tools} />
      </main>
    </>
  );
}
