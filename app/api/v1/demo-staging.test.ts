/**
 * Route-level tests of the built-in reference target's staged runs, as in
 * docs/design.md "Staged runs: all or nothing where the target allows it":
 * a three-write plan claimed and staged through
 * `POST /api/v1/demo/effects` with `stage: true`, then promoted in one step through
 * `POST /api/v1/demo/effects/promote` — or stopped before the promotion, which leaves the demo
 * account data untouched. Real `Request` objects, this file's own database.
 */
import { nanoid } from "nanoid";
import { beforeAll, describe, expect, it } from "vitest";
import { prisma } from "@/lib/server/db/db";
import { DEMO_AGENT_KEY, DEMO_INTEGRATION_KEY } from "@/lib/server/demo/seed";
import { discardUnpromotable } from "@/lib/server/demo/staged-effects";
import { approveAllAs, prepareTestDatabase, withRequiredReasons } from "@/testing/test-support";
import { POST as effectRoute } from "./demo/effects/route";
import { POST as promoteRoute } from "./demo/effects/promote/route";
import { GET as getRunRoute } from "./runs/[runId]/route";
import { POST as claimRoute } from "./runs/[runId]/steps/[stepId]/claim/route";
import { POST as reviseRoute } from "./tasks/[taskId]/revisions/route";
import { POST as submitRoute } from "./tasks/[taskId]/runs/route";

const BASE = "http://localhost:3999";
type Json = Record<string, any>;

function request(path: string, opts: { body?: unknown; key?: string; headers?: Record<string, string>; method?: string } = {}): Request {
  const headers: Record<string, string> = { authorization: `Bearer ${opts.key ?? DEMO_AGENT_KEY}`, ...(opts.headers ?? {}) };
  if (opts.body !== undefined) headers["content-type"] = "application/json";
  return new Request(`${BASE}${path}`, { method: opts.method ?? "POST", headers, body: opts.body === undefined ? undefined : JSON.stringify(opts.body) });
}
const params = <P extends Record<string, string>>(p: P) => ({ params: Promise.resolve(p) });
const json = async (res: Response): Promise<Json> => (await res.json()) as Json;

const effect = (body: unknown) => effectRoute(request(`/api/v1/demo/effects`, { body }));
const promote = (runId: string) => promoteRoute(request(`/api/v1/demo/effects/promote`, { body: { runId } }));
const getRun = async (runId: string) => (await json(await getRunRoute(request(`/api/v1/runs/${runId}`, { method: "GET" }), params({ runId })))).run;

/** Asserts a typed refusal `{error: {code, message, …}}` with `status`; returns the error. */
async function expectError(res: Response, status: number, code: string): Promise<Json> {
  const body = await json(res);
  expect({ status: res.status, code: body.error?.code }).toEqual({ status, code });
  return body.error;
}

/** The three writes on one account: a refund and a fee waiver on `invoiceId`, a credit on `accountId`. */
const threeWrites = (invoiceId: string, accountId: string, feeCode: string) => [
  { id: "refund", tool: "issue_refund", args: { invoiceId, amount: { minor: 2500, currency: "USD" }, reason: "Goodwill for the delay" }, dependsOn: [] },
  { id: "credit", tool: "apply_credit", args: { accountId, amount: { minor: 1000, currency: "USD" }, memo: "Service credit" }, dependsOn: [] },
  { id: "waive", tool: "waive_fee", args: { invoiceId, feeCode, amount: { minor: 4000, currency: "USD" } }, dependsOn: [] },
];

/** Submits the three-write plan for ticket `ticketId`, approves every step, claims and stages each. */
async function stagedRun(ticketId: string, invoiceId: string, accountId: string, feeCode: string): Promise<{ run: Json; tokens: Record<string, string>; handles: string[] }> {
  const task = await prisma.task.findUniqueOrThrow({ where: { id: `task_${ticketId}` } });
  const submitted = await submitRoute(
    request(`/api/v1/tasks/${task.id}/runs`, { body: { taskRevision: task.revision, steps: withRequiredReasons(threeWrites(invoiceId, accountId, feeCode)) }, headers: { "idempotency-key": nanoid() } }),
    params({ taskId: task.id }),
  );
  const sbody = await json(submitted);
  expect(submitted.status, JSON.stringify(sbody)).toBe(201);
  const run = sbody.run;
  await approveAllAs(run.id, "usr_senior");
  const tokens: Record<string, string> = {};
  const handles: string[] = [];
  for (const step of run.steps as Json[]) {
    const res = await claimRoute(
      request(`/api/v1/runs/${run.id}/steps/${step.id}/claim`, { body: { digest: step.digest, taskRevision: run.boundTaskRevision }, headers: { "idempotency-key": nanoid() } }),
      params({ runId: run.id, stepId: step.id }),
    );
    const claimed = await json(res);
    expect(res.status, JSON.stringify(claimed)).toBe(200);
    tokens[step.id] = claimed.claim.token;
    const staged = await effect({ runId: run.id, stepId: step.id, token: claimed.claim.token, stage: true });
    const body = await json(staged);
    expect(staged.status, JSON.stringify(body)).toBe(200);
    expect(body.staged).toMatchObject({ runId: run.id, stepId: step.id, tool: step.tool, status: "staged" });
    expect(body.staged.handle).toMatch(/^stg_/);
    handles.push(body.staged.handle);
  }
  return { run, tokens, handles };
}

