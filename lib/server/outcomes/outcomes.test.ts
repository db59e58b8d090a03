/**
 * Did the edit help? The reference case edited (+4 days, a $1,489.00 refund added), executed,
 * then reported reopened by the ticketing integration: the outcome record, the ticket events API
 * (authorisation, idempotency, desk isolation, bad input) and the supervisors' labels (authorisation,
 * audit) — through the exported route handlers, on SQLite and PostgreSQL.
 */
import { nanoid } from "nanoid";
import { beforeAll, describe, expect, it } from "vitest";
import { POST as POST_EVENT } from "@/app/api/v1/tasks/[taskId]/events/route";
import { PUT as PUT_LABEL } from "@/app/api/runs/[runId]/outcome-label/route";
import { GET as GET_OUTCOME } from "@/app/api/runs/[runId]/outcome/route";
import { GET as GET_REVIEW } from "@/app/api/outcomes/review/route";
import { GET as GET_CORPUS } from "@/app/api/audit/diffs.jsonl/route";
import { loadOutcomeInsights } from "@/lib/server/outcomes/outcome-insights";
import { DEMO_AGENT_TOOLS } from "@/lib/demo/desk-data";
import { createIntegrationKey } from "@/lib/server/admin/integration-keys";
import { claimStep } from "@/lib/server/claims/claim-step";
import { reportOutcome } from "@/lib/server/claims/report-outcome";
import { prisma } from "@/lib/server/db/db";
import { DEMO_AGENT_ID, DEMO_AGENT_KEY, DEMO_INTEGRATION_KEY } from "@/lib/server/demo/seed";
import { submitEdit } from "@/lib/server/edits/submit-edit";
import { approveSteps } from "@/lib/server/approvals/approve-steps";
import { loadRun } from "@/lib/server/plans/load-run";
import { toRunView } from "@/lib/server/plans/run-view";
import { submitRun } from "@/lib/server/runs/submit-run";
import { loadViewer, type AgentCaller, type Viewer } from "@/lib/server/auth/session";
import { apiRequest, routeCtx, signInCookie, TEST_ORIGIN, type Credentials } from "@/testing/test-auth";
import { approveAllAs, prepareTestDatabase, referenceEdit, TEST_NOW } from "@/testing/test-support";

const agent: AgentCaller = { id: DEMO_AGENT_ID, name: "Freight desk agent", allowedTools: [...DEMO_AGENT_TOOLS], keyId: "key_demo" };
const at = (minutes: number) => new Date(TEST_NOW.getTime() + minutes * 60_000);
const DAY = 24 * 60;
let senior: Viewer;
let runId = "";
let executedAt = at(0);
let supervisorCookie = "";
let operatorCookie = "";

/** Claims and reports every step of the run's approved plan as written, in plan order. */
async function execute(id: string, from: number): Promise<Date> {
  const run = toRunView(await loadRun(id), at(from));
  let t = from;
  for (const s of run.steps) {
    t += 1;
    const { claim } = await claimStep(agent, id, s.id, { digest: s.digest, taskRevision: run.boundTaskRevision }, null, at(t));
    await reportOutcome(agent, id, s.id, { token: claim.token, status: "succeeded" }, at(t));
  }
  return at(t);
}

const postEvent = (taskId: string, body: unknown, creds: Credentials = { key: DEMO_INTEGRATION_KEY }, headers: Record<string, string> = {}) => {
  const req = apiRequest("POST", `/api/v1/tasks/${taskId}/events`, creds, body);
  for (const [k, v] of Object.entries(headers)) req.headers.set(k, v);
  return POST_EVENT(req, routeCtx({ taskId }));
};
const putLabel = (id: string, body: unknown, cookie: string) => PUT_LABEL(apiRequest("PUT", `/api/runs/${id}/outcome-label`, { cookie, origin: TEST_ORIGIN }, body), routeCtx({ runId: id }));

