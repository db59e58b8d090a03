/**
 * Route-level tests of claim → write → report (docs/api.md): the exported handlers are
 * called with real `Request` objects (Bearer pd_demo_agent_key, or a supervisor's session for
 * reconciliation) against this file's own SQLite database. Checks status codes and the exact
 * error body shape `{error: {code, message, ...details}}`.
 */
import { nanoid } from "nanoid";
import { beforeAll, describe, expect, it } from "vitest";
import { digest } from "@/lib/plan/digest";
import { auth } from "@/lib/server/auth/auth";
import { prisma } from "@/lib/server/db/db";
import { DEMO_AGENT_KEY, DEMO_INTEGRATION_KEY, DEMO_PASSWORD } from "@/lib/server/demo/seed";
import { approveAllAs, prepareTestDatabase, withRequiredReasons } from "@/testing/test-support";
import { POST as reconcileRoute } from "../runs/[runId]/steps/[stepId]/reconcile/route";
import { POST as effectRoute } from "./demo/effects/route";
import { GET as getRunRoute } from "./runs/[runId]/route";
import { POST as claimRoute } from "./runs/[runId]/steps/[stepId]/claim/route";
import { POST as outcomeRoute } from "./runs/[runId]/steps/[stepId]/outcome/route";
import { POST as reviseRoute } from "./tasks/[taskId]/revisions/route";
import { POST as submitRoute } from "./tasks/[taskId]/runs/route";

const BASE = "http://localhost:3999";
type Json = Record<string, any>;

function request(path: string, opts: { body?: unknown; raw?: string; key?: string | null; headers?: Record<string, string>; method?: string } = {}): Request {
  const headers: Record<string, string> = { ...(opts.headers ?? {}) };
  const key = opts.key === undefined ? DEMO_AGENT_KEY : opts.key;
  if (key !== null) headers.authorization = `Bearer ${key}`;
  const body = opts.raw ?? (opts.body === undefined ? undefined : JSON.stringify(opts.body));
  if (body !== undefined) headers["content-type"] = "application/json";
  return new Request(`${BASE}${path}`, { method: opts.method ?? "POST", headers, body });
}
const params = <P extends Record<string, string>>(p: P) => ({ params: Promise.resolve(p) });

async function json(res: Response): Promise<Json> {
  expect(res.headers.get("content-type") ?? "").toContain("application/json");
  return (await res.json()) as Json;
}

