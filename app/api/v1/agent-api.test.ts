/**
 * Integration tests of the agent API (docs/api.md "Agent and executor API"): the exported
 * route handlers are called with real `Request` objects against this file's own SQLite database
 * (vitest.setup.ts), seeded with the demo desk. The demo agent authenticates with its demo key.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { digest } from "@/lib/plan/digest";
import { IRREVERSIBLE_EXPIRY_SECONDS, MAX_EXPIRY_SECONDS, MIN_EXPIRY_SECONDS } from "@/lib/plan/policy";
import { hashApiKey } from "@/lib/server/auth/api-keys";
import { auth } from "@/lib/server/auth/auth";
import { prisma } from "@/lib/server/db/db";
import { DEMO_AGENT_ID, DEMO_AGENT_KEY, DEMO_INTEGRATION_KEY, DEMO_PASSWORD } from "@/lib/server/demo/seed";
import { getViewer } from "@/lib/server/auth/session";
import { prepareTestDatabase, withRequiredReasons } from "@/testing/test-support";
import { VALIDATION_STAGES } from "@/lib/validation/types";
import { GET as getRun } from "./runs/[runId]/route";
import { GET as getTask } from "./tasks/[taskId]/route";
import { POST as reviseTask } from "./tasks/[taskId]/revisions/route";
import { POST as submitRun } from "./tasks/[taskId]/runs/route";
import { GET as listTasks } from "./tasks/route";

const BASE = "http://localhost:3999";
const OTHER_AGENT_KEY = "pd_second_agent_key_for_tests";
const REVOKED_KEY = "pd_revoked_agent_key_for_tests";

type Json = Record<string, unknown>;
interface CallOptions {
  body?: unknown;
  /** Raw body text (sent as is). */
  raw?: string;
  /** API key; `null` sends no Authorization header. Default: the demo key. */
  key?: string | null;
  headers?: Record<string, string>;
}

function request(method: "GET" | "POST", path: string, opts: CallOptions = {}): Request {
  const headers: Record<string, string> = { ...(opts.headers ?? {}) };
  const key = opts.key === undefined ? DEMO_AGENT_KEY : opts.key;
  if (key !== null) headers.authorization = `Bearer ${key}`;
  let body: string | undefined;
  if (opts.raw !== undefined) body = opts.raw;
  else if (opts.body !== undefined) body = JSON.stringify(opts.body);
  if (body !== undefined) headers["content-type"] = "application/json";
  return new Request(`${BASE}${path}`, { method, headers, body });
}
const params = <P extends Record<string, string>>(p: P) => ({ params: Promise.resolve(p) });

async function readBody(res: Response): Promise<Json> {
  expect(res.headers.get("content-type") ?? "").toContain("application/json");
  return (await res.json()) as Json;
}

/** Asserts a typed refusal: the status, and a body of exactly `{error: {code, message, ...}}`. */
async function expectError(res: Response, status: number, code: string): Promise<Json> {
  const body = await readBody(res);
  expect(res.status).toBe(status);
  expect(Object.keys(body)).toEqual(["error"]);
  const error = body.error as Json;
  expect(error.code).toBe(code);
  expect(typeof error.message).toBe("string");
  expect((error.message as string).length).toBeGreaterThan(0);
  expect(JSON.stringify(body)).not.toMatch(/\bat .+:\d+:\d+|node_modules|PrismaClient/); // no stack trace
  return error;
}

/** Irreversible steps get the fields the seeded gate policy requires (tests/test-support `withRequiredReasons`), unless a test is about them. */
const complete = (body: unknown) =>
  body && typeof body === "object" && Array.isArray((body as { steps?: unknown }).steps) ? { ...body, steps: withRequiredReasons((body as { steps: unknown[] }).steps) } : body;
const post = (taskId: string, body: unknown, opts: Omit<CallOptions, "body"> = {}) =>
  submitRun(request("POST", `/api/v1/tasks/${taskId}/runs`, { ...opts, body: complete(body) }), params({ taskId }));
