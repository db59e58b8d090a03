import type { Metadata } from "next";
import { AdminNav } from "@/components/admin/admin-nav";
import { PasskeyRequirementsAdmin } from "@/components/admin/passkey-requirements-admin";
import { UsersAdmin } from "@/components/admin/users-admin";
import { listUsers } from "@/lib/server/admin/admin";
import { listDesks } from "@/lib/server/admin/desks";
import { requirePageViewer } from "@/lib/server/auth/page-access";
import { requirePageRole } from "@/lib/server/auth/page-access";
import { listOwnPasskeys, passkeyRequirementOverview } from "@/lib/server/auth/passkey-requirement";

export const metadata: Metadata = { title: "Users · Admin" };
export const dynamic = "force-dynamic";

/** `/admin/users`: the people (list, create, disable) and the roles that must have a passkey; admins only. */
export default async function AdminUsersPage() {
  const viewer = await requirePageViewer("/admin/users");
  await requirePageRole(viewer, ["admin"], "view /admin/users");
  return (
    <>
      {
        <main className="mx-auto max-w-7xl px-4 py-6 sm:px-6">
          <h1 className="text-xl font-semibold">Admin</h1>
          <p className="mt-1 text-sm text-slate-600">People, their roles and grants; agents and their API keys. Every change is audited.</p>
          <AdminNav current="users" />
          <UsersAdmin initialPage={await listUsers(viewer)} viewerId={viewer.id} desks={(await listDesks(viewer, { limit: 200 })).desks} />
          <PasskeyRequirementsAdmin initial={await passkeyRequirementOverview()} viewerHasPasskey={(await listOwnPasskeys(viewer)).length > 0} />
        </main>
      }
    </>
  );
}
