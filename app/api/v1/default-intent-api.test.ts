/**
 * A task the integration opens without a contract, over HTTP: it gets its desk's default intent,
 * and a desk that declared none permits only replies and notes. An admin declares the default with
 * the intent catalog; the agent can neither post a contract nor widen the intent. Route handlers
 * called in process against this file's own database (SQLite, or PostgreSQL with
 * PLANDESK_TEST_DB=postgres), seeded with the demo desk.
 */
import { nanoid } from "nanoid";
import { beforeAll, describe, expect, it } from "vitest";
import { DEMO_AGENT_KEY, DEMO_INTEGRATION_KEY } from "@/lib/server/demo/seed";
import { prisma } from "@/lib/server/db/db";
import { prepareTestDatabase } from "@/testing/test-support";
import { inProcessFetch } from "@/testing/in-process-fetch";
import { apiRequest, routeCtx, signInCookie, TEST_ORIGIN } from "@/testing/test-auth";
import { completeRefund } from "@/testing/validation-context";
import { GET as getIntents, PUT as putIntents } from "../admin/desks/[deskId]/intents/route";

type Json = Record<string, any>;
let admin: string;

async function call(method: "GET" | "POST", path: string, body?: unknown, key = DEMO_AGENT_KEY): Promise<{ status: number; body: Json }> {
  const res = await inProcessFetch(`http://localhost:3999${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, "idempotency-key": nanoid(), ...(body === undefined ? {} : { "content-type": "application/json" }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as Json };
}

/** Opens ticket `ticketId` on acc_nordkapp through the integration door, with no contract. */
async function openWithoutContract(ticketId: string): Promise<string> {
  const res = await call("POST", "/api/v1/tasks", { ticketId, accountId: "acc_nordkapp", subject: "Invoice higher than usual", parts: [{ source: "customer_message", text: "Can you tell me why my invoice is higher this month?" }] }, DEMO_INTEGRATION_KEY);
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  expect(res.body.task.contract).toBeNull();
  return res.body.task.id as string;
}

/** The agent's refund of in_74102 (open, acc_nordkapp) on `taskId` (every reason the gate policy asks for filled). */
const submitRefund = (taskId: string, ticketId: string) => call("POST", `/api/v1/tasks/${taskId}/runs`, { taskRevision: 1, steps: [completeRefund("refund", { args: { invoiceId: "in_74102", amount: { minor: 5000, currency: "USD" }, reason: "Goodwill" }, evidence: [{ recordType: "invoice", recordId: "in_74102" }] }), { id: "note", tool: "add_ticket_note", args: { ticketId, note: "Refund proposed." } }] });

async function catalog(): Promise<Json> {
  const res = await getIntents(apiRequest("GET", "/api/admin/desks/freight/intents", { cookie: admin }), routeCtx({ deskId: "freight" }));
  return (await res.json()) as Json;
}
async function saveCatalog(body: Json): Promise<{ status: number; body: Json }> {
  const res = await putIntents(apiRequest("PUT", "/api/admin/desks/freight/intents", { cookie: admin, origin: TEST_ORIGIN }, body), routeCtx({ deskId: "freight" }));
  return { status: res.status, body: (await res.json()) as Json };
}

beforeAll(async () => {
  await prepareTestDatabase();
  admin = await signInCookie("admin@plandesk.test");
});

describe("a task without a contract", () => {
  it("on a desk without a default intent a refund is refused outside_task_intent; once the admin sets a permitting default intent it passes", async () => {
    expect((await catalog()).defaultIntent).toBeNull();
    const taskId = await openWithoutContract("90501");
    const refused = await submitRefund(taskId, "90501");
    expect(refused.status).toBe(422);
    expect(refused.body.error.code).toBe("validation_failed");
    const issue = (refused.body.error.issues as Json[]).find((i) => i.code === "outside_task_intent");
    expect(issue).toMatchObject({ stepId: "refund", severity: "error", details: { intent: null, tool: "issue_refund", noContract: true } });
    expect(issue!.message).toBe("The task has no contract and the desk declares no default intent, so only replies and notes are permitted, not issue_refund");

    const before = await catalog();
    const saved = await saveCatalog({ baseDigest: before.digest, intents: before.intents, defaultIntent: "refund_request", note: "Untriaged tickets are mostly refund requests" });
    expect(saved.status, JSON.stringify(saved.body)).toBe(200);
    expect(saved.body.defaultIntent).toBe("refund_request");
    const event = await prisma.auditEvent.findFirstOrThrow({ where: { type: "admin_change" }, orderBy: { seq: "desc" } });
    expect(event.data).toMatchObject({ what: "desk.intents.save", defaultIntent: { before: null, after: "refund_request" }, note: "Untriaged tickets are mostly refund requests" });

    const accepted = await submitRefund(taskId, "90501");
    expect(accepted.status, JSON.stringify(accepted.body)).toBe(201);
    expect(accepted.body.run.status).toBe("pending_review");
    expect(JSON.stringify(accepted.body)).not.toContain("outside_task_intent");

    // Declaring none again restores the built-in intent: replies and notes only.
    const cleared = await saveCatalog({ baseDigest: saved.body.digest, intents: saved.body.intents, defaultIntent: null, note: "Back to replies and notes" });
    expect(cleared.body.defaultIntent).toBeNull();
    expect((await submitRefund(await openWithoutContract("90502"), "90502")).status).toBe(422);
  });

  it("a default intent the catalog lacks is a typed 400, and so is removing the default intent; nothing is written", async () => {
    const live = await catalog();
    const auditBefore = await prisma.auditEvent.count();
    const unknown = await saveCatalog({ baseDigest: live.digest, intents: live.intents, defaultIntent: "refunds_please", note: "typo" });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error).toMatchObject({ code: "bad_request", issues: [{ path: "defaultIntent", message: expect.stringContaining('"refunds_please" is not an intent of this catalog') }] });

    const set = await saveCatalog({ baseDigest: live.digest, intents: live.intents, defaultIntent: "question", note: "Untriaged tickets are questions" });
    expect(set.status).toBe(200);
    const removed = await saveCatalog({ baseDigest: set.body.digest, intents: live.intents.filter((i: Json) => i.name !== "question"), note: "Drop questions" });
    expect(removed.status).toBe(400);
    expect(removed.body.error).toMatchObject({ code: "bad_request", issues: [{ path: "defaultIntent", message: expect.stringContaining('"question" is the desk\'s default intent') }] });
    // Omitting defaultIntent keeps it.
    const kept = await saveCatalog({ baseDigest: set.body.digest, intents: live.intents, note: "Relabel nothing" });
    expect(kept.body.defaultIntent).toBe("question");
    const events = await prisma.auditEvent.findMany({ where: { seq: { gt: auditBefore } }, select: { type: true, data: true } });
    expect(events.filter((e) => e.type === "admin_change").map((e) => (e.data as Json).defaultIntent)).toEqual([{ before: null, after: "question" }, { before: "question", after: "question" }]);
    expect((await catalog()).intents.map((i: Json) => i.name)).toContain("question");
  });

  it("the agent can neither post a contract nor name an intent: its key is refused at the task door and a run body that carries one is a 400", async () => {
    const open = await call("POST", "/api/v1/tasks", { ticketId: "90503", accountId: "acc_nordkapp", subject: "S", parts: [{ source: "system", text: "T" }], contract: { intent: "general_exception", constraints: {} } });
    expect(open.status).toBe(403);
    const revise = await call("POST", "/api/v1/tasks/task_90501/revisions", { contract: { intent: "general_exception", constraints: {} } });
    expect(revise.status).toBe(403);
    const run = await call("POST", "/api/v1/tasks/task_90501/runs", { taskRevision: 1, steps: [], contract: { intent: "general_exception", constraints: {} } });
    expect(run.status).toBe(400);
    expect((await prisma.task.findUniqueOrThrow({ where: { id: "task_90501" } })).contract).toBeNull();
  });
});