beforeAll(async () => {
  await prepareTestDatabase();
  senior = (await loadViewer("usr_senior"))!;
  supervisorCookie = await signInCookie("supervisor@plandesk.test");
  operatorCookie = await signInCookie("operator@plandesk.test");
  const run = await prisma.run.findFirstOrThrow({ where: { task: { ticketId: "74991" }, idempotencyKey: { startsWith: "seed:" } } });
  runId = run.id;
  const v1 = toRunView(await loadRun(run.id), TEST_NOW);
  await submitEdit(senior, run.id, { baseVersion: 1, steps: referenceEdit(v1.steps) }, at(1));
  await approveAllAs(run.id, "usr_supervisor");
  executedAt = await execute(run.id, 2);
});

describe("the outcome record of an executed, edited run", () => {
  it("is stored when the run completes: $1,489.00 out, $1,489.00 more than the agent proposed, over-compensation", async () => {
    const row = await prisma.runOutcome.findUniqueOrThrow({ where: { runId } });
    expect(row).toMatchObject({ edited: true, editorId: "usr_senior", moneyOutMinor: 148900, moneyDifferenceMinor: 148900, overCompensation: true, reopened: false, labelled: false, label: null });
    expect(row.executedAt.toISOString()).toBe(executedAt.toISOString());
    expect(await prisma.runOutcomeMoney.findMany({ where: { runId }, select: { tool: true, currency: true, writtenMinor: true, proposedMinor: true, over: true } })).toEqual([
      { tool: "issue_refund", currency: "USD", writtenMinor: 148900, proposedMinor: 0, over: true },
    ]);
    const res = await GET_OUTCOME(apiRequest("GET", `/api/runs/${runId}/outcome`, { cookie: operatorCookie }), routeCtx({ runId }));
    expect(res.status).toBe(200);
    const { outcome } = (await res.json()) as { outcome: { record: { summary: string; moneyOut: unknown; proposedMoneyOut: unknown } } };
    expect(outcome.record.summary).toBe("The edit moved $1,489.00 more than the agent proposed; it moved the delivery of sh_5521 4 days later than the agent proposed.");
    // The counterfactual covers the delivery too: the window written beside the one the agent proposed.
    expect((outcome.record as unknown as { deliveryDifference: { shipmentId: string; daysLater: number }[] }).deliveryDifference).toEqual([expect.objectContaining({ shipmentId: "sh_5521", daysLater: 4 })]);
    expect(outcome.record).toMatchObject({ moneyOut: [{ minor: 148900, currency: "USD" }], proposedMoneyOut: [] });
  });

  it("a run that has not executed has none (null); another desk's run is not found", async () => {
    const pending = await prisma.run.findFirstOrThrow({ where: { status: "pending_review", desk: "freight" } });
    const res = await GET_OUTCOME(apiRequest("GET", `/api/runs/${pending.id}/outcome`, { cookie: operatorCookie }), routeCtx({ runId: pending.id }));
    expect(await res.json()).toEqual({ outcome: null });
    const retail = await prisma.run.findFirst({ where: { desk: "retail" } });
    if (retail) expect((await GET_OUTCOME(apiRequest("GET", `/api/runs/${retail.id}/outcome`, { cookie: operatorCookie }), routeCtx({ runId: retail.id }))).status).toBe(404);
  });
});

