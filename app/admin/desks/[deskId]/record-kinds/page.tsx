import type { Metadata } from "next";
import Link from "next/link";
import { notFound } from "next/navigation";
import { AdminNav } from "@/components/admin/admin-nav";
import { RecordKindsAdmin } from "@/components/admin/record-kinds-admin";
import { DomainError } from "@/lib/errors/domain-error";
import { deskIdSchema } from "@/lib/desk/desks";
import { requirePageRole, requirePageViewer } from "@/lib/server/auth/page-access";
import { listRecordKinds } from "@/lib/server/records/record-kinds-admin";

export const dynamic = "force-dynamic";

/** Tab title: "Record kinds of <desk> · Admin". */
export async function generateMetadata({ params }: { params: Promise<{ deskId: string }> }): Promise<Metadata> {
  return { title: `Record kinds of ${(await params).deskId} · Admin` };
}

/** `/admin/desks/{deskId}/record-kinds`: the kinds the desk declared and the editor that declares one, admins only; an unknown desk is the app's 404. */
export default async function DeskRecordKindsPage({ params }: { params: Promise<{ deskId: string }> }) {
  const { deskId } = await params;
  const viewer = await requirePageViewer(`/admin/desks/${encodeURIComponent(deskId)}/record-kinds`);
  await requirePageRole(viewer, ["admin"], "view /admin/desks/[deskId]/record-kinds");
  if (!deskIdSchema.safeParse(deskId).success) notFound();
  const list = await listRecordKinds(viewer, deskId).catch((e: unknown) => {
    if (e instanceof DomainError && e.code === "not_found") notFound();
    throw e;
  });
  return (
    <main className="mx-auto max-w-7xl px-4 py-6 sm:px-6">
      <h1 className="text-xl font-semibold">Admin</h1>
      <p className="mt-1 text-sm text-slate-600">
        <Link href="/admin/desks" className="text-blue-700 underline">
          Desks
        </Link>{" "}
        › {list.desk.name} › record kinds. Every save is audited.
      </p>
      <AdminNav current="desks" />
      <RecordKindsAdmin list={list} />
    </main>
  );
}
