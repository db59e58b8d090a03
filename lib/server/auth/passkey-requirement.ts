import { ROLES } from "../../people/admin-schemas";
import { appendAudit } from "../audit-log/append-audit";
import { prisma } from "../db/db";
import { inTransaction, ok } from "../db/transaction";
import type { Role, Viewer } from "./viewer";

/** The page a person without a passkey whose role requires one is sent to (the account menu's "Passkeys"). */
export const PASSKEYS_PAGE = "/account/passkeys";

/**
 * The roles whose people must have a passkey, in ROLES order (lib/people/admin-schemas.ts). One
 * bounded read by primary key: the table holds at most one row per role.
 */
export async function rolesRequiringPasskey(): Promise<Role[]> {
  const rows = await prisma.passkeyRequirement.findMany({ where: { role: { in: [...ROLES] } }, select: { role: true }, take: ROLES.length });
  const set = new Set(rows.map((r) => r.role));
  return ROLES.filter((r) => set.has(r));
}

/**
 * The roles that require a passkey (ROLES order) and, per role, how many enabled people of it have
 * no passkey registered: those of a required role are sent to PASSKEYS_PAGE by their next page.
 * Disabled people are not counted (they cannot sign in). One grouped count over the people, never a
 * whole-table load. Source: docs/security.md "Passkeys and signed approvals"
 */
export async function passkeyRequirementOverview(): Promise<{ roles: Role[]; withoutPasskey: Record<Role, number> }> {
  const groups = await prisma.user.groupBy({ by: ["role"], where: { disabled: false, role: { in: [...ROLES] }, passkeys: { none: {} } }, _count: { _all: true } });
  const withoutPasskey = { operator: 0, supervisor: 0, admin: 0 } satisfies Record<Role, number>;
  for (const g of groups) withoutPasskey[g.role as Role] = g._count._all;
  return { roles: await rolesRequiringPasskey(), withoutPasskey };
}

/**
 * True when `viewer`'s role requires a passkey and they have none registered: the pages send
 * them to PASSKEYS_PAGE (lib/server/auth/page-access.ts `requirePageViewer`). Two indexed reads.
 */
export async function mustRegisterPasskey(viewer: Pick<Viewer, "id" | "role">): Promise<boolean> {
  if ((await prisma.passkeyRequirement.count({ where: { role: viewer.role } })) === 0) return false;
  return (await prisma.passkey.count({ where: { userId: viewer.id } })) === 0;
}

/**
 * An admin sets whether people of `role` must have a passkey (`required`), audited
 * `admin_change` {what: "passkey_requirement", target: {kind: "role", id}, before, after} by the admin. Idempotent: setting the current
 * value changes nothing and records nothing. The caller checks the admin role (lib/api).
 */
export async function setPasskeyRequirement(admin: Pick<Viewer, "id">, role: Role, required: boolean): Promise<{ roles: Role[] }> {
  await inTransaction(async (tx) => {
    const had = (await tx.passkeyRequirement.count({ where: { role } })) > 0;
    if (had === required) return ok(undefined);
    if (required) await tx.passkeyRequirement.create({ data: { role, createdById: admin.id } });
    else await tx.passkeyRequirement.deleteMany({ where: { role } });
    await appendAudit(tx, { runId: null, type: "admin_change", actor: { kind: "user", id: admin.id }, data: { what: "passkey_requirement", target: { kind: "role", id: role }, before: { required: had }, after: { required } } });
    return ok(undefined);
  });
  return { roles: await rolesRequiringPasskey() };
}

/** `viewer`'s own passkeys, oldest first: id, name, when added (ISO UTC) — never a key or a credential id. */
export async function listOwnPasskeys(viewer: Pick<Viewer, "id">): Promise<{ id: string; name: string | null; createdAt: string | null }[]> {
  const rows = await prisma.passkey.findMany({ where: { userId: viewer.id }, orderBy: { createdAt: "asc" }, select: { id: true, name: true, createdAt: true } });
  return rows.map((r) => ({ id: r.id, name: r.name, createdAt: r.createdAt?.toISOString() ?? null }));
}