describe("POST /api/v1/tasks/{taskId}/events", () => {
  it("a reopen 2 days after the run executed counts against it: the record says so, the run's audit has the event", async () => {
    const reopenedAt = new Date(executedAt.getTime() + 2 * DAY * 60_000 + 3_600_000);
    const res = await postEvent("task_74991", { type: "reopened", at: reopenedAt.toISOString(), detail: "The refund went to the wrong company." });
    expect(res.status).toBe(201);
    const body = (await res.json()) as { event: { type: string; at: string }; outcomes: { runId: string; signals: string[]; summary: string }[] };
    expect(body.event).toMatchObject({ type: "reopened", at: reopenedAt.toISOString(), ticketId: "74991" });
    const mine = body.outcomes.find((o) => o.runId === runId)!;
    expect(mine.signals).toEqual(expect.arrayContaining(["reopened", "over_compensation"]));
    expect(mine.summary).toBe("The edit moved $1,489.00 more than the agent proposed; it moved the delivery of sh_5521 4 days later than the agent proposed; the ticket was reopened 2 days later.");
    expect(await prisma.runOutcome.findUniqueOrThrow({ where: { runId }, select: { reopened: true, suggestion: true } })).toEqual({ reopened: true, suggestion: "worse" });
    const audit = await prisma.auditEvent.findFirstOrThrow({ where: { runId, type: "ticket_event" } });
    expect(audit).toMatchObject({ actorKind: "integration" });
  });

  it("is idempotent by Idempotency-Key: the same body again is the saved answer, another body with the key is 409", async () => {
    const key = `ev-${nanoid()}`;
    const before = await prisma.ticketEvent.count();
    const first = await postEvent("task_74991", { type: "customer_replied", detail: "Thanks" }, undefined, { "idempotency-key": key });
    expect(first.status).toBe(201);
    const again = await postEvent("task_74991", { type: "customer_replied", detail: "Thanks" }, undefined, { "idempotency-key": key });
    expect(again.status).toBe(201);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(((await again.json()) as { event: { id: string } }).event.id).toBe(((await first.json()) as { event: { id: string } }).event.id);
    expect(await prisma.ticketEvent.count()).toBe(before + 1);
    const other = await postEvent("task_74991", { type: "resolved" }, undefined, { "idempotency-key": key });
    expect(other.status).toBe(409);
    expect(((await other.json()) as { error: { code: string } }).error.code).toBe("idempotency_conflict");
    expect(await prisma.ticketEvent.count()).toBe(before + 1);
  });

  it("an agent key is 403 forbidden, no key 401, a session 401; nothing recorded", async () => {
    const before = await prisma.ticketEvent.count();
    const asAgent = await postEvent("task_74991", { type: "resolved" }, { key: DEMO_AGENT_KEY });
    expect(asAgent.status).toBe(403);
    expect(((await asAgent.json()) as { error: { code: string } }).error.code).toBe("forbidden");
    expect((await postEvent("task_74991", { type: "resolved" }, {})).status).toBe(401);
    expect((await postEvent("task_74991", { type: "resolved" }, { cookie: supervisorCookie, origin: TEST_ORIGIN })).status).toBe(401);
    expect(await prisma.ticketEvent.count()).toBe(before);
  });

  it("a key bound to another desk does not find this desk's task (404, as for a task that does not exist)", async () => {
    const admin = (await loadViewer("usr_admin"))!;
    const { integrationKey, key } = await createIntegrationKey(admin, { name: "Retail helpdesk", desk: "retail" });
    expect(integrationKey.desk).toBe("retail");
    await expect(createIntegrationKey(admin, { name: "Nowhere helpdesk", desk: "nowhere" })).rejects.toMatchObject({ code: "unknown_desk" });
    const foreign = await postEvent("task_74991", { type: "reopened" }, { key });
    const missing = await postEvent("task_nope", { type: "reopened" }, { key });
    expect([foreign.status, missing.status]).toEqual([404, 404]);
    const [a, b] = [(await foreign.json()) as { error: { code: string; message: string } }, (await missing.json()) as { error: { code: string; message: string } }];
    expect(a.error.code).toBe("not_found");
    expect(a.error.message.replace("task_74991", "X")).toBe(b.error.message.replace("task_nope", "X"));
  });

  it("an event carrying someone's words is a task revision: a customer's reply stops the plan waiting on the earlier revision, stays untrusted text; an event without text changes no revision", async () => {
    const task = await prisma.task.findUniqueOrThrow({ where: { id: "task_75016" } });
    const { run } = await submitRun(agent, task.id, { taskRevision: task.revision, steps: [{ id: "s1", tool: "send_reply", args: { ticketId: "75016", body: "We are looking into the fee and will write again today." } }] }, `ev-rev:${nanoid()}`);
    expect(run.status).toBe("pending_review");
    // no text: no revision, the plan still waits
    const quiet = await postEvent(task.id, { type: "resolved" });
    expect(((await quiet.json()) as { revised: boolean; taskRevision: number })).toMatchObject({ revised: false, taskRevision: task.revision });
    expect((await prisma.run.findUniqueOrThrow({ where: { id: run.id } })).status).toBe("pending_review");
    // a reply: a new revision, the customer's words as an untrusted part, the waiting plan stopped
    const reply = await postEvent(task.id, { type: "customer_replied", detail: "Please do not waive anything, I will pay it." });
    expect(reply.status).toBe(201);
    expect(((await reply.json()) as { revised: boolean; taskRevision: number })).toEqual(expect.objectContaining({ revised: true, taskRevision: task.revision + 1 }));
    const after = await prisma.task.findUniqueOrThrow({ where: { id: task.id } });
    expect(after.revision).toBe(task.revision + 1);
    expect(after.textParts).toEqual(expect.arrayContaining([expect.objectContaining({ source: "customer_message", text: "Please do not waive anything, I will pay it.", revision: task.revision + 1 })]));
    const stopped = await prisma.run.findUniqueOrThrow({ where: { id: run.id } });
    expect(stopped.status).toBe("stopped");
    expect(stopped.stopReason).toMatchObject({ code: "stopped_stale_task", boundRevision: task.revision, liveRevision: task.revision + 1 });
    await expect(approveSteps(senior, run.id, { planVersion: 1, stepIds: "all", idempotencyKey: `ev-rev-approve:${run.id}` })).rejects.toMatchObject({ code: expect.any(String) });
    expect(await prisma.approval.count({ where: { runId: run.id } })).toBe(0);
    // blank text is no text
    const blank = await postEvent(task.id, { type: "customer_replied", detail: "   " });
    expect(((await blank.json()) as { revised: boolean })).toMatchObject({ revised: false });
    // a resolution note is staff text
    await postEvent(task.id, { type: "resolved", detail: "Closed after the call." });
    const last = await prisma.task.findUniqueOrThrow({ where: { id: task.id } });
    expect(last.revision).toBe(task.revision + 2);
    expect(last.textParts).toEqual(expect.arrayContaining([expect.objectContaining({ source: "staff", text: "Closed after the call." })]));
  });

  it("twenty replies at once on one task: every one recorded, each its own revision, none refused busy", async () => {
    const task = await prisma.task.findUniqueOrThrow({ where: { id: "task_75017" } });
    const answers = await Promise.all(Array.from({ length: 20 }, (_, k) => postEvent(task.id, { type: "customer_replied", detail: `Reply number ${k} from the customer.` })));
    expect(answers.map((a) => a.status)).toEqual(Array(20).fill(201));
    const revisions = await Promise.all(answers.map(async (a) => ((await a.json()) as { taskRevision: number }).taskRevision));
    expect([...revisions].sort((a, b) => a - b)).toEqual(Array.from({ length: 20 }, (_, k) => task.revision + 1 + k));
    expect((await prisma.task.findUniqueOrThrow({ where: { id: task.id } })).revision).toBe(task.revision + 20);
  }, 120_000);

  it("bad input is a typed 422 with the field and code; a wrong shape 400; nothing recorded", async () => {
    const before = await prisma.ticketEvent.count();
    const cases: [unknown, number, string | null][] = [
      [{ type: "exploded" }, 422, "unknown_event_type"],
      [{ type: "reopened", at: "yesterday" }, 422, "invalid_time"],
      [{ type: "reopened", at: "2026-04-03T10:00:00" }, 422, "invalid_time"],
      [{ type: "reopened", at: new Date(Date.now() + 3_600_000).toISOString() }, 422, "time_in_future"],
      [{ type: "reopened", extra: 1 }, 400, null],
      [{ type: "reopened", detail: "x".repeat(4001) }, 400, null],
    ];
    for (const [body, status, code] of cases) {
      const res = await postEvent("task_74991", body);
      expect({ body, status: res.status }).toEqual({ body, status });
      const err = ((await res.json()) as { error: { code: string; issues?: { code: string }[] } }).error;
      if (code) expect(err.issues?.map((i) => i.code)).toEqual([code]);
    }
    expect(await prisma.ticketEvent.count()).toBe(before);
  });
});