/** Task revisions come from the ticketing integration, with its own key. */
const revise = (taskId: string, body: unknown, opts: Omit<CallOptions, "body"> = {}) =>
  reviseTask(request("POST", `/api/v1/tasks/${taskId}/revisions`, { key: DEMO_INTEGRATION_KEY, ...opts, body }), params({ taskId }));
const fetchRun = (runId: string, opts: CallOptions = {}) => getRun(request("GET", `/api/v1/runs/${runId}`, opts), params({ runId }));
const fetchTask = (taskId: string, opts: CallOptions = {}) => getTask(request("GET", `/api/v1/tasks/${taskId}`, opts), params({ taskId }));
const runCount = () => prisma.run.count();

/** Ticket 75016 (Fjordline Seafood): invoice in_74403 is theirs, open 1,200.00 USD. */
const FJORD_TASK = "task_75016";
function fjordPlan() {
  return [
    { id: "s_note", tool: "add_ticket_note", args: { ticketId: "75016", note: "Customer thanked us; goodwill refund proposed." }, provenance: { note: { kind: "model" } } },
    {
      id: "s_refund",
      tool: "issue_refund",
      args: { invoiceId: "in_74403", amount: { minor: 5000, currency: "USD" }, reason: "Goodwill after a delayed delivery" },
      provenance: { invoiceId: { kind: "source", recordType: "invoice", recordId: "in_74403" }, amount: { kind: "model" } },
    },
    { id: "s_reply", tool: "send_reply", args: { ticketId: "75016", body: "Thank you for your kind words. We have passed them on to the team." } },
  ];
}
/** A two-step plan with nothing irreversible (note: auto; reply: approval). */
function plainPlan(ticketId: string) {
  return [
    { id: "s_note", tool: "add_ticket_note", args: { ticketId, note: "Looked into this; replying to the customer." } },
    { id: "s_reply", tool: "send_reply", args: { ticketId, body: "Thanks for getting in touch; we are looking into it." } },
  ];
}
/** The second agent's waiting runs reach their deadline, so they no longer hold the task (one live plan per task). */
async function retireSecondAgentsRuns(): Promise<void> {
  await prisma.run.updateMany({ where: { agentId: "agent_second" }, data: { expiresAt: new Date(Date.now() - 1000) } });
}
async function revisionOf(taskId: string): Promise<number> {
  return (await prisma.task.findUniqueOrThrow({ where: { id: taskId } })).revision;
}

beforeAll(async () => {
  await prepareTestDatabase();
  await prisma.agent.create({ data: { id: "agent_second", name: "Second agent", allowedTools: ["add_ticket_note"] } });
  await prisma.apiKey.create({ data: { id: "key_second", agentId: "agent_second", hash: hashApiKey(OTHER_AGENT_KEY), prefix: OTHER_AGENT_KEY.slice(0, 8) } });
  await prisma.apiKey.create({
    data: { id: "key_revoked", agentId: DEMO_AGENT_ID, hash: hashApiKey(REVOKED_KEY), prefix: REVOKED_KEY.slice(0, 8), revokedAt: new Date() },
  });
});

describe("GET /api/v1/tasks?ticketId=…", () => {
  it("lists the task of every seeded run of the agent's desk under the run's ticket, and only that ticket's tasks", async () => {
    const runs = await prisma.run.findMany({ where: { desk: "freight" }, include: { task: true } });
    expect(runs.length).toBeGreaterThanOrEqual(10);
    for (const run of runs) {
      const res = await listTasks(request("GET", `/api/v1/tasks?ticketId=${encodeURIComponent(run.task.ticketId)}`));
      const body = await readBody(res);
      expect(res.status).toBe(200);
      expect(Object.keys(body)).toEqual(["tasks"]);
      const tasks = body.tasks as Json[];
      expect(tasks.map((t) => t.id)).toContain(run.taskId);
      for (const t of tasks) {
        expect(t.ticketId).toBe(run.task.ticketId);
        expect(t).toMatchObject({ id: expect.any(String), accountId: expect.any(String), revision: expect.any(Number), body: expect.any(String) });
      }
    }
  });

  it("names the ticket's account on each task", async () => {
    const body = await readBody(await listTasks(request("GET", "/api/v1/tasks?ticketId=74991")));
    expect(body.tasks).toEqual([expect.objectContaining({ id: "task_74991", ticketId: "74991", accountId: "acc_nordkapp", revision: 1 })]);
  });

  it("answers an empty list for an unknown ticket", async () => {
    const res = await listTasks(request("GET", "/api/v1/tasks?ticketId=00000"));
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ tasks: [] });
  });
});

