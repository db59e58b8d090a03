import type { GatePolicyVersionView } from "../../api/gate-policy-endpoints";
import type { GatePolicy } from "../../gate-policy/rules";
import { prisma } from "../db/db";
import { requireRole } from "../auth/require-role";
import type { Viewer } from "../auth/viewer";
import { loadGatePolicy } from "./load-gate-policy";

/** One saved version as the history lists it: the API's version shape (lib/api/gate-policy-endpoints.ts), declared once. */
export type { GatePolicyVersionView };

/** The most versions the history shows (newest first). */
export const GATE_POLICY_HISTORY = 50;

/**
 * The live gate policy (its rules) and the newest GATE_POLICY_HISTORY versions,
 * for the admin console. Errors: 403 `forbidden` unless admin.
 */
export async function getGatePolicyForAdmin(admin: Pick<Viewer, "id" | "role">): Promise<{ live: GatePolicy; versions: GatePolicyVersionView[] }> {
  await requireRole(admin, ["admin"], "admin.view_gate_policy");
  const live = await loadGatePolicy(prisma);
  const rows = await prisma.gatePolicyVersion.findMany({ orderBy: { version: "desc" }, take: GATE_POLICY_HISTORY, include: { _count: { select: { rules: true } } } });
  const ids = [...new Set(rows.map((r) => r.createdById).filter((id): id is string => id !== null))];
  const people = new Map((await prisma.user.findMany({ where: { id: { in: ids } }, select: { id: true, name: true } })).map((u) => [u.id, u]));
  return {
    live,
    versions: rows.map((r) => ({
      version: r.version,
      createdBy: r.createdById ? (people.get(r.createdById) ?? { id: r.createdById, name: r.createdById }) : null,
      createdAt: r.createdAt.toISOString(),
      note: r.note,
      ruleCount: r._count.rules,
    })),
  };
}
