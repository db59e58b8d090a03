/**
 * A desk is a boundary, not a filter (route-level, SQLite and PostgreSQL): the demo's second desk
 * "retail" (its own operator, agent, accounts, tickets and runs) never writes, previews or mentions
 * a record of the freight desk. Every record a step targets must belong to the run's desk — a
 * validator error no acknowledgement passes, on edit, approval, claim, fence and the write — and
 * no message, preview, suggestion or count shows another desk's record.
 */
import { nanoid } from "nanoid";
import { beforeAll, describe, expect, it } from "vitest";
import { digest } from "@/lib/plan/digest";
import { prisma } from "@/lib/server/db/db";
import { DEMO_AGENT_KEY, DEMO_RETAIL_AGENT_KEY } from "@/lib/server/demo/seed";
import { storedSteps } from "@/lib/server/plans/stored-plan";
import { approveAllAs, prepareTestDatabase, withRequiredReasons } from "@/testing/test-support";
import { apiRequest, routeCtx, signInCookie, TEST_ORIGIN } from "@/testing/test-auth";
import { GET as searchRoute } from "./account-data/[kind]/route";
import { GET as queueRoute } from "./runs/route";
import { GET as runRoute } from "./runs/[runId]/route";
import { POST as editRoute } from "./runs/[runId]/edits/route";
import { POST as approveRoute } from "./runs/[runId]/approvals/route";
import { POST as claimRoute } from "./v1/runs/[runId]/steps/[stepId]/claim/route";
import { POST as fenceRoute } from "./v1/claims/[token]/fence/route";
import { POST as effectRoute } from "./v1/demo/effects/route";
import { GET as taskRoute } from "./v1/tasks/[taskId]/route";
import { GET as tasksRoute } from "./v1/tasks/route";
import { POST as submitRoute } from "./v1/tasks/[taskId]/runs/route";

type Json = Record<string, any>;
let retail: string;
let supervisor: string;

/** Words that identify freight records the retail desk must never see: owners, balances, windows, addresses. */
const FREIGHT_SECRETS = ["Halvorsen", "acc_halvorsen", "2,120.00", "212000", "Nordkapp", "acc_nordkapp", "Kongsveien", "NO-OSL", "Delivery to Oslo"];

function expectNoFreightSecrets(body: unknown, extra: string[] = []) {
  const text = JSON.stringify(body);
  for (const secret of [...FREIGHT_SECRETS, ...extra]) expect(text, `leaked ${secret}`).not.toContain(secret);
}

