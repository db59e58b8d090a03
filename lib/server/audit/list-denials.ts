import { describeDenial, type DenialSummary } from "../../audit/denials";
import { prisma } from "../db/db";
import { actorPeople, auditEventPage } from "./audit-page";
import { requireRole } from "../auth/require-role";
import type { Viewer } from "../auth/viewer";

/** One refused authorisation as the supervisors' denials page shows it. */
export interface DenialRow extends DenialSummary {
  seq: number;
  at: string;
  runId: string | null;
  stepId: string | null;
  actor: { kind: string; id: string | null; name: string };
}

/**
 * The latest `denied` audit events, newest first (docs/design.md §11),
 * with who (person, agent, or an unidentified caller), what was tried and what was missing.
 * Pages with `before` (an audit sequence number) and `limit` (1–200, default 100).
 * Errors: 403 `forbidden` unless supervisor or admin (audited as `denied` too).
 */
export async function listDenials(viewer: Pick<Viewer, "id" | "role">, opts: { before?: number; limit?: number } = {}): Promise<{ rows: DenialRow[]; nextBefore: number | null }> {
  await requireRole(viewer, ["supervisor", "admin"], "view denials");
  const { events: page, nextBefore } = await auditEventPage("denied", { before: opts.before, limit: opts.limit ?? 100 });
  const agentIds = [...new Set(page.filter((e) => e.actorKind === "agent" && e.actorId).map((e) => e.actorId!))];
  const [userName, agents] = await Promise.all([actorPeople(page), prisma.agent.findMany({ where: { id: { in: agentIds } }, select: { id: true, name: true } })]);
  const agentName = new Map(agents.map((a) => [a.id, a.name]));
  const rows = page.map((e): DenialRow => {
    const data = (e.data ?? {}) as Record<string, unknown>;
    const name =
      e.actorKind === "user"
        ? (userName.get(e.actorId ?? "") ?? `user ${e.actorId}`)
        : e.actorKind === "agent"
          ? `agent ${agentName.get(e.actorId ?? "") ?? e.actorId}`
          : e.actorKind === "anonymous"
            ? "unidentified caller"
            : e.actorKind;
    return {
      seq: e.seq,
      at: e.createdAt.toISOString(),
      runId: e.runId,
      stepId: typeof data.stepId === "string" ? data.stepId : null,
      actor: { kind: e.actorKind, id: e.actorId, name },
      ...describeDenial(data),
    };
  });
  return { rows, nextBefore };
}
