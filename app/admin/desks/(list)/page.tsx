import type { Metadata } from "next";
import { AdminNav } from "@/components/admin/admin-nav";
import { DesksAdmin } from "@/components/admin/desks-admin";
import { listDesks } from "@/lib/server/admin/desks";
import { requirePageRole, requirePageViewer } from "@/lib/server/auth/page-access";

export const metadata: Metadata = { title: "Desks · Admin" };
export const dynamic = "force-dynamic";

export default async function AdminDesksPage() {
  const viewer = await requirePageViewer("/admin/desks");
  await requirePageRole(viewer, ["admin"], "view /admin/desks");
  const { desks } = await listDesks(viewer, { limit: 200 });
  return (
    <>
      <main className="mx-auto max-w-7xl px-4 py-6 sm:px-6">
        <h1 className="text-xl font-semibold">Admin</h1>
        <p className="mt-1 text-sm text-slate-600">Desks and who works them. People and agents are assigned on their own pages. Every change is audited.</p>
        <AdminNav current="desks" />
        <DesksAdmin desks={desks} />
      </main>
    </>
  );
}