describe("GET /api/v1/tasks/{taskId}", () => {
  it("returns {task: {id, ticketId, accountId, revision, body}}", async () => {
    const res = await fetchTask("task_74991");
    const body = await readBody(res);
    expect(res.status).toBe(200);
    expect(Object.keys(body)).toEqual(["task"]);
    expect(body.task).toMatchObject({ id: "task_74991", ticketId: "74991", accountId: "acc_nordkapp", revision: 1 });
    expect((body.task as Json).body).toContain("sh_5521");
  });

  it("answers 404 not_found with a typed body for an unknown task", async () => {
    const error = await expectError(await fetchTask("task_nope"), 404, "not_found");
    expect(error.message).toContain("task_nope");
  });
});

describe("POST /api/v1/tasks/{taskId}/runs: a valid plan", () => {
  it("answers 201 with the run: ids, status, version, bound revision, expiry and typed steps", async () => {
    const before = await runCount();
    const steps = fjordPlan();
    const res = await post(FJORD_TASK, { taskRevision: 1, steps });
    const body = await readBody(res);
    expect(res.status).toBe(201);
    expect(Object.keys(body)).toEqual(["run"]);
    const run = body.run as Json;
    expect(run).toMatchObject({
      id: expect.stringMatching(/^run_/),
      taskId: FJORD_TASK,
      agentId: DEMO_AGENT_ID,
      status: "pending_review",
      planVersion: 1,
      boundTaskRevision: 1,
    });
    expect(new Date(run.expiresAt as string).toISOString()).toBe(run.expiresAt);
    const got = run.steps as Json[];
    expect(got.map((s) => s.id)).toEqual(["s_note", "s_refund", "s_reply"]);
    got.forEach((s, i) => {
      expect(s.tool).toBe(steps[i].tool);
      expect(s.args).toEqual(steps[i].args);
      expect(s.digest).toMatch(/^[0-9a-f]{64}$/);
      expect(s.digest).toBe(digest({ tool: steps[i].tool, args: steps[i].args }));
      expect(s.author).toEqual({ kind: "model" });
      expect(["approval_required", "auto"]).toContain(s.gate);
    });
    expect(got.map((s) => s.gate)).toEqual(["auto", "approval_required", "approval_required"]);
    // The auto-gated note carries the policy's approval; gated steps wait for a person.
    expect(got[0].approval).toMatchObject({ id: expect.any(String), state: "active", approverId: null });
    expect(got[1].approval).toBeNull();
    expect(got[2].approval).toBeNull();
    expect(await runCount()).toBe(before + 1);

    // The same run, as GET /api/v1/runs/{id} shows it to its agent.
    const again = await fetchRun(run.id as string);
    expect(again.status).toBe(200);
    expect(((await again.json()) as Json).run).toEqual(run);
  });

  it("gives steps without an id a generated one, and never takes a person's authorship from an agent", async () => {
    const [note, reply] = plainPlan("75016");
    const res = await post(FJORD_TASK, {
      taskRevision: 1,
      steps: [{ tool: note.tool, args: note.args }, { ...reply, author: { kind: "user", userId: "usr_senior" } }],
    });
    expect(res.status).toBe(201);
    const steps = ((await res.json()) as { run: { steps: Json[] } }).run.steps;
    expect(steps[0].id).toMatch(/^st_[A-Za-z0-9_-]+$/);
    expect(steps[1].id).toBe("s_reply");
    expect(steps.map((s) => s.author)).toEqual([{ kind: "model" }, { kind: "model" }]);
  });
});