describe("supervisors label edited runs", () => {
  it("an operator may not label (403, audited denied); a supervisor labels worse with a reason (audited before → after); relabelling records the before", async () => {
    const denied = await putLabel(runId, { label: "worse", reason: "Refund to the wrong customer." }, operatorCookie);
    expect(denied.status).toBe(403);
    expect(await prisma.auditEvent.count({ where: { runId, type: "denied", actorId: "usr_operator" } })).toBeGreaterThanOrEqual(1);
    expect((await prisma.runOutcome.findUniqueOrThrow({ where: { runId } })).label).toBeNull();

    const res = await putLabel(runId, { label: "worse", reason: "Refund to the wrong customer; reopened." }, supervisorCookie);
    expect(res.status).toBe(200);
    const { outcome } = (await res.json()) as { outcome: { label: { label: string; reason: string; by: { name: string } }; record: { suggestion: { label: string } } } };
    expect(outcome.label).toMatchObject({ label: "worse", reason: "Refund to the wrong customer; reopened.", by: { name: "Sofia Supervisor" } });
    expect(outcome.record.suggestion.label).toBe("worse");
    await putLabel(runId, { label: "same", reason: "On reflection the customer was owed it." }, supervisorCookie);
    const events = await prisma.auditEvent.findMany({ where: { runId, type: "outcome_labelled" }, orderBy: { seq: "asc" } });
    expect(events.map((e) => e.data)).toEqual([
      { before: null, after: { label: "worse", reason: "Refund to the wrong customer; reopened." }, suggestion: "worse" },
      { before: { label: "worse", reason: "Refund to the wrong customer; reopened." }, after: { label: "same", reason: "On reflection the customer was owed it." }, suggestion: "worse" },
    ]);
    expect(events.every((e) => e.actorId === "usr_supervisor")).toBe(true);
    // a signal recomputed later never touches the label
    await postEvent("task_74991", { type: "chargeback" });
    expect(await prisma.runOutcome.findUniqueOrThrow({ where: { runId }, select: { label: true, chargeback: true } })).toEqual({ label: "same", chargeback: true });
  });

  it("a reason is required (400); a run executed as the agent proposed it is not labelable (409)", async () => {
    expect((await putLabel(runId, { label: "worse", reason: "" }, supervisorCookie)).status).toBe(400);
    expect((await putLabel(runId, { label: "awful", reason: "Nope nope" }, supervisorCookie)).status).toBe(400);
    const task = await prisma.task.findUniqueOrThrow({ where: { id: "task_75004" } });
    const { run } = await submitRun(agent, task.id, { taskRevision: task.revision, steps: [{ id: "s1", tool: "add_ticket_note", args: { ticketId: "75004", note: "Checked." } }] }, null, at(5));
    await execute(run.id, 6);
    const res = await putLabel(run.id, { label: "better", reason: "Nothing to judge" }, supervisorCookie);
    expect(res.status).toBe(409);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe("not_labelable");
  });

  it("the review queue: edited, executed runs, unlabelled first, then the largest money difference; supervisors only", async () => {
    expect((await GET_REVIEW(apiRequest("GET", "/api/outcomes/review", { cookie: operatorCookie }), routeCtx({}))).status).toBe(403);
    // a second edited, executed run with a smaller difference, unlabelled
    const task = await prisma.task.findUniqueOrThrow({ where: { id: "task_75004" } });
    const { run } = await submitRun(agent, task.id, { taskRevision: task.revision, steps: [{ id: "s1", tool: "add_ticket_note", args: { ticketId: "75004", note: "First note." } }], addition: true }, null, at(10));
    const v1 = toRunView(await loadRun(run.id), at(10));
    await submitEdit(senior, run.id, { baseVersion: 1, steps: v1.steps.map((s) => ({ id: s.id, tool: s.tool, args: { ...s.args, note: "Edited note." }, provenance: {}, author: { kind: "model" } })) }, at(11));
    await approveAllAs(run.id, "usr_supervisor");
    await execute(run.id, 12);
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const res = await GET_REVIEW(apiRequest("GET", `/api/outcomes/review?limit=1${cursor ? `&cursor=${cursor}` : ""}`, { cookie: supervisorCookie }), routeCtx({}));
      expect(res.status).toBe(200);
      const page = (await res.json()) as { items: { runId: string; label: unknown }[]; nextCursor: string | null };
      seen.push(...page.items.map((i) => i.runId));
      cursor = page.nextCursor;
    } while (cursor);
    expect(seen).toEqual([run.id, runId]); // the unlabelled one first, although its difference is smaller
    expect((await GET_REVIEW(apiRequest("GET", "/api/outcomes/review?cursor=garbage", { cookie: supervisorCookie }), routeCtx({}))).status).toBe(400);
  });
});

