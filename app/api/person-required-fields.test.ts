/**
 * A person's added or changed step is held to the gate policy's required fields exactly as the
 * agent's (docs/design.md "The task contract and what the agent saw"), through the console's API
 * on this file's own database (SQLite, and PostgreSQL with PLANDESK_TEST_DB=postgres): a senior
 * operator's added refund without a title, evidence, a risk and a stop condition is refused, 422
 * `validation_failed` naming the fields, nothing saved and nothing approvable; the same refund
 * with the fields filled in is saved and can be approved.
 */
import { nanoid } from "nanoid";
import { beforeAll, describe, expect, it } from "vitest";
import { prisma } from "@/lib/server/db/db";
import { DEMO_AGENT_KEY } from "@/lib/server/demo/seed";
import { apiRequest, routeCtx, signInCookie, TEST_ORIGIN } from "@/testing/test-auth";
import { prepareTestDatabase } from "@/testing/test-support";
import { GET as runDetailsRoute } from "./runs/[runId]/route";
import { POST as editRoute } from "./runs/[runId]/edits/route";
import { POST as approveRoute } from "./runs/[runId]/approvals/route";
import { POST as submitRoute } from "./v1/tasks/[taskId]/runs/route";

type Json = Record<string, any>;
let senior: string;

const agentRequest = (method: string, path: string, body?: unknown) =>
  new Request(`${TEST_ORIGIN}${path}`, {
    method,
    headers: { authorization: `Bearer ${DEMO_AGENT_KEY}`, "idempotency-key": nanoid(), ...(body === undefined ? {} : { "content-type": "application/json" }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
const personRequest = (method: string, path: string, body?: unknown) => apiRequest(method, path, { cookie: senior, origin: TEST_ORIGIN }, body);

// Fjordline Seafood (task_75016): a note on its ticket; the senior adds a refund of part of invoice in_74403 (open 1,200.00 USD).
const TASK = "task_75016";
const refund = { id: "added", tool: "issue_refund", args: { invoiceId: "in_74403", amount: { minor: 10000, currency: "USD" }, reason: "Goodwill for the damaged share" } };

beforeAll(async () => {
  await prepareTestDatabase();
  senior = await signInCookie("senior@plandesk.test");
});

async function agentRun(): Promise<Json> {
  const task = await prisma.task.findUniqueOrThrow({ where: { id: TASK } });
  const res = await submitRoute(agentRequest("POST", `/api/v1/tasks/${TASK}/runs`, { taskRevision: task.revision, addition: true, steps: [{ id: "s_note", tool: "add_ticket_note", args: { ticketId: "75016", note: "Damage reported." } }] }), routeCtx({ taskId: TASK }));
  expect(res.status).toBe(201);
  return ((await res.json()) as Json).run;
}

describe("a person's added refund is held to the fields the gate policy requires", () => {
  it("without them: 422 validation_failed naming each missing field at its path; nothing saved, nothing to approve", async () => {
    const run = await agentRun();
    const steps = [...(run.steps as Json[]).map((s) => ({ id: s.id, tool: s.tool, args: s.args })), refund];
    const res = await editRoute(personRequest("POST", `/api/runs/${run.id}/edits`, { baseVersion: run.planVersion, steps }), routeCtx({ runId: run.id }));
    expect(res.status).toBe(422);
    const body = (await res.json()) as Json;
    expect(body.error.code).toBe("validation_failed");
    const errors = (body.error.issues as Json[]).filter((i) => i.severity === "error");
    expect(errors.map((i) => [i.code, i.path]).sort()).toEqual([
      ["evidence_missing", "steps.1.evidence"],
      ["missing_required_field", "steps.1.risk"],
      ["missing_required_field", "steps.1.stopCondition"],
      ["missing_required_field", "steps.1.title"],
    ]);
    expect(errors.find((i) => i.path === "steps.1.title")!.message).toBe(
      "Step 2 (issue_refund) needs a title under the gate policy (0 of 5 filled); fill in a title, evidence, a risk and a stop condition before it can be approved",
    );
    expect(await prisma.planVersion.count({ where: { runId: run.id } })).toBe(1);
    const view = ((await (await runDetailsRoute(personRequest("GET", `/api/runs/${run.id}`), routeCtx({ runId: run.id }))).json()) as Json).run;
    expect((view.steps as Json[]).map((s) => s.tool)).toEqual(["add_ticket_note"]);
  });

  it("with them filled in: saved, and a person may approve it", async () => {
    const run = await agentRun();
    const complete = { ...refund, title: "Goodwill refund", risk: "Money leaves the company", stopCondition: "The invoice was paid meanwhile", evidence: [{ recordType: "invoice", recordId: "in_74403" }] };
    const steps = [...(run.steps as Json[]).map((s) => ({ id: s.id, tool: s.tool, args: s.args })), complete];
    const res = await editRoute(personRequest("POST", `/api/runs/${run.id}/edits`, { baseVersion: run.planVersion, steps }), routeCtx({ runId: run.id }));
    const body = (await res.json()) as Json;
    expect(res.status, JSON.stringify(body).slice(0, 500)).toBe(201);
    const version = body.planVersion.version as number;
    const approved = await approveRoute(personRequest("POST", `/api/runs/${run.id}/approvals`, { planVersion: version, stepIds: "all", idempotencyKey: nanoid() }), routeCtx({ runId: run.id }));
    expect([200, 201]).toContain(approved.status);
    const view = ((await (await runDetailsRoute(personRequest("GET", `/api/runs/${run.id}`), routeCtx({ runId: run.id }))).json()) as Json).run;
    expect((view.steps as Json[]).find((s) => s.tool === "issue_refund")).toBeDefined();
  });
});