describe("POST /api/v1/tasks/{taskId}/runs: refusals", () => {
  it("answers 422 validation_failed with EVERY issue of a plan with several independent errors, and stores nothing", async () => {
    const before = await runCount();
    const versionsBefore = await prisma.planVersion.count();
    const plan = [
      // 1: a misspelt tool (shape: unknown_tool)
      { id: "s1", tool: "issue_refnud", args: { invoiceId: "in_74403", amount: { minor: 100, currency: "USD" }, reason: "x" } },
      // 2: an amount sent as a string (shape: invalid_type)
      { id: "s2", tool: "issue_refund", args: { invoiceId: "in_74403", amount: { minor: "100", currency: "USD" }, reason: "Refund" } },
      // 3: a field the tool does not define (shape: unknown_field)
      { id: "s3", tool: "add_ticket_note", args: { ticketId: "75016", note: "Note", pinned: true } },
      // 4: more than the invoice's open balance (argument bounds)
      { id: "s4", tool: "issue_refund", args: { invoiceId: "in_74403", amount: { minor: 999999, currency: "USD" }, reason: "Refund" } },
      // 5: a paid invoice (argument bounds)
      { id: "s5", tool: "waive_fee", args: { invoiceId: "in_74402", feeCode: "LATE_FEE", amount: { minor: 100, currency: "USD" } } },
      // 6: an invoice that does not exist (argument bounds)
      { id: "s6", tool: "issue_refund", args: { invoiceId: "in_99999", amount: { minor: 100, currency: "USD" }, reason: "Refund" } },
      // 7: the id of step 4 again (structure)
      { id: "s4", tool: "add_ticket_note", args: { ticketId: "75016", note: "Duplicate id" } },
      // 8: a step id with spaces (shape: invalid_format)
      { id: "step eight", tool: "add_ticket_note", args: { ticketId: "75016", note: "Bad id" } },
    ];
    const error = await expectError(await post(FJORD_TASK, { taskRevision: 1, steps: plan }), 422, "validation_failed");
    const issues = error.issues as Json[];
    expect(Array.isArray(issues)).toBe(true);
    for (const i of issues) {
      expect(VALIDATION_STAGES).toContain(i.stage);
      expect(typeof i.code).toBe("string");
      expect(["error", "warning"]).toContain(i.severity);
      expect(typeof i.message).toBe("string");
      if (i.stepId !== undefined) expect(typeof i.stepId).toBe("string");
      if (i.path !== undefined) expect(typeof i.path).toBe("string");
    }
    const found = issues.map((i) => [i.code, i.stepId ?? null, i.path ?? null]);
    expect(found).toEqual(
      expect.arrayContaining([
        ["unknown_tool", "s1", "steps.0.tool"],
        ["invalid_type", "s2", "steps.1.args.amount.minor"],
        ["unknown_field", "s3", expect.stringContaining("steps.2.args")],
        ["amount_exceeds_balance", "s4", expect.stringContaining("steps.3.args.amount")],
        ["invoice_not_open", "s5", expect.stringContaining("steps.4.args")],
        ["unknown_id", "s6", "steps.5.args.invoiceId"],
        ["duplicate_step_id", "s4", "steps.6.id"],
        ["invalid_format", null, "steps.7.id"],
      ]),
    );
    const byStage = new Set(issues.map((i) => i.stage));
    expect([...byStage]).toEqual(expect.arrayContaining(["shape", "structure", "argument_bounds"]));
    expect(await runCount()).toBe(before);
    expect(await prisma.planVersion.count()).toBe(versionsBefore);
  });

  it("refuses a tool outside the calling agent's allowlist (422, allowlist stage)", async () => {
    const before = await runCount();
    const [note, reply] = plainPlan("75016");
    const error = await expectError(await post(FJORD_TASK, { taskRevision: 1, steps: [note, reply], addition: true }, { key: OTHER_AGENT_KEY }), 422, "validation_failed");
    // (the reply also gets the missing_rationale completeness warning; only the allowlist refuses)
    expect((error.issues as { severity: string }[]).filter((i) => i.severity === "error")).toEqual([expect.objectContaining({ stage: "allowlist", code: "tool_not_allowed", stepId: "s_reply", severity: "error" })]);
    expect(await runCount()).toBe(before);
    await retireSecondAgentsRuns();
  });

  it("refuses an empty plan (422 empty_plan)", async () => {
    const error = await expectError(await post(FJORD_TASK, { taskRevision: 1, steps: [] }), 422, "validation_failed");
    expect(error.issues).toEqual([expect.objectContaining({ stage: "structure", code: "empty_plan" })]);
  });

  it("answers 409 stale_task {boundRevision, liveRevision} once the task has a newer revision", async () => {
    const taskId = "task_75017";
    const bound = await revisionOf(taskId);
    const res = await revise(taskId, { comment: "Customer now also wants the packing list confirmed." });
    expect(res.status).toBe(201);
    const live = (((await res.json()) as Json).task as Json).revision;
    expect(live).toBe(bound + 1);

    const before = await runCount();
    const error = await expectError(await post(taskId, { taskRevision: bound, steps: plainPlan("75017") }), 409, "stale_task");
    expect(error).toMatchObject({ boundRevision: bound, liveRevision: bound + 1 });
    expect(await runCount()).toBe(before);

    // A plan made for the live revision is accepted and binds it.
    const ok = await post(taskId, { taskRevision: bound + 1, steps: plainPlan("75017") });
    expect(ok.status).toBe(201);
    expect(((await ok.json()) as { run: Json }).run.boundTaskRevision).toBe(bound + 1);
  });

  it("answers 404 not_found for an unknown task", async () => {
    await expectError(await post("task_nope", { taskRevision: 1, steps: plainPlan("75016") }), 404, "not_found");
  });

  it("answers 400 invalid_json for a body that is not JSON", async () => {
    const before = await runCount();
    for (const raw of ["{not json", '{"taskRevision": 1, "steps": [', "\u0000", "[1,]"]) {
      const res = await submitRun(request("POST", `/api/v1/tasks/${FJORD_TASK}/runs`, { raw }), params({ taskId: FJORD_TASK }));
      await expectError(res, 400, "invalid_json");
    }
    expect(await runCount()).toBe(before);
  });

  it("answers 400 bad_request with issues for a body of the wrong shape", async () => {
    const before = await runCount();
    const bodies: unknown[] = [
      {},
      [],
      "a plan",
      null,
      { taskRevision: "1", steps: plainPlan("75016") },
      { taskRevision: 1, steps: { s1: plainPlan("75016")[0] } },
      { taskRevision: 0, steps: plainPlan("75016") },
      { taskRevision: 1.5, steps: plainPlan("75016") },
      { taskRevision: 1, steps: plainPlan("75016"), expiresInSeconds: -5 },
      { taskRevision: 1, steps: plainPlan("75016"), expiresInSeconds: "3600" },
      { taskRevision: 1, steps: plainPlan("75016"), plan: "extra field" },
    ];
    for (const body of bodies) {
      const error = await expectError(await post(FJORD_TASK, body), 400, "bad_request");
      expect(Array.isArray(error.issues)).toBe(true);
      expect((error.issues as unknown[]).length).toBeGreaterThan(0);
    }
    expect(await runCount()).toBe(before);
  });

  it("answers 400 bad_request for an Idempotency-Key outside 1–200 visible ASCII characters", async () => {
    for (const key of ["has space", "x".repeat(201)]) {
      await expectError(await post(FJORD_TASK, { taskRevision: 1, steps: plainPlan("75016") }, { headers: { "idempotency-key": key } }), 400, "bad_request");
    }
  });
});