describe("the diff corpus carries the outcome and the label", () => {
  const corpus = async (query: string) => {
    const res = await GET_CORPUS(apiRequest("GET", `/api/audit/diffs.jsonl${query}`, { cookie: supervisorCookie }), routeCtx({}));
    const text = await res.text();
    return { status: res.status, lines: res.status === 200 ? text.trim().split("\n").filter(Boolean).map((l) => JSON.parse(l) as { runId: string; outcomeRecord: { signals: string[]; summary: string } | null; label: { label: string } | null }) : [] };
  };

  it("every line has outcomeRecord and label; ?label= and ?signal= filter in SQL; a bad filter is 400", async () => {
    const all = await corpus("");
    expect(all.lines.length).toBeGreaterThan(0);
    expect(all.lines.every((l) => "outcomeRecord" in l && "label" in l)).toBe(true);
    const mine = all.lines.find((l) => l.runId === runId)!;
    expect(mine.label).toMatchObject({ label: "same" });
    expect(mine.outcomeRecord?.signals).toEqual(expect.arrayContaining(["reopened", "over_compensation", "chargeback"]));
    // The corpus line carries the delivery counterfactual as well as the money.
    expect((mine.outcomeRecord as unknown as { deliveryDifference: unknown }).deliveryDifference).toEqual([expect.objectContaining({ shipmentId: "sh_5521", daysLater: 4 })]);
    expect(all.lines.every((l) => (l as unknown as { discarded: boolean }).discarded === false)).toBe(true);
    expect((await corpus("?label=same")).lines.map((l) => l.runId)).toEqual([runId]);
    expect((await corpus("?label=worse")).lines).toEqual([]);
    expect((await corpus("?signal=reopened")).lines.map((l) => l.runId)).toEqual([runId]);
    const unlabelled = (await corpus("?label=none")).lines.map((l) => l.runId);
    expect(unlabelled).not.toContain(runId);
    expect(unlabelled.length).toBe(all.lines.length - 1);
    expect((await corpus("?signal=exploded")).status).toBe(400);
  });
});

