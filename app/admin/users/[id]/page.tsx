import type { Metadata } from "next";
import Link from "next/link";
import { AdminNav } from "@/components/admin/admin-nav";
import { UserDeskControl } from "@/components/admin/desks-admin";
import { GrantsTable, RoleControl } from "@/components/admin/user-detail";
import { getUserDetail } from "@/lib/server/admin/admin";
import { listDesks } from "@/lib/server/admin/desks";
import { requirePageViewer } from "@/lib/server/auth/page-access";
import { pageRefusal, requirePageRole } from "@/lib/server/auth/page-access";

export const metadata: Metadata = { title: "User · Admin" };
export const dynamic = "force-dynamic";

export default async function AdminUserPage({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  const viewer = await requirePageViewer(`/admin/users/${id}`);
  await requirePageRole(viewer, ["admin"], `view /admin/users/${id}`);
  let detail: Awaited<ReturnType<typeof getUserDetail>>;
  try {
    detail = await getUserDetail(viewer, id);
  } catch (e) {
    pageRefusal(e);
  }
  const { user, grants } = detail;
  const { desks } = await listDesks(viewer, { limit: 200 });
  return (
    <>
      <main className="mx-auto max-w-7xl px-4 py-6 sm:px-6">
        <p className="text-sm">
          <Link href="/admin/users" className="text-blue-700 underline-offset-2 hover:underline">
            ← All users
          </Link>
        </p>
        <h1 className="mt-1 text-xl font-semibold">
          {user.name}{" "}
          {user.disabled && <span className="ml-1 rounded bg-red-100 px-1.5 py-0.5 align-middle text-xs font-normal text-red-800">disabled</span>}
        </h1>
        <p className="mt-1 text-sm text-slate-600">
          {user.email} · {user.activeSessions} active {user.activeSessions === 1 ? "session" : "sessions"}
        </p>
        <AdminNav current="users" />
        <div className="mt-4 rounded-lg border border-slate-200 bg-white p-4">
          <RoleControl user={user} />
          <div className="mt-4 border-t border-slate-100 pt-4">
            <UserDeskControl user={user} desks={desks} />
          </div>
        </div>
        <GrantsTable userId={user.id} userName={user.name} initialGrants={grants} />
      </main>
    </>
  );
}