describe("Idempotency-Key on POST /api/v1/tasks/{taskId}/runs", () => {
  it("returns the same run for a retried submission and stores one run", async () => {
    const before = await runCount();
    const send = () => post(FJORD_TASK, { taskRevision: 1, steps: fjordPlan() }, { headers: { "idempotency-key": "retry-key-1" } });
    const first = await send();
    const second = await send();
    expect(first.status).toBe(201);
    expect(second.status).toBe(201);
    expect(second.headers.get("idempotent-replayed")).toBe("true");
    const a = ((await first.json()) as { run: Json }).run;
    const b = ((await second.json()) as { run: Json }).run;
    expect(b.id).toBe(a.id);
    expect(b).toEqual(a);
    expect(await runCount()).toBe(before + 1);
    expect(await prisma.run.count({ where: { idempotencyKey: "retry-key-1" } })).toBe(1);
  });

  it("creates exactly one run when 10 identical submissions race in parallel", async () => {
    const before = await runCount();
    const responses = await Promise.all(
      Array.from({ length: 10 }, () => post(FJORD_TASK, { taskRevision: 1, steps: fjordPlan() }, { headers: { "idempotency-key": "race-key-1" } })),
    );
    expect(responses.map((r) => r.status)).toEqual(Array(10).fill(201));
    const ids = new Set(await Promise.all(responses.map(async (r) => ((await r.json()) as { run: Json }).run.id)));
    expect(ids.size).toBe(1);
    expect(await runCount()).toBe(before + 1);
    expect(await prisma.run.count({ where: { idempotencyKey: "race-key-1" } })).toBe(1);
    const run = await prisma.run.findFirstOrThrow({ where: { idempotencyKey: "race-key-1" }, include: { planVersions: true } });
    expect(run.planVersions).toHaveLength(1);
    expect(await prisma.auditEvent.count({ where: { runId: run.id, type: "submitted" } })).toBe(1);
  });

  it("scopes keys per agent: another agent's identical key makes its own run", async () => {
    const note = plainPlan("75016")[0];
    const mine = await post(FJORD_TASK, { taskRevision: 1, steps: [note] }, { headers: { "idempotency-key": "shared-key" } });
    const theirs = await post(FJORD_TASK, { taskRevision: 1, steps: [note], addition: true }, { key: OTHER_AGENT_KEY, headers: { "idempotency-key": "shared-key" } });
    expect(mine.status).toBe(201);
    expect(theirs.status).toBe(201);
    const a = ((await mine.json()) as { run: Json }).run;
    const b = ((await theirs.json()) as { run: Json }).run;
    expect(a.id).not.toBe(b.id);
    expect(b.agentId).toBe("agent_second");
    await retireSecondAgentsRuns();
  });
});

