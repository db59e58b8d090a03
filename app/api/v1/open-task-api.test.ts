/**
 * `POST /api/v1/tasks`: the ticketing integration opens the task of a new ticket. Route handlers
 * called in process against this file's own database (SQLite, or PostgreSQL with
 * PLANDESK_TEST_DB=postgres), seeded with the demo desk (freight) and the retail desk; a
 * retail-bound integration key is made here.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { DEMO_AGENT_KEY, DEMO_INTEGRATION_KEY } from "@/lib/server/demo/seed";
import { prisma } from "@/lib/server/db/db";
import { hashApiKey } from "@/lib/server/auth/api-keys";
import { openTask } from "@/lib/server/tasks/open-task";
import { transactionRetries } from "@/lib/server/metrics/metrics";
import { prepareTestDatabase } from "@/testing/test-support";
import { inProcessFetch } from "@/testing/in-process-fetch";

type Json = Record<string, any>;
const RETAIL_KEY = "pd_int_retail_only_key";

async function open(body: unknown, key = DEMO_INTEGRATION_KEY): Promise<{ status: number; body: Json; replayed: string | null }> {
  const res = await inProcessFetch("http://localhost:3999/api/v1/tasks", {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as Json, replayed: res.headers.get("idempotent-replayed") };
}

const counts = async () => ({ tickets: await prisma.ticket.count(), tasks: await prisma.task.count(), revisions: await prisma.taskRevision.count() });

const opening = (ticketId: string, extra: Json = {}) => ({
  ticketId,
  accountId: "acc_nordkapp",
  subject: "Pallet left behind at Hamburg",
  parts: [
    { source: "customer_message", text: "One pallet of sh_5640 was left at the Hamburg hub. Please deliver it next week." },
    { source: "staff", text: "Checked with the hub: the pallet is there." },
  ],
  ...extra,
});

beforeAll(async () => {
  await prepareTestDatabase();
  await prisma.integrationKey.create({ data: { id: "int_retail", name: "Retail ticketing", hash: hashApiKey(RETAIL_KEY), prefix: RETAIL_KEY.slice(0, 8), desk: "retail" } });
});

describe("POST /api/v1/tasks: opening a task", () => {
  it("an agent key is refused (403) and nothing is written", async () => {
    const before = await counts();
    const res = await open(opening("90001"), DEMO_AGENT_KEY);
    expect(res.status).toBe(403);
    expect(await counts()).toEqual(before);
  });

  it("creates the ticket and its task at revision 1 (task_<ticketId>), with revision row r1, parts, contract and an audit event", async () => {
    const res = await open(opening("90002", { contract: { intent: "delivery_exception", constraints: { accountsInScope: ["acc_nordkapp"] } } }));
    expect(res.status).toBe(201);
    expect(res.replayed).toBeNull();
    expect(res.body.created).toBe(true);
    expect(res.body.task).toMatchObject({
      id: "task_90002",
      ticketId: "90002",
      accountId: "acc_nordkapp",
      revision: 1,
      contract: { intent: "delivery_exception", constraints: { accountsInScope: ["acc_nordkapp"] } },
      parts: [
        { source: "customer_message", revision: 1 },
        { source: "staff", text: "Checked with the hub: the pallet is there.", revision: 1 },
      ],
    });
    expect(res.body.task.body).toBe("customer message: One pallet of sh_5640 was left at the Hamburg hub. Please deliver it next week.\n\nstaff: Checked with the hub: the pallet is there.");
    const ticket = await prisma.ticket.findUniqueOrThrow({ where: { desk_id: { desk: "freight", id: "90002" } } });
    expect(ticket).toMatchObject({ accountId: "acc_nordkapp", subject: "Pallet left behind at Hamburg" });
    const r1 = await prisma.taskRevision.findUniqueOrThrow({ where: { taskId_revision: { taskId: "task_90002", revision: 1 } } });
    expect(r1).toMatchObject({ body: res.body.task.body, actorKind: "integration", actorId: "int_demo" });
    const audit = await prisma.auditEvent.findMany({ where: { type: "task_opened" } });
    expect(audit.map((a) => (a.data as Json).taskId)).toContain("task_90002");
    // the agent of the desk sees it
    const listed = await inProcessFetch("http://localhost:3999/api/v1/tasks?ticketId=90002", { headers: { authorization: `Bearer ${DEMO_AGENT_KEY}` } });
    expect(((await listed.json()) as Json).tasks.map((t: Json) => t.id)).toEqual(["task_90002"]);
  });

  it("one part is the body as it is", async () => {
    const res = await open({ ticketId: "90003", accountId: "acc_fjord", subject: "Question", parts: [{ source: "system", text: "Customer asks for a copy of in_74401." }] });
    expect(res.status).toBe(201);
    expect(res.body.task.body).toBe("Customer asks for a copy of in_74401.");
  });

  it("the same body again answers the same task (200, created: false, Idempotent-Replayed) and writes nothing", async () => {
    const first = await open(opening("90004"));
    expect(first.status).toBe(201);
    const before = await counts();
    const again = await open(opening("90004"));
    expect(again.status).toBe(200);
    expect(again.replayed).toBe("true");
    expect(again.body).toMatchObject({ created: false, task: { id: "task_90004", revision: 1 } });
    expect(await counts()).toEqual(before);
    // still the same task after a revision: the opening is compared with revision 1
    const revised = await inProcessFetch("http://localhost:3999/api/v1/tasks/task_90004/revisions", {
      method: "POST",
      headers: { authorization: `Bearer ${DEMO_INTEGRATION_KEY}`, "content-type": "application/json" },
      body: JSON.stringify({ comment: "Customer called again." }),
    });
    expect(revised.status).toBe(201);
    const third = await open(opening("90004"));
    expect(third.status).toBe(200);
    expect(third.body.task).toMatchObject({ id: "task_90004", revision: 2 });
  });

  it("another body for an existing ticket is 409 task_exists naming the task and the revisions endpoint; nothing changes", async () => {
    await open(opening("90005"));
    const before = await prisma.task.findUniqueOrThrow({ where: { id: "task_90005" } });
    for (const changed of [{ subject: "Another subject" }, { parts: [{ source: "staff", text: "Different text" }] }, { contract: { intent: "question" } }, { accountId: "acc_fjord" }]) {
      const res = await open(opening("90005", changed));
      expect(res.status).toBe(409);
      expect(res.body.error).toMatchObject({ code: "task_exists", taskId: "task_90005" });
      expect(res.body.error.message).toContain("POST /api/v1/tasks/task_90005/revisions");
    }
    expect(await prisma.task.findUniqueOrThrow({ where: { id: "task_90005" } })).toEqual(before);
    expect(await prisma.taskRevision.count({ where: { taskId: "task_90005" } })).toBe(1);
  });

  it("an account that does not exist, is deleted, or is another desk's is 422 unknown_account in the same words", async () => {
    await prisma.customerAccount.create({ data: { id: "acc_gone", name: "Gone Ltd", desk: "retail", deletedAt: new Date() } });
    const before = await counts();
    const answers: Json[] = [];
    for (const [accountId, key] of [
      ["acc_nope", DEMO_INTEGRATION_KEY],
      ["acc_gone", DEMO_INTEGRATION_KEY],
      ["acc_gone", RETAIL_KEY],
      ["acc_nordkapp", RETAIL_KEY],
    ] as const) {
      const res = await open({ ...opening("90006"), accountId }, key);
      expect(res.status).toBe(422);
      expect(res.body.error.code).toBe("unknown_account");
      expect(JSON.stringify(res.body)).not.toMatch(/freight/i);
      answers.push(res.body.error);
    }
    expect(answers[0].message.replace("acc_nope", "X")).toBe(answers[3].message.replace("acc_nordkapp", "X"));
    expect(await counts()).toEqual(before);
  });

  it("a desk-bound key opens on its own desk; a ticket id another desk uses is this desk's own ticket, the other's untouched and unnamed", async () => {
    const mine = await open({ ticketId: "90007", accountId: "acc_maple", subject: "Order question", parts: [{ source: "customer_message", text: "Where is sh_8102?" }] }, RETAIL_KEY);
    expect(mine.status).toBe(201);
    expect(mine.body.task).toMatchObject({ id: "task_retail_90007", accountId: "acc_maple" });
    const freightTicket = await prisma.ticket.findUniqueOrThrow({ where: { desk_id: { desk: "freight", id: "74991" } } });
    // 74991 is a freight ticket of the demo desk: retail's 74991 is another ticket
    const own = await open({ ticketId: "74991", accountId: "acc_maple", subject: "Order question", parts: [{ source: "customer_message", text: "Where is sh_8102?" }] }, RETAIL_KEY);
    expect(own.status).toBe(201);
    // its id comes from the desk and ticket alone: the same as if freight had no ticket 74991
    expect(own.body.task).toMatchObject({ id: "task_retail_74991", ticketId: "74991", accountId: "acc_maple", revision: 1 });
    expect(JSON.stringify(own.body)).not.toMatch(/freight|task_74991|acc_nordkapp/i);
    expect(await prisma.ticket.findUniqueOrThrow({ where: { desk_id: { desk: "retail", id: "74991" } } })).toMatchObject({ accountId: "acc_maple", subject: "Order question" });
    expect(await prisma.ticket.findUniqueOrThrow({ where: { desk_id: { desk: "freight", id: "74991" } } })).toEqual(freightTicket);
    // a repeat is idempotent on retail's own ticket
    const again = await open({ ticketId: "74991", accountId: "acc_maple", subject: "Order question", parts: [{ source: "customer_message", text: "Where is sh_8102?" }] }, RETAIL_KEY);
    expect(again).toMatchObject({ status: 200, body: { created: false, task: { id: own.body.task.id } } });
  });

  it("this desk's ticket on another account or subject without a task is 409 ticket_taken", async () => {
    await prisma.ticket.create({ data: { desk: "retail", id: "90017", accountId: "acc_maple", subject: "Loaded without a task" } });
    const before = await counts();
    const taken = await open({ ticketId: "90017", accountId: "acc_maple", subject: "Another subject", parts: [{ source: "staff", text: "x" }] }, RETAIL_KEY);
    expect(taken.status).toBe(409);
    expect(taken.body.error.code).toBe("ticket_taken");
    expect(await counts()).toEqual(before);
  });

  it("a contract that does not fit the desk is 422 validation_failed (the desk's catalog), nothing written", async () => {
    const before = await counts();
    const res = await open(opening("90008", { contract: { intent: "no_such_intent" } }));
    expect(res.status).toBe(422);
    expect(res.body.error).toMatchObject({ code: "validation_failed", issues: [{ path: "contract.intent", code: "unknown_intent" }] });
    const retail = await open({ ticketId: "90008", accountId: "acc_maple", subject: "x", parts: [{ source: "staff", text: "y" }], contract: { intent: "question", constraints: { accountsInScope: ["acc_nordkapp"] } } }, RETAIL_KEY);
    expect(retail.status).toBe(422);
    expect(retail.body.error.issues).toMatchObject([{ code: "unknown_account" }]);
    expect(await counts()).toEqual(before);
  });

  it("when task_<ticketId> is taken, the task gets a generated id", async () => {
    await prisma.ticket.create({ data: { desk: "freight", id: "90009-old", accountId: "acc_fjord", subject: "old" } });
    await prisma.task.create({ data: { desk: "freight", id: "task_90009", ticketId: "90009-old", body: "old" } });
    const res = await open(opening("90009"));
    expect(res.status).toBe(201);
    expect(res.body.task.id).toMatch(/^task_/);
    expect(res.body.task.id).not.toBe("task_90009");
    expect(res.body.task.ticketId).toBe("90009");
  });

  it("bad bodies are 400 and write nothing", async () => {
    const before = await counts();
    for (const body of [{ ...opening("90010"), parts: [] }, { ...opening("90010"), extra: 1 }, { ...opening("bad id!") }, { ...opening("90010"), parts: [{ source: "robot", text: "x" }] }]) {
      expect((await open(body)).status).toBe(400);
    }
    expect(await counts()).toEqual(before);
  });

  it("parallel opens of one ticket make one task: one 201, the rest 200 with the same task", async () => {
    const results = await Promise.all(Array.from({ length: 8 }, () => open(opening("90011"))));
    expect(results.map((r) => r.status).sort()).toEqual([200, 200, 200, 200, 200, 200, 200, 201]);
    expect(new Set(results.map((r) => r.body.task.id))).toEqual(new Set(["task_90011"]));
    expect(await prisma.task.count({ where: { ticketId: "90011" } })).toBe(1);
    expect(await prisma.taskRevision.count({ where: { taskId: "task_90011" } })).toBe(1);
    const opened = await prisma.auditEvent.findMany({ where: { type: "task_opened" }, select: { data: true } });
    expect(opened.filter((e) => (e.data as Json).taskId === "task_90011")).toHaveLength(1);
  });

  it("a ticketing system opening 40 consecutive tickets, 20 at a time, gets 40 tasks, none of them run twice", async () => {
    // consecutive ids share index pages: under SERIALIZABLE their lookups of absent keys aborted each other on PostgreSQL
    const ids = Array.from({ length: 40 }, (_, k) => String(91000 + k));
    const conflictsBefore = await transactionRetries("conflict");
    const statuses: number[] = [];
    for (let k = 0; k < ids.length; k += 20) statuses.push(...(await Promise.all(ids.slice(k, k + 20).map(async (id) => (await open(opening(id))).status))));
    expect(statuses).toEqual(ids.map(() => 201));
    expect(await prisma.task.count({ where: { ticketId: { in: ids } } })).toBe(40);
    // distinct tickets never abort each other: no transaction had to run again
    expect(await transactionRetries("conflict")).toBe(conflictsBefore);
  });

  it("openTask works without HTTP (the demo loader's path) and is idempotent there too", async () => {
    const at = new Date("2026-01-02T03:04:05.000Z");
    const a = await openTask({ ticketId: "90012", accountId: "acc_brightside", subject: "Lamp", parts: [{ source: "system", text: "Broken lamp." }] }, { kind: "system" }, { at });
    const b = await openTask({ ticketId: "90012", accountId: "acc_brightside", subject: "Lamp", parts: [{ source: "system", text: "Broken lamp." }] }, { kind: "system" });
    expect(a.created).toBe(true);
    expect(b).toEqual({ ...a, created: false });
    expect((await prisma.task.findUniqueOrThrow({ where: { id: "task_retail_90012" } })).createdAt.toISOString()).toBe(at.toISOString());
    expect((await prisma.ticket.findUniqueOrThrow({ where: { desk_id: { desk: "retail", id: "90012" } } })).createdAt.toISOString()).toBe(at.toISOString());
  });
});