describe("insights: did the edits help?", () => {
  it("splits edited runs by label and by signal; over-compensation per tool, per operator and per day; supervisors only", async () => {
    const supervisor = (await loadViewer("usr_supervisor"))!;
    const data = await loadOutcomeInsights(supervisor);
    expect(data.edited).toBe(2);
    expect(data.byLabel).toEqual([
      { label: "better", runs: 0 },
      { label: "same", runs: 1 },
      { label: "worse", runs: 0 },
      { label: "unlabelled", runs: 1 },
    ]);
    expect(data.bySignal.find((s) => s.signal === "reopened")?.runs).toBe(1);
    expect(data.bySignal.find((s) => s.signal === "none")?.runs).toBe(1);
    expect(data.overCompensation.runs).toBe(1);
    expect(data.overCompensation.byTool).toEqual([{ tool: "issue_refund", runs: 1, excess: [{ minor: 148900, currency: "USD" }] }]);
    expect(data.overCompensation.byOperator).toEqual([{ editorId: "usr_senior", name: "Sam Senior", runs: 1, edited: 2 }]);
    expect(data.overCompensation.byDay).toEqual([{ day: executedAt.toISOString().slice(0, 10), runs: 1, edited: 2 }]);
    const operator = (await loadViewer("usr_operator"))!;
    await expect(loadOutcomeInsights(operator)).rejects.toMatchObject({ code: "forbidden" });
  });
});