describe("expiresInSeconds is capped by policy (lib/plan/policy.ts)", () => {
  const lifetime = (run: Json) => (Date.parse(run.expiresAt as string) - Date.parse(run.createdAt as string)) / 1000;

  it("caps a run without irreversible steps at MAX_EXPIRY_SECONDS", async () => {
    const res = await post(FJORD_TASK, { taskRevision: 1, steps: plainPlan("75016"), expiresInSeconds: 10 * 365 * 24 * 3600 });
    expect(res.status).toBe(201);
    expect(lifetime(((await res.json()) as { run: Json }).run)).toBe(MAX_EXPIRY_SECONDS);
  });

  it("caps a run with an irreversible step at IRREVERSIBLE_EXPIRY_SECONDS", async () => {
    const res = await post(FJORD_TASK, { taskRevision: 1, steps: fjordPlan(), expiresInSeconds: MAX_EXPIRY_SECONDS });
    expect(res.status).toBe(201);
    expect(lifetime(((await res.json()) as { run: Json }).run)).toBe(IRREVERSIBLE_EXPIRY_SECONDS);
  });

  it("raises a too-short request to MIN_EXPIRY_SECONDS and honours one within the bounds", async () => {
    const short = await post(FJORD_TASK, { taskRevision: 1, steps: plainPlan("75016"), expiresInSeconds: 1 });
    expect(lifetime(((await short.json()) as { run: Json }).run)).toBe(MIN_EXPIRY_SECONDS);
    const hour = await post(FJORD_TASK, { taskRevision: 1, steps: plainPlan("75016"), expiresInSeconds: 3600 });
    expect(lifetime(((await hour.json()) as { run: Json }).run)).toBe(3600);
  });
});