const mutate = (method: string, path: string, cookie: string, body: unknown) => apiRequest(method, path, { cookie, origin: TEST_ORIGIN }, body);
const agentRequest = (method: string, path: string, key: string, body?: unknown) =>
  new Request(`${TEST_ORIGIN}${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, "idempotency-key": nanoid(), ...(body === undefined ? {} : { "content-type": "application/json" }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });

const REPLY = [
  { id: "st_note", tool: "add_ticket_note", args: { ticketId: "81003", note: "Copy of the invoice requested." } },
  { id: "st_reply", tool: "send_reply", args: { ticketId: "81003", body: "Here is the copy of your invoice." } },
];

/** A retail run (the seeded runs' deadlines are relative to the test clock, so each test submits its own, now). */
async function retailRun(): Promise<{ id: string; steps: { id: string; tool: string; args: Record<string, unknown> }[]; planVersion: number; boundTaskRevision: number }> {
  const run = await freshRetailRun(REPLY);
  return { id: run.id, steps: REPLY, planVersion: 1, boundTaskRevision: run.boundTaskRevision };
}

/** A fresh retail run for ticket 81003 (its own, so tests do not share one). */
async function freshRetailRun(steps: unknown[]): Promise<Json> {
  const task = await prisma.task.findUniqueOrThrow({ where: { id: "task_retail_81003" } });
  const res = await submitRoute(agentRequest("POST", `/api/v1/tasks/${task.id}/runs`, DEMO_RETAIL_AGENT_KEY, { taskRevision: task.revision, steps, addition: true }), routeCtx({ taskId: task.id }));
  expect(res.status).toBe(201);
  return (await res.json()).run;
}

/** Rewrites a stored plan version as the flaw let an edit store it (a step naming another desk's record). */
async function storeForeignPlan(runId: string, steps: unknown[]) {
  const run = await prisma.run.findUniqueOrThrow({ where: { id: runId } });
  await prisma.planVersion.update({ where: { runId_version: { runId, version: run.planVersion } }, data: { steps: steps as never } });
}

beforeAll(async () => {
  await prepareTestDatabase();
  retail = await signInCookie("retail@plandesk.test");
  supervisor = await signInCookie("supervisor@plandesk.test");
});

describe("case 1: a step never targets a record of another desk", () => {
  it("a retail edit that points send_reply at freight ticket 74991 is refused: not found on this desk, an error no acknowledgement passes", async () => {
    const run = await retailRun();
    const steps = run.steps.map((s) => (s.tool === "send_reply" ? { ...s, args: { ...s.args, ticketId: "74991" } } : s));
    const res = await editRoute(mutate("POST", `/api/runs/${run.id}/edits`, retail, { baseVersion: run.planVersion, steps }), routeCtx({ runId: run.id }));
    const body = await res.json();
    expect(res.status).toBe(422);
    expect(body.error.code).toBe("validation_failed");
    const issue = body.error.issues.find((i: Json) => i.path.endsWith("args.ticketId") && i.severity === "error");
    expect(issue).toMatchObject({ code: "unknown_id", severity: "error" });
    expect(issue.message).toContain("not found on this desk");
    expectNoFreightSecrets(body, ["Delivery to Oslo missed its window"]);
    expect(await prisma.planVersion.count({ where: { runId: run.id } })).toBe(1);
  });

  it("a stored plan naming ticket 74991 cannot be approved, even with every warning acknowledged", async () => {
    const run = await freshRetailRun([{ id: "s_reply", tool: "send_reply", args: { ticketId: "81003", body: "Here is the copy of your invoice." } }]);
    await storeForeignPlan(run.id, [{ id: "s_reply", tool: "send_reply", args: { ticketId: "74991", body: "Here is the copy of your invoice." } }]);
    const acknowledgedWarnings = ["cross_account_target", "unverified_provenance", "commitment"].map((code) => ({ code, stepId: "s_reply" }));
    const res = await approveRoute(
      mutate("POST", `/api/runs/${run.id}/approvals`, retail, { planVersion: 1, stepIds: "all", idempotencyKey: nanoid(), acknowledgedWarnings }),
      routeCtx({ runId: run.id }),
    );
    const body = await res.json();
    expect(res.status).toBe(422);
    expect(body.error.code).toBe("validation_failed");
    expect(body.error.issues.some((i: Json) => i.code === "unknown_id" && i.message.includes("not found on this desk"))).toBe(true);
    expect(await prisma.approval.count({ where: { runId: run.id } })).toBe(0);
  });

  it("the executor's claim of such a step is refused, and another desk's agent does not even find the run", async () => {
    const run = await freshRetailRun([{ id: "s_reply", tool: "send_reply", args: { ticketId: "81003", body: "Here is the copy of your invoice." } }]);
    await storeForeignPlan(run.id, [{ id: "s_reply", tool: "send_reply", args: { ticketId: "74991", body: "Here is the copy of your invoice." } }]);
    await approveAllAs(run.id, "usr_retail");
    const step = storedSteps((await prisma.planVersion.findFirstOrThrow({ where: { runId: run.id } })).steps)[0];
    const claimBody = { digest: digest(step), taskRevision: run.boundTaskRevision };
    const freight = await claimRoute(agentRequest("POST", `/api/v1/runs/${run.id}/steps/s_reply/claim`, DEMO_AGENT_KEY, claimBody), routeCtx({ runId: run.id, stepId: "s_reply" }));
    expect(freight.status).toBe(404);
    const res = await claimRoute(agentRequest("POST", `/api/v1/runs/${run.id}/steps/s_reply/claim`, DEMO_RETAIL_AGENT_KEY, claimBody), routeCtx({ runId: run.id, stepId: "s_reply" }));
    const body = await res.json();
    expect(res.status).toBe(422);
    expect(body.error.code).toBe("validation_failed");
    expect(body.error.message).toContain("not found on this desk");
    expectNoFreightSecrets(body);
    expect(await prisma.stepExecution.count({ where: { runId: run.id } })).toBe(0);
  });

  it("a claimed step whose target left the desk is fenced: the fence and the write both refuse it", async () => {
    await prisma.customerAccount.create({ data: { id: "acc_moving", name: "Moving Account", desk: "retail" } });
    await prisma.ticket.create({ data: { desk: "retail", id: "81090", accountId: "acc_moving", subject: "Moves desks" } });
    await prisma.invoice.create({ data: { desk: "retail", id: "in_81090", accountId: "acc_moving", status: "open", currency: "USD", totalMinor: 50000, openMinor: 50000, fees: [], dueDate: "2026-05-01" } });
    const run = await freshRetailRun([{ id: "s_note", tool: "add_ticket_note", args: { ticketId: "81003", note: "Moving account refund." } }]);
    const refund = { id: "s_refund", tool: "issue_refund", args: { invoiceId: "in_81090", amount: { minor: 1000, currency: "USD" }, reason: "Goodwill" }, provenance: {}, author: { kind: "model" } };
    await storeForeignPlan(run.id, [refund]);
    await approveAllAs(run.id, "usr_retail");
    const claimBody = { digest: digest(refund as never), taskRevision: run.boundTaskRevision };
    const claimed = await claimRoute(agentRequest("POST", `/api/v1/runs/${run.id}/steps/s_refund/claim`, DEMO_RETAIL_AGENT_KEY, claimBody), routeCtx({ runId: run.id, stepId: "s_refund" }));
    expect(claimed.status).toBe(200);
    const { claim } = await claimed.json();
    // An admin moves the account to the freight desk while the executor holds the claim.
    await prisma.customerAccount.update({ where: { desk_id: { desk: "retail", id: "acc_moving" } }, data: { desk: "freight" } });
    const fence = await fenceRoute(agentRequest("POST", `/api/v1/claims/${claim.token}/fence`, DEMO_RETAIL_AGENT_KEY), routeCtx({ token: claim.token }));
    const fenceBody = await fence.json();
    expect(fence.status).toBe(409);
    expect(fenceBody.error).toMatchObject({ code: "claim_fenced", reason: "not_on_desk" });
    const write = await effectRoute(agentRequest("POST", "/api/v1/demo/effects", DEMO_RETAIL_AGENT_KEY, { runId: run.id, stepId: "s_refund", token: claim.token }));
    expect(write.status).toBe(409);
    expect((await write.json()).error).toMatchObject({ code: "claim_fenced", reason: "not_on_desk" });
    expect((await prisma.invoice.findUniqueOrThrow({ where: { desk_id: { desk: "freight", id: "in_81090" } } })).openMinor).toBe(50000);
  });
});

describe("case 2: nothing of another desk is disclosed", () => {
  it("a refund on in_74119 in a retail run says only 'not found on this desk': no balance, no owner (also to a supervisor, who sees every desk)", async () => {
    const run = await retailRun();
    const steps = [...run.steps, { id: "new_refund", tool: "issue_refund", args: { invoiceId: "in_74119", amount: { minor: 300000, currency: "USD" }, reason: "Goodwill" } }];
    // The retail operator (author ceiling $500.00) is refused authorship; the supervisor reaches the validator.
    for (const [cookie, status] of [[retail, 403], [supervisor, 422]] as const) {
      const res = await editRoute(mutate("POST", `/api/runs/${run.id}/edits`, cookie, { baseVersion: run.planVersion, steps }), routeCtx({ runId: run.id }));
      const body = await res.json();
      expect(res.status).toBe(status);
      const issue = body.error.issues.find((i: Json) => i.path === "steps.2.args.invoiceId");
      expect(issue).toMatchObject({ code: "unknown_id", severity: "error" });
      expect(issue.message).toMatch(/^Invoice "in_74119" is not found on this desk/);
      expect(body.error.issues.some((i: Json) => i.code === "amount_exceeds_balance" || i.code === "cross_account_target")).toBe(false);
      expectNoFreightSecrets(body);
    }
  });

  it("a retail reschedule of sh_5521 shows neither its window nor its owner, in the refusal or the run's effects preview", async () => {
    const run = await retailRun();
    const window = { from: "2026-04-09", to: "2026-04-09" };
    const sh = await prisma.shipment.findUniqueOrThrow({ where: { desk_id: { desk: "freight", id: "sh_5521" } } });
    const steps = [...run.steps, { id: "new_resched", tool: "reschedule_delivery", args: { shipmentId: "sh_5521", window, reason: "Customer asked" } }];
    const res = await editRoute(mutate("POST", `/api/runs/${run.id}/edits`, retail, { baseVersion: run.planVersion, steps }), routeCtx({ runId: run.id }));
    const body = await res.json();
    expect(res.status).toBe(422);
    expect(body.error.issues.find((i: Json) => i.path.endsWith("args.shipmentId")).message).toContain("not found on this desk");
    expectNoFreightSecrets(body, [sh.windowFrom, sh.address]);

    // The preview of a stored plan that names it (as the flaw let one be stored) shows nothing of it either.
    const fresh = await freshRetailRun([{ id: "s_note", tool: "add_ticket_note", args: { ticketId: "81003", note: "Checking." } }]);
    await storeForeignPlan(fresh.id, [{ id: "s_resched", tool: "reschedule_delivery", args: { shipmentId: "sh_5521", window, reason: "Customer asked" }, provenance: {}, author: { kind: "model" } }]);
    const page = await runRoute(apiRequest("GET", `/api/runs/${fresh.id}`, { cookie: retail }), routeCtx({ runId: fresh.id }));
    expect(page.status).toBe(200);
    const details = await page.json();
    expect(details.effects).toHaveLength(1);
    expectNoFreightSecrets(details, [sh.windowFrom, sh.address, "in_transit"]);
  });

  it("record search finds only the caller's desk: the retail operator finds no freight shipment or invoice", async () => {
    const search = async (kind: string, q: string, cookie = retail, desk?: string) => {
      const res = await searchRoute(apiRequest("GET", `/api/account-data/${kind}?q=${encodeURIComponent(q)}${desk ? `&desk=${desk}` : ""}`, { cookie }), routeCtx({ kind }));
      expect(res.status).toBe(200);
      return ((await res.json()).records as Json[]).map((r) => r.id);
    };
    expect(await search("shipment", "sh_5")).toEqual([]);
    expect(await search("invoice", "in_74")).toEqual([]);
    expect(await search("ticket", "7")).toEqual([]);
    expect(await search("account", "acc_h")).toEqual([]);
    expect(await search("shipment", "sh_8")).toEqual(["sh_8101", "sh_8102"]);
    expect(await search("invoice", "in_", retail, "freight")).toEqual([]); // another desk named: nothing
    // A supervisor editing a retail run gets only retail suggestions (the form passes the run's desk).
    expect(await search("invoice", "in_", supervisor, "retail")).toEqual(expect.arrayContaining(["in_81001", "in_81002"]));
    expect((await search("invoice", "in_", supervisor, "retail")).some((id) => id.startsWith("in_74"))).toBe(false);
  });

  it("money in flight counts only the run's desk: a hold of another desk's run is neither counted nor named", async () => {
    const freightRun = await prisma.run.findFirstOrThrow({ where: { desk: "freight" } });
    await prisma.approval.create({
      data: {
        id: `apr_${nanoid(8)}`, runId: freightRun.id, stepId: "legacy", planVersion: freightRun.planVersion, tool: "issue_refund", args: {}, digest: "x",
        boundTaskRevision: 1, approverId: "usr_senior", authority: { kind: "grant" }, acknowledged: [], targetKind: "invoice", targetId: "in_81002",
        amountMinor: 20000, amountCurrency: "USD", state: "active", expiresAt: new Date("2030-01-01T00:00:00Z"),
      },
    });
    const run = await freshRetailRun([{ id: "s_note", tool: "add_ticket_note", args: { ticketId: "81003", note: "Refund check." } }]);
    const steps = [{ id: "s_note", tool: "add_ticket_note", args: { ticketId: "81003", note: "Refund check." } }, ...withRequiredReasons([{ id: "s_refund", tool: "issue_refund", args: { invoiceId: "in_81002", amount: { minor: 20000, currency: "USD" }, reason: "Goodwill" }, evidence: [{ recordType: "ticket", recordId: "81003" }] }])];
    const res = await editRoute(mutate("POST", `/api/runs/${run.id}/edits`, retail, { baseVersion: 1, steps }), routeCtx({ runId: run.id }));
    const body = await res.json();
    expect(res.status, JSON.stringify(body)).toBe(201);
    expect(body.validation.issues.some((i: Json) => i.code === "money_in_flight" || i.code === "amount_exceeds_available")).toBe(false);
    expect(JSON.stringify(body)).not.toContain(freightRun.id);
  });

  it("the retail operator's queue lists retail runs only; a freight run is not found", async () => {
    const res = await queueRoute(apiRequest("GET", "/api/runs?limit=200", { cookie: retail }));
    const runs = (await res.json()).runs as Json[];
    expect(runs.length).toBeGreaterThan(0);
    expect(runs.every((r) => r.ticketId.startsWith("81"))).toBe(true);
    const freight = await prisma.run.findFirstOrThrow({ where: { desk: "freight" } });
    expect((await runRoute(apiRequest("GET", `/api/runs/${freight.id}`, { cookie: retail }), routeCtx({ runId: freight.id }))).status).toBe(404);
  });

  it("agents work their own desk: the retail agent neither reads nor plans for a freight task, and the freight agent not for a retail one", async () => {
    expect((await taskRoute(agentRequest("GET", "/api/v1/tasks/task_74991", DEMO_RETAIL_AGENT_KEY), routeCtx({ taskId: "task_74991" }))).status).toBe(404);
    const listed = await tasksRoute(agentRequest("GET", "/api/v1/tasks?ticketId=74991", DEMO_RETAIL_AGENT_KEY));
    expect((await listed.json()).tasks).toEqual([]);
    const submit = (taskId: string, key: string) =>
      submitRoute(agentRequest("POST", `/api/v1/tasks/${taskId}/runs`, key, { taskRevision: 1, steps: [{ id: "s", tool: "add_ticket_note", args: { ticketId: taskId.slice(5), note: "x" } }] }), routeCtx({ taskId }));
    expect((await submit("task_74991", DEMO_RETAIL_AGENT_KEY)).status).toBe(404);
    expect((await submit("task_retail_81003", DEMO_AGENT_KEY)).status).toBe(404);
  });
});
