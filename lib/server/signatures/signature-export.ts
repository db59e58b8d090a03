import { DomainError } from "../../errors/domain-error";
import type { SignatureExport } from "../../signatures/verify-export";
import { prisma } from "../db/db";
import { storedSteps } from "../plans/stored-plan";

/**
 * The signature export of run `runId` straight from the database, in the shape of the run's audit
 * export (`GET /api/runs/{runId}/audit`: `run.id`, `events` with actor and data, `planVersions` with
 * steps), for `npm run verify-approvals -- --run <id>`; with the public keys (COSE, base64url) of
 * the passkeys each signing approver has registered now. Reads the run's events, plan versions and
 * the approvers' passkeys by key. Errors: 404 `not_found` (no such run).
 */
export async function loadSignatureExport(runId: string): Promise<{ export: SignatureExport; registeredKeys: Record<string, string[]> }> {
  const run = await prisma.run.findUnique({ where: { id: runId }, select: { id: true, planVersions: { orderBy: { version: "asc" }, select: { version: true, steps: true } } } });
  if (!run) throw new DomainError("not_found", `Run ${runId} was not found.`);
  const rows = await prisma.auditEvent.findMany({ where: { runId }, orderBy: { seq: "asc" } });
  const approverIds = [...new Set(rows.filter((r) => r.type === "approved" && r.actorKind === "user" && r.actorId).map((r) => r.actorId!))];
  const [users, passkeys] = approverIds.length
    ? await Promise.all([
        prisma.user.findMany({ where: { id: { in: approverIds } }, select: { id: true, name: true } }),
        prisma.passkey.findMany({ where: { userId: { in: approverIds } }, select: { userId: true, publicKey: true } }),
      ])
    : [[], []];
  const names = new Map(users.map((u) => [u.id, u.name]));
  const registeredKeys: Record<string, string[]> = {};
  for (const p of passkeys) (registeredKeys[p.userId] ??= []).push(Buffer.from(p.publicKey, "base64").toString("base64url"));
  return {
    export: {
      run: { id: run.id },
      events: rows.map((r) => ({
        seq: r.seq,
        type: r.type,
        actor: { kind: r.actorKind, id: r.actorId, ...(r.actorId && names.has(r.actorId) ? { name: names.get(r.actorId)! } : {}) },
        data: (r.data && typeof r.data === "object" && !Array.isArray(r.data) ? r.data : { value: r.data }) as Record<string, unknown>,
      })),
      planVersions: run.planVersions.map((pv) => ({ version: pv.version, steps: storedSteps(pv.steps).map((s) => ({ id: s.id, tool: s.tool, args: s.args })) })),
    },
    registeredKeys,
  };
}