describe("GET /api/v1/runs/{runId}", () => {
  it("shows an agent its own run and answers 404 for another agent's run (either way round)", async () => {
    const note = plainPlan("75016")[0];
    const theirsRes = await post(FJORD_TASK, { taskRevision: 1, steps: [note], addition: true }, { key: OTHER_AGENT_KEY });
    expect(theirsRes.status).toBe(201);
    const theirs = ((await theirsRes.json()) as { run: Json }).run;
    const mineRes = await post(FJORD_TASK, { taskRevision: 1, steps: [note], addition: true });
    const mine = ((await mineRes.json()) as { run: Json }).run;

    const own = await fetchRun(theirs.id as string, { key: OTHER_AGENT_KEY });
    expect(own.status).toBe(200);
    expect(((await own.json()) as { run: Json }).run).toMatchObject({ id: theirs.id, agentId: "agent_second" });

    const error = await expectError(await fetchRun(theirs.id as string), 404, "not_found");
    expect(JSON.stringify(error)).not.toContain("agent_second");
    await expectError(await fetchRun(mine.id as string, { key: OTHER_AGENT_KEY }), 404, "not_found");
    await retireSecondAgentsRuns();
  });

  it("answers 404 for a run that does not exist", async () => {
    await expectError(await fetchRun("run_does_not_exist"), 404, "not_found");
  });

  it("shows a seeded run whose deadline passed as expired", async () => {
    const seeded = await prisma.run.findFirstOrThrow({ where: { idempotencyKey: "seed:ref-74991" } });
    const res = await fetchRun(seeded.id);
    expect(res.status).toBe(200);
    const run = ((await res.json()) as { run: Json }).run;
    expect(run).toMatchObject({ id: seeded.id, taskId: "task_74991", status: "expired" });
    expect((run.steps as Json[]).map((s) => s.id)).toEqual(["st_note", "st_resched", "st_reply"]);
  });
});

describe("authentication of /api/v1", () => {
  const endpoints: Array<[string, (o: CallOptions) => Promise<Response>]> = [
    ["GET /tasks", (o) => listTasks(request("GET", "/api/v1/tasks?ticketId=74991", o))],
    ["GET /tasks/{id}", (o) => fetchTask("task_74991", o)],
    ["POST /tasks/{id}/runs", (o) => post(FJORD_TASK, { taskRevision: 1, steps: plainPlan("75016") }, o)],
    ["POST /tasks/{id}/revisions", (o) => revise("task_75020", { comment: "should never land" }, o)],
    ["GET /runs/{id}", (o) => fetchRun("run_whatever", o)],
  ];

  it.each(endpoints)("%s: 401 unauthorized with a JSON body for a missing, malformed, unknown or revoked key", async (_name, call) => {
    const before = await runCount();
    const revBefore = await revisionOf("task_75020");
    const variants: CallOptions[] = [
      { key: null },
      { key: "pd_not_a_real_key" },
      { key: REVOKED_KEY },
      { key: null, headers: { authorization: `Basic ${Buffer.from("agent:pd_demo_agent_key").toString("base64")}` } },
      { key: null, headers: { authorization: "Bearer" } },
      { key: null, headers: { authorization: DEMO_AGENT_KEY } },
    ];
    for (const v of variants) await expectError(await call(v), 401, "unauthorized");
    expect(await runCount()).toBe(before);
    expect(await revisionOf("task_75020")).toBe(revBefore);
  });

  it("refuses a request carrying only a valid operator session cookie (401)", async () => {
    const signIn = await auth.api.signInEmail({
      body: { email: "supervisor@plandesk.test", password: DEMO_PASSWORD },
      headers: new Headers({ origin: BASE }),
      asResponse: true,
    });
    expect(signIn.status).toBe(200);
    const cookie = signIn.headers
      .getSetCookie()
      .map((c) => c.split(";")[0])
      .join("; ");
    expect(cookie).toContain("session_token");
    // The cookie is a live session: the operator API would accept it.
    expect(await getViewer(new Headers({ cookie }))).toMatchObject({ email: "supervisor@plandesk.test" });

    const before = await runCount();
    for (const [, call] of endpoints) {
      await expectError(await call({ key: null, headers: { cookie, origin: BASE } }), 401, "unauthorized");
    }
    expect(await runCount()).toBe(before);
  });
});

