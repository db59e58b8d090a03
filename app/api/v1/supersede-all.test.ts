/**
 * One task, one live plan, without a ceiling: a plain submission supersedes EVERY waiting run
 * of the task by the same agent (there was a `take: 50`), withdraws all their active approvals
 * and audits each (real route handlers, this file's own database).
 */
import { nanoid } from "nanoid";
import { beforeAll, describe, expect, it } from "vitest";
import { prisma } from "@/lib/server/db/db";
import { DEMO_AGENT_KEY } from "@/lib/server/demo/seed";
import { prepareTestDatabase } from "@/testing/test-support";
import { POST as submitRoute } from "./tasks/[taskId]/runs/route";

type Json = Record<string, any>;

async function submit(ticketId: string, steps: unknown[], extra: Json = {}): Promise<Json> {
  const task = await prisma.task.findUniqueOrThrow({ where: { id: `task_${ticketId}` } });
  const res = await submitRoute(
    new Request(`http://localhost:3999/api/v1/tasks/${task.id}/runs`, {
      method: "POST",
      headers: { authorization: `Bearer ${DEMO_AGENT_KEY}`, "content-type": "application/json", "idempotency-key": nanoid() },
      body: JSON.stringify({ taskRevision: task.revision, steps, ...extra }),
    }),
    { params: Promise.resolve({ taskId: task.id }) },
  );
  const body = (await res.json()) as Json;
  expect(res.status, JSON.stringify(body)).toBe(201);
  return body.run;
}

const reply = (ticketId: string, n: number) => ({ id: `s_reply_${n}`, tool: "send_reply", args: { ticketId, body: `Thanks for getting in touch; we are looking into it (${n}).` }, rationale: "The customer asked." });
const note = (ticketId: string, n: number) => ({ id: `s_note_${n}`, tool: "add_ticket_note", args: { ticketId, note: `Looked into it (${n}).` } });

beforeAll(async () => {
  await prepareTestDatabase();
});

describe("a plain submission supersedes all the task's waiting runs of its agent", () => {
  it("60 waiting runs (additions), then a plain submission: all 60 superseded, their approvals withdrawn, each audited once", async () => {
    const ticketId = "75006";
    const waiting: string[] = [];
    for (let i = 0; i < 60; i++) waiting.push((await submit(ticketId, [i % 2 ? reply(ticketId, i) : note(ticketId, i)], { addition: true })).id);
    expect(await prisma.run.count({ where: { id: { in: waiting }, status: { in: ["pending_review", "approved"] } } })).toBe(60);
    const activeBefore = await prisma.approval.groupBy({ by: ["runId"], where: { runId: { in: waiting }, state: "active" }, _count: { _all: true } });
    expect(activeBefore.length).toBeGreaterThan(0); // some of them carry the gate policy's approvals

    const latest = await submit(ticketId, [reply(ticketId, 999)]);

    const runs = await prisma.run.findMany({ where: { id: { in: waiting } }, select: { id: true, status: true, supersededById: true } });
    expect(runs.filter((r) => r.status === "superseded" && r.supersededById === latest.id)).toHaveLength(60);
    expect(await prisma.approval.count({ where: { runId: { in: waiting }, state: "active" } })).toBe(0);
    const audits = await prisma.auditEvent.findMany({ where: { type: "superseded", runId: { in: waiting } } });
    expect(audits).toHaveLength(60);
    expect(new Set(audits.map((a) => a.runId)).size).toBe(60);
    const withdrawnByRun = new Map(activeBefore.map((g) => [g.runId, g._count._all]));
    for (const a of audits) expect(a.data).toMatchObject({ supersededById: latest.id, taskId: `task_${ticketId}`, approvalsWithdrawn: withdrawnByRun.get(a.runId!) ?? 0 });
    // the new run names the newest run it superseded, and is the task's one live plan
    const newest = await prisma.run.findFirstOrThrow({ where: { id: { in: waiting } }, orderBy: [{ createdAt: "desc" }, { id: "desc" }], select: { id: true } });
    expect((await prisma.run.findUniqueOrThrow({ where: { id: latest.id } })).supersedesId).toBe(newest.id);
    expect(await prisma.run.count({ where: { taskId: `task_${ticketId}`, status: { in: ["pending_review", "approved"] } } })).toBe(1);
  });
});