const invoice = (id: string) => prisma.invoice.findUniqueOrThrow({ where: { desk_id: { desk: "freight", id } } });

beforeAll(async () => {
  await prepareTestDatabase();
});

describe("staged runs of the reference target (POST /api/v1/demo/effects {stage: true}, …/promote)", () => {
  it("a stop before the promotion (task revised) leaves the account data untouched: promote is refused typed, the staged writes are discarded", async () => {
    const before = await invoice("in_74501");
    const { run, tokens } = await stagedRun("74996", "in_74501", "acc_hanse", "LATE_FEE");
    // Staged, nothing applied yet: the invoice is as it was, the claims are open.
    expect(await invoice("in_74501")).toMatchObject({ openMinor: before.openMinor, version: before.version, fees: before.fees });
    // A staged claim is not written directly either.
    expect((await expectError(await effect({ runId: run.id, stepId: "refund", token: tokens.refund }), 409, "effect_failed")).reason).toBe("staged");

    const revised = await reviseRoute(request(`/api/v1/tasks/${run.taskId}/revisions`, { key: DEMO_INTEGRATION_KEY, body: { comment: "Customer changed the request." } }), params({ taskId: run.taskId }));
    expect(revised.status).toBe(201);

    const err = await expectError(await promote(run.id), 409, "claim_fenced");
    expect(err.reason).toMatch(/task_revised|run_stopped/);
    const after = await invoice("in_74501");
    expect(after).toMatchObject({ openMinor: before.openMinor, version: before.version, fees: before.fees, sourceVersion: before.sourceVersion });
    const rows = await prisma.stagedEffect.findMany({ where: { runId: run.id } });
    expect(rows.map((r) => r.status)).toEqual(["discarded", "discarded", "discarded"]);
    expect(rows.every((r) => r.detail?.startsWith("staged_not_promoted:"))).toBe(true);
    const execs = await prisma.stepExecution.findMany({ where: { runId: run.id } });
    expect(execs.map((e) => e.status)).toEqual(["failed", "failed", "failed"]);
    expect((await getRun(run.id)).status).toBe("stopped");
    // Nothing is left to promote.
    await expectError(await promote(run.id), 404, "not_found");
    expect((await invoice("in_74501")).openMinor).toBe(before.openMinor);
  });

  it("the sweep discards the staged writes of a run whose task was revised with nobody calling promote: nothing written, every claim reported failed", async () => {
    const before = await invoice("in_74901");
    const { run } = await stagedRun("75009", "in_74901", "acc_oak", "REDELIVERY");
    // Executing, every lease alive: the sweep leaves the run to its agent.
    expect(await discardUnpromotable(new Date())).not.toContain(run.id);
    expect((await prisma.stagedEffect.findMany({ where: { runId: run.id } })).map((r) => r.status)).toEqual(["staged", "staged", "staged"]);

    const revised = await reviseRoute(request(`/api/v1/tasks/${run.taskId}/revisions`, { key: DEMO_INTEGRATION_KEY, body: { comment: "Customer withdrew the dispute." } }), params({ taskId: run.taskId }));
    expect(revised.status).toBe(201);
    // The agent never calls promote; the sweep finds the run whose task moved on.
    expect(await discardUnpromotable(new Date())).toContain(run.id);
    const rows = await prisma.stagedEffect.findMany({ where: { runId: run.id } });
    expect(rows.map((r) => r.status)).toEqual(["discarded", "discarded", "discarded"]);
    expect(rows.every((r) => r.detail?.startsWith("staged_not_promoted: the task moved from revision"))).toBe(true);
    // The run stops for its stale task, as the promotion's fence would have stopped it, and every
    // claim is reported failed with the reason (flagged for a person, who sees nothing was written).
    const stopped = await getRun(run.id);
    expect(stopped.status).toBe("stopped");
    expect(stopped.stopReason).toMatchObject({ code: "stopped_stale_task", blockedStepId: "refund" });
    const execs = await prisma.stepExecution.findMany({ where: { runId: run.id } });
    expect(execs.map((e) => [e.status, e.flag])).toEqual([["failed", "reported_after_stopped"], ["failed", "reported_after_stopped"], ["failed", "reported_after_stopped"]]);
    expect(execs.every((e) => e.detail?.startsWith("staged_not_promoted:"))).toBe(true);
    expect(await invoice("in_74901")).toMatchObject({ openMinor: before.openMinor, version: before.version, fees: before.fees, sourceVersion: before.sourceVersion });
    // A second pass has nothing left to do, and the promotion finds nothing staged.
    expect(await discardUnpromotable(new Date())).not.toContain(run.id);
    await expectError(await promote(run.id), 404, "not_found");
  });

  it("the sweep discards a run's staged writes once a staged claim's lease has ended; the promotion is then refused", async () => {
    const before = await invoice("in_74401");
    const { run } = await stagedRun("75004", "in_74401", "acc_fjord", "LATE_FEE");
    const lease = (await prisma.stepExecution.findMany({ where: { runId: run.id }, select: { leaseExpiresAt: true } })).map((e) => e.leaseExpiresAt!.getTime());
    expect(await discardUnpromotable(new Date(Math.min(...lease) - 1000))).not.toContain(run.id);
    // Every lease has ended (the claims were made one after another, so their leases end apart).
    expect(await discardUnpromotable(new Date(Math.max(...lease) + 1000))).toContain(run.id);
    const rows = await prisma.stagedEffect.findMany({ where: { runId: run.id } });
    expect(rows.map((r) => r.status)).toEqual(["discarded", "discarded", "discarded"]);
    expect(rows.every((r) => r.detail?.includes("lapsed (lease ended"))).toBe(true);
    // Reported failed after the lease: flagged for a person, who sees that nothing was written.
    const execs = await prisma.stepExecution.findMany({ where: { runId: run.id } });
    expect(execs.every((e) => e.status === "failed" && e.flag === "reported_after_lease_expired" && e.detail?.startsWith("staged_not_promoted:"))).toBe(true);
    await expectError(await promote(run.id), 404, "not_found");
    expect(await invoice("in_74401")).toMatchObject({ openMinor: before.openMinor, version: before.version, fees: before.fees });
  });

  it("the promotion lands all three writes in one go, reports every step succeeded and completes the run", async () => {
    const before = await invoice("in_74701");
    const { run } = await stagedRun("74999", "in_74701", "acc_alpine", "STORAGE");
    expect((await invoice("in_74701")).openMinor).toBe(before.openMinor);

    const res = await promote(run.id);
    const body = await json(res);
    expect(res.status, JSON.stringify(body)).toBe(200);
    expect(body.promotion.effects.map((e: Json) => e.stepId)).toEqual(["refund", "credit", "waive"]);
    expect(body.promotion.steps.map((s: Json) => s.status)).toEqual(["succeeded", "succeeded", "succeeded"]);
    expect(body.promotion.run).toEqual({ id: run.id, status: "completed" });

    const after = await invoice("in_74701");
    expect(after.openMinor).toBe(before.openMinor - 2500 - 4000);
    expect(after.fees).toEqual([{ code: "STORAGE", amount: { minor: 24000 - 4000, currency: "USD" } }]);
    expect(Number(after.sourceVersion)).toBe(Number(before.sourceVersion ?? 0) + 2);
    expect(body.promotion.steps.find((s: Json) => s.stepId === "waive").targetVersions).toEqual({ "invoice:in_74701": Number(after.sourceVersion) });
    expect((await prisma.stagedEffect.findMany({ where: { runId: run.id } })).map((r) => r.status)).toEqual(["promoted", "promoted", "promoted"]);
    expect((await prisma.stepExecution.findMany({ where: { runId: run.id } })).map((e) => e.status)).toEqual(["succeeded", "succeeded", "succeeded"]);
    expect((await getRun(run.id)).status).toBe("completed");
  });

  it("a second promotion answers the same promotion and writes nothing again", async () => {
    const before = await invoice("in_74102");
    const { run, tokens } = await stagedRun("74991", "in_74102", "acc_nordkapp", "REDELIVERY");
    const first = await promote(run.id);
    const firstBody = await json(first);
    expect(first.status, JSON.stringify(firstBody)).toBe(200);
    const written = await invoice("in_74102");
    expect(written.openMinor).toBe(before.openMinor - 6500);

    const second = await promote(run.id);
    expect(second.status).toBe(200);
    expect(second.headers.get("idempotent-replayed")).toBe("true");
    expect(await json(second)).toEqual(firstBody);
    // A direct write with a promoted claim replays the promoted effect.
    const direct = await effect({ runId: run.id, stepId: "refund", token: tokens.refund });
    expect(direct.headers.get("idempotent-replayed")).toBe("true");
    expect(await invoice("in_74102")).toMatchObject({ openMinor: written.openMinor, version: written.version });
  });
});