describe("POST /api/v1/tasks/{taskId}/revisions", () => {
  it("bumps the revision by exactly one per call and answers 201 {task}", async () => {
    const taskId = "task_75018";
    const start = await revisionOf(taskId);
    for (let n = 1; n <= 3; n++) {
      const res = await revise(taskId, { comment: `Update number ${n}` });
      const body = await readBody(res);
      expect(res.status).toBe(201);
      expect(Object.keys(body)).toEqual(["task"]);
      expect(body.task).toMatchObject({ id: taskId, ticketId: "75018", revision: start + n });
      expect((body.task as Json).body).toContain(`Update (rev ${start + n}): Update number ${n}`);
    }
    const res = await revise(taskId, { body: "New contact for Hamburg: Jonas Weber." });
    expect((((await res.json()) as Json).task as Json)).toMatchObject({ revision: start + 4, body: "New contact for Hamburg: Jonas Weber." });
  });

  it("gives 10 parallel revisions 10 distinct numbers, ending at initial + 10", async () => {
    const taskId = "task_75019";
    const start = await revisionOf(taskId);
    const responses = await Promise.all(Array.from({ length: 10 }, (_, i) => revise(taskId, { comment: `parallel ${i}` })));
    expect(responses.map((r) => r.status)).toEqual(Array(10).fill(201));
    const revisions = await Promise.all(responses.map(async (r) => (((await r.json()) as Json).task as Json).revision as number));
    expect(new Set(revisions).size).toBe(10);
    expect([...revisions].sort((a, b) => a - b)).toEqual(Array.from({ length: 10 }, (_, i) => start + i + 1));
    expect(await revisionOf(taskId)).toBe(start + 10);
    const history = await prisma.taskRevision.findMany({ where: { taskId }, orderBy: { revision: "asc" } });
    expect(history.map((h) => h.revision)).toEqual(Array.from({ length: 11 }, (_, i) => start + i));
    // Every parallel comment landed in the body exactly once.
    const finalBody = (await prisma.task.findUniqueOrThrow({ where: { id: taskId } })).body;
    for (let i = 0; i < 10; i++) expect(finalBody.split(`: parallel ${i}`).length).toBe(2);
  });

  it("refuses an agent key (403 forbidden, audited): an agent may not rewrite the task its approvals are bound to", async () => {
    const taskId = "task_75018";
    const start = await revisionOf(taskId);
    const before = await prisma.auditEvent.count({ where: { type: "denied" } });
    await expectError(await revise(taskId, { comment: "the agent tries" }, { key: DEMO_AGENT_KEY }), 403, "forbidden");
    expect(await revisionOf(taskId)).toBe(start);
    const denied = await prisma.auditEvent.findMany({ where: { type: "denied" }, orderBy: { seq: "desc" }, take: 1 });
    expect(await prisma.auditEvent.count({ where: { type: "denied" } })).toBe(before + 1);
    expect({ kind: denied[0].actorKind, id: denied[0].actorId }).toEqual({ kind: "agent", id: DEMO_AGENT_ID });
  });

  it("refuses an empty or malformed revision (400) and an unknown task (404)", async () => {
    const taskId = "task_75018";
    const start = await revisionOf(taskId);
    await expectError(await revise(taskId, {}), 400, "bad_request");
    await expectError(await revise(taskId, { comment: "   " }), 400, "bad_request");
    await expectError(await revise(taskId, { comment: "ok", revision: 99 }), 400, "bad_request");
    await expectError(
      await reviseTask(request("POST", `/api/v1/tasks/${taskId}/revisions`, { key: DEMO_INTEGRATION_KEY, raw: "{" }), params({ taskId })),
      400,
      "invalid_json",
    );
    await expectError(await revise("task_nope", { comment: "anything" }), 404, "not_found");
    expect(await revisionOf(taskId)).toBe(start);
  });
});

describe("request size", () => {
  it("refuses a body over 1 MiB with 413 payload_too_large before parsing it", async () => {
    const { POST } = await import("./tasks/[taskId]/runs/route");
    const big = JSON.stringify({ taskRevision: 1, steps: [{ tool: "add_ticket_note", args: { ticketId: "74991", note: "x".repeat(1_100_000) } }] });
    const res = await POST(
      new Request("http://localhost:3999/api/v1/tasks/task_74991/runs", {
        method: "POST",
        headers: { authorization: "Bearer pd_demo_agent_key", "content-type": "application/json" },
        body: big,
      }),
      { params: Promise.resolve({ taskId: "task_74991" }) },
    );
    expect(res.status).toBe(413);
    expect((await res.json()).error.code).toBe("payload_too_large");
  });
});