/** Asserts a typed refusal: the status, and a body of exactly `{error: {code, message, ...}}`. */
async function expectError(res: Response, status: number, code: string): Promise<Json> {
  const body = await json(res);
  expect({ status: res.status, code: body.error?.code }).toEqual({ status, code });
  expect(Object.keys(body)).toEqual(["error"]);
  expect(typeof body.error.message).toBe("string");
  expect(body.error.message.length).toBeGreaterThan(0);
  expect(JSON.stringify(body)).not.toMatch(/\\n\s+at |\bat [\w.<>]+ \(|\.[jt]s:\d+:\d+|node_modules|PrismaClient/); // no stack trace
  return body.error;
}

const claim = (runId: string, stepId: string, body: unknown, opts: { key?: string | null; idem?: string | null; headers?: Record<string, string>; raw?: string } = {}) =>
  claimRoute(
    request(`/api/v1/runs/${runId}/steps/${stepId}/claim`, {
      body,
      raw: opts.raw,
      key: opts.key,
      headers: { ...(opts.idem === null ? {} : { "idempotency-key": opts.idem ?? nanoid() }), ...(opts.headers ?? {}) },
    }),
    params({ runId, stepId }),
  );
const outcome = (runId: string, stepId: string, body: unknown, key?: string | null) =>
  outcomeRoute(request(`/api/v1/runs/${runId}/steps/${stepId}/outcome`, { body, key }), params({ runId, stepId }));
const effect = (body: unknown) => effectRoute(request(`/api/v1/demo/effects`, { body }));
const getRun = async (runId: string) => (await json(await getRunRoute(request(`/api/v1/runs/${runId}`, { method: "GET" }), params({ runId })))).run;

async function submit(ticketId: string, steps: unknown[]): Promise<Json> {
  const task = await prisma.task.findUniqueOrThrow({ where: { id: `task_${ticketId}` } });
  const res = await submitRoute(
    request(`/api/v1/tasks/${task.id}/runs`, { body: { taskRevision: task.revision, steps: withRequiredReasons(steps) }, headers: { "idempotency-key": nanoid() } }),
    params({ taskId: task.id }),
  );
  const body = await json(res);
  expect(res.status).toBe(201);
  return body.run;
}
const notes = (ticketId: string) => [
  { id: "s1", tool: "add_ticket_note", args: { ticketId, note: "First note." } },
  { id: "s2", tool: "add_ticket_note", args: { ticketId, note: "Second note." } },
];
const bodyFor = (run: Json, stepId: string) => ({ digest: run.steps.find((s: Json) => s.id === stepId).digest, taskRevision: run.boundTaskRevision });

/** Approves every step of the run's current version (the approval code's shape) and marks it approved. */
const approveAll = (runId: string) => approveAllAs(runId, "usr_senior");

async function sessionCookie(email: string): Promise<string> {
  const res = await auth.api.signInEmail({ body: { email, password: DEMO_PASSWORD }, headers: new Headers({ origin: BASE }), asResponse: true });
  expect(res.status).toBe(200);
  return res.headers
    .getSetCookie()
    .map((c) => c.split(";")[0])
    .join("; ");
}

beforeAll(async () => {
  await prepareTestDatabase();
});

describe("POST /api/v1/runs/{runId}/steps/{stepId}/claim", () => {
  it("answers 200 {claim: {token, stepId, digest}}; the same key replays it; a second key gets 409 already_claimed", async () => {
    const run = await submit("75006", notes("75006"));
    expect(run.status).toBe("approved");
    const res = await claim(run.id, "s1", bodyFor(run, "s1"), { idem: "k1" });
    const body = await json(res);
    expect(res.status).toBe(200);
    expect(Object.keys(body)).toEqual(["claim"]);
    expect(body.claim).toMatchObject({ token: expect.stringMatching(/^[\w-]{32}$/), stepId: "s1", digest: bodyFor(run, "s1").digest });

    const replay = await claim(run.id, "s1", bodyFor(run, "s1"), { idem: "k1" });
    expect(replay.status).toBe(200);
    expect(replay.headers.get("idempotent-replayed")).toBe("true");
    expect((await json(replay)).claim).toEqual(body.claim);

    const err = await expectError(await claim(run.id, "s1", bodyFor(run, "s1"), { idem: "k2" }), 409, "already_claimed");
    expect(err).toMatchObject({ stepId: "s1", stepStatus: "claimed" });
    expect(JSON.stringify(err)).not.toContain(body.claim.token); // the token is never shown again to another caller

    expect((await getRun(run.id)).status).toBe("executing");
  });

  it("answers 409 digest_mismatch with the approved and the sent digest", async () => {
    const run = await submit("75007", notes("75007"));
    const wrong = digest({ tool: "add_ticket_note", args: { ticketId: "75007", note: "Other." } });
    const err = await expectError(await claim(run.id, "s1", { ...bodyFor(run, "s1"), digest: wrong }), 409, "digest_mismatch");
    expect(err).toMatchObject({ approvedDigest: bodyFor(run, "s1").digest, requestDigest: wrong, stepId: "s1" });
  });

  it("answers 409 run_not_approved for a run waiting for review, and approval_missing when an approval is gone", async () => {
    const run = await submit("75009", [...notes("75009"), { id: "s3", tool: "send_reply", args: { ticketId: "75009", body: "We are looking into the redelivery fee." } }]);
    expect(run.status).toBe("pending_review");
    const err = await expectError(await claim(run.id, "s1", bodyFor(run, "s1")), 409, "run_not_approved");
    expect(err.status).toBe("pending_review");
    await approveAll(run.id);
    await prisma.approval.updateMany({ where: { runId: run.id, stepId: "s3" }, data: { state: "invalidated" } });
    const missing = await expectError(await claim(run.id, "s3", bodyFor(run, "s3")), 409, "approval_missing");
    expect(missing).toMatchObject({ stepId: "s3", approvalState: "invalidated" });
  });

  it("answers 409 stopped_stale_task after the task was revised, naming revisions, executed steps and the blocked step", async () => {
    const run = await submit("75010", notes("75010"));
    const c1 = await json(await claim(run.id, "s1", bodyFor(run, "s1")));
    expect((await outcome(run.id, "s1", { token: c1.claim.token, status: "succeeded" })).status).toBe(200);
    const revised = await reviseRoute(request(`/api/v1/tasks/${run.taskId}/revisions`, { key: DEMO_INTEGRATION_KEY, body: { comment: "Customer changed the request." } }), params({ taskId: run.taskId }));
    expect(revised.status).toBe(201);
    const err = await expectError(await claim(run.id, "s2", bodyFor(run, "s2")), 409, "stopped_stale_task");
    expect(err).toMatchObject({ boundRevision: 1, liveRevision: 2, executedStepIds: ["s1"], blockedStepId: "s2" });
    const after = await getRun(run.id);
    expect(after.status).toBe("stopped");
    expect(after.stopReason).toMatchObject({ code: "stopped_stale_task", blockedStepId: "s2" });
  });

  it("answers 409 expired for a run past its deadline", async () => {
    const run = await submit("75012", notes("75012"));
    await prisma.run.update({ where: { id: run.id }, data: { expiresAt: new Date(Date.now() - 1000) } });
    const err = await expectError(await claim(run.id, "s1", bodyFor(run, "s1")), 409, "expired");
    expect(err.expiresAt).toEqual(expect.any(String));
    expect((await getRun(run.id)).status).toBe("expired");
  });

  it("answers 400 for a malformed body or key, 401 without an agent key or with a session, 404 for unknown runs and steps", async () => {
    const run = await submit("75013", notes("75013"));
    const good = bodyFor(run, "s1");
    await expectError(await claim(run.id, "s1", { taskRevision: 1 }), 400, "bad_request");
    await expectError(await claim(run.id, "s1", { ...good, digest: good.digest.toUpperCase() }), 400, "bad_request");
    await expectError(await claim(run.id, "s1", { ...good, extra: 1 }), 400, "bad_request");
    await expectError(await claim(run.id, "s1", undefined, { raw: "{not json" }), 400, "invalid_json");
    await expectError(await claim(run.id, "s1", good, { headers: { "idempotency-key": "has space" } }), 400, "bad_request");
    await expectError(await claim(run.id, "s1", good, { key: null }), 401, "unauthorized");
    await expectError(await claim(run.id, "s1", good, { key: "pd_wrong" }), 401, "unauthorized");
    const cookie = await sessionCookie("supervisor@plandesk.test");
    await expectError(await claim(run.id, "s1", good, { key: null, headers: { cookie } }), 401, "unauthorized");
    await expectError(await claim("run_nope", "s1", good), 404, "not_found");
    await expectError(await claim(run.id, "nope", good), 404, "not_found");
    expect(await prisma.stepExecution.count({ where: { runId: run.id } })).toBe(0);
  });
});

describe("POST /api/v1/runs/{runId}/steps/{stepId}/outcome", () => {
  it("answers 200 {step, run}; a repeat replays; a wrong token or a changed status is a typed 409", async () => {
    const run = await submit("75016", notes("75016"));
    const { claim: c1 } = await json(await claim(run.id, "s1", bodyFor(run, "s1")));
    await expectError(await outcome(run.id, "s1", { token: "nope", status: "succeeded" }), 409, "invalid_claim_token");
    await expectError(await outcome(run.id, "s1", { token: c1.token, status: "done" }), 400, "bad_request");
    const res = await outcome(run.id, "s1", { token: c1.token, status: "succeeded", detail: "note id 991" });
    const body = await json(res);
    expect(res.status).toBe(200);
    expect(body.step).toMatchObject({ runId: run.id, stepId: "s1", status: "succeeded", outcome: "succeeded", detail: "note id 991", reportedAt: expect.any(String) });
    expect(body.step.token).toBeUndefined();
    expect(body.run).toEqual({ id: run.id, status: "executing" });
    const again = await outcome(run.id, "s1", { token: c1.token, status: "succeeded" });
    expect(again.status).toBe(200);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    const err = await expectError(await outcome(run.id, "s1", { token: c1.token, status: "failed" }), 409, "outcome_already_reported");
    expect(err.reportedStatus).toBe("succeeded");
    const { claim: c2 } = await json(await claim(run.id, "s2", bodyFor(run, "s2")));
    const done = await json(await outcome(run.id, "s2", { token: c2.token, status: "succeeded" }));
    expect(done.run.status).toBe("completed");
    expect((await getRun(run.id)).steps.map((s: Json) => s.execution.status)).toEqual(["succeeded", "succeeded"]);
  });
});

describe("POST /api/runs/{runId}/steps/{stepId}/reconcile", () => {
  it("lets a supervisor resolve an unknown outcome (201); refuses operators (403), foreign origins (403) and agent keys (401)", async () => {
    const run = await submit("75018", notes("75018"));
    const { claim: c1 } = await json(await claim(run.id, "s1", bodyFor(run, "s1")));
    await outcome(run.id, "s1", { token: c1.token, status: "unknown", detail: "connection reset after write" });
    await expectError(await claim(run.id, "s1", bodyFor(run, "s1")), 409, "already_claimed");

    const call = (headers: Record<string, string>, body: unknown = { resolution: "succeeded", note: "Saw the note on the ticket." }) =>
      reconcileRoute(request(`/api/runs/${run.id}/steps/s1/reconcile`, { body, key: null, headers }), params({ runId: run.id, stepId: "s1" }));
    const supervisor = await sessionCookie("supervisor@plandesk.test");
    const operator = await sessionCookie("operator@plandesk.test");
    await expectError(await call({ cookie: operator, origin: BASE }), 403, "forbidden");
    await expectError(await call({ cookie: supervisor }), 403, "cross_origin");
    await expectError(await call({ cookie: supervisor, origin: "http://evil.test" }), 403, "cross_origin");
    await expectError(
      await reconcileRoute(request(`/api/runs/${run.id}/steps/s1/reconcile`, { body: { resolution: "succeeded", note: "x y z" }, headers: { origin: BASE } }), params({ runId: run.id, stepId: "s1" })),
      401,
      "unauthorized",
    );
    await expectError(await call({ cookie: supervisor, origin: BASE }, { resolution: "maybe", note: "hmm" }), 400, "bad_request");

    const res = await call({ cookie: supervisor, origin: BASE });
    const body = await json(res);
    expect(res.status).toBe(201);
    expect(body.step).toMatchObject({ stepId: "s1", status: "unknown", outcome: "succeeded", resolution: "succeeded", reconciledBy: "usr_supervisor" });
    expect(body.run).toEqual({ id: run.id, status: "executing" });
    expect((await call({ cookie: supervisor, origin: BASE })).status).toBe(200); // same resolution again: saved answer
    await expectError(await call({ cookie: supervisor, origin: BASE }, { resolution: "failed", note: "Changed my mind." }), 409, "nothing_to_reconcile");
    const s2 = bodyFor(run, "s2");
    await expectError(
      await reconcileRoute(request(`/api/runs/${run.id}/steps/s2/reconcile`, { body: { resolution: "failed", note: "never ran" }, key: null, headers: { cookie: supervisor, origin: BASE } }), params({ runId: run.id, stepId: "s2" })),
      409,
      "nothing_to_reconcile",
    );
    const { claim: c2 } = await json(await claim(run.id, "s2", s2));
    expect((await json(await outcome(run.id, "s2", { token: c2.token, status: "succeeded" }))).run.status).toBe("completed");
  });
});

describe("POST /api/v1/demo/effects (demo mode)", () => {
  it("writes an approved refund once: the invoice balance drops by the amount, a repeat is a replay", async () => {
    const before = await prisma.invoice.findUniqueOrThrow({ where: { desk_id: { desk: "freight", id: "in_74801" } } });
    const run = await submit("75018", [
      { id: "r", tool: "issue_refund", args: { invoiceId: "in_74801", amount: { minor: 2500, currency: "USD" }, reason: "Goodwill" } },
    ]);
    await approveAll(run.id);
    const { claim: c } = await json(await claim(run.id, "r", bodyFor(run, "r")));
    await expectError(await effect({ runId: run.id, stepId: "r", token: "wrong" }), 409, "invalid_claim_token");
    const res = await effect({ runId: run.id, stepId: "r", token: c.token });
    const body = await json(res);
    expect(res.status).toBe(200);
    expect(body.effect).toMatchObject({ tool: "issue_refund", record: { type: "invoice", id: "in_74801", before: { openMinor: before.openMinor }, after: { openMinor: before.openMinor - 2500 } } });
    const again = await effect({ runId: run.id, stepId: "r", token: c.token });
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    const after = await prisma.invoice.findUniqueOrThrow({ where: { desk_id: { desk: "freight", id: "in_74801" } } });
    expect(after.openMinor).toBe(before.openMinor - 2500);
    expect(after.version).toBe(before.version + 1);
    await outcome(run.id, "r", { token: c.token, status: "succeeded" });
    // After the report the saved effect is still returned as a replay; nothing is written again.
    expect((await effect({ runId: run.id, stepId: "r", token: c.token })).headers.get("idempotent-replayed")).toBe("true");
    expect((await prisma.invoice.findUniqueOrThrow({ where: { desk_id: { desk: "freight", id: "in_74801" } } })).openMinor).toBe(before.openMinor - 2500);
  });

  it("refuses a write the account data no longer allows (409 effect_failed) and writes nothing", async () => {
    const run = await submit("74996", [{ id: "w", tool: "waive_fee", args: { invoiceId: "in_74501", feeCode: "STORAGE", amount: { minor: 15000, currency: "USD" } } }]);
    await approveAll(run.id);
    const { claim: c } = await json(await claim(run.id, "w", bodyFor(run, "w")));
    const inv = await prisma.invoice.findUniqueOrThrow({ where: { desk_id: { desk: "freight", id: "in_74501" } } });
    await prisma.invoice.update({ where: { desk_id: { desk: "freight", id: "in_74501" } }, data: { fees: [{ code: "LATE_FEE", amount: { minor: 8900, currency: "USD" } }], version: { increment: 1 } } });
    const err = await expectError(await effect({ runId: run.id, stepId: "w", token: c.token }), 409, "effect_failed");
    expect(err.reason).toBe("fee_missing");
    const after = await prisma.invoice.findUniqueOrThrow({ where: { desk_id: { desk: "freight", id: "in_74501" } } });
    expect(after.openMinor).toBe(inv.openMinor);
  });
});
