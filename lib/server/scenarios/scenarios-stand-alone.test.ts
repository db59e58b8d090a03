/**
 * Named scenarios stand alone, against this file's own database (SQLite, or PostgreSQL with
 * PLANDESK_TEST_DB=postgres): every scenario of the catalog is made twice, in a shuffled order,
 * half of the makes at once, and afterwards each result still shows what its `expect` says — its
 * status, version, approvals, executions, open balance and warnings — because every make works on
 * a ticket, task, accounts, invoices and shipments of its own. At the end each cross-account
 * refund is approved: no other scenario's money holds on its invoice.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { prisma } from "../db/db";
import { prepareTestDatabase, refused, TEST_NOW } from "../../../testing/test-support";
import { listScenarios, makeScenario, type ScenarioName, type ScenarioResult } from "./scenarios";
import { submitEdit } from "../edits/submit-edit";
import { approveSteps } from "../approvals/approve-steps";
import { loadViewer } from "../auth/viewer";

beforeAll(async () => {
  await prepareTestDatabase(TEST_NOW);
});

/** A deterministic shuffle (mulberry32 seeded by `seed`), so a failing order can be made again. */
function shuffled<T>(items: readonly T[], seed: number): T[] {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(next() * (i + 1));
    [out[i], out[j]] = [out[j], out[i]];
  }
  return out;
}

const runOf = (id: string) => prisma.run.findUniqueOrThrow({ where: { id }, include: { approvals: true, executions: true, planVersions: true } });
const invoiceOf = (desk: string, id: string) => prisma.invoice.findUniqueOrThrow({ where: { desk_id: { desk, id } } });
const person = async (id: string) => (await loadViewer(id))!;

/** Checks that `made` still shows what its scenario's `expect` says. */
async function expectSituation(made: ScenarioResult): Promise<void> {
  const r = await runOf(made.runIds[0]);
  const label = `${made.scenario} (${made.runIds[0]})`;
  const steps = (r.planVersions.find((v) => v.version === r.planVersion)?.steps ?? []) as { tool: string }[];
  const active = r.approvals.filter((a) => a.state === "active");
  const executions = r.executions.map((e) => [e.stepId, e.status]);
  switch (made.scenario) {
    case "reference-case":
      expect({ status: r.status, version: r.planVersion, steps: steps.length }, label).toEqual({ status: "pending_review", version: 1, steps: 3 });
      break;
    case "cross-account-refund": {
      expect({ status: r.status, version: r.planVersion }, label).toEqual({ status: "pending_review", version: Number(made.refs.planVersion) });
      expect((await invoiceOf("freight", String(made.refs.invoiceId))).openMinor, label).toBe(212000);
      // approving the refund needs the cross-account warning acknowledged (and nothing is approved without it)
      const senior = await person("usr_senior");
      const e = await refused(approveSteps(senior, r.id, { planVersion: r.planVersion, stepIds: [String(made.refs.refundStepId)], idempotencyKey: `check:${r.id}` }, TEST_NOW));
      expect(e.code, label).toBe("acknowledgement_required");
      break;
    }
    case "stale-edit-race": {
      expect(r.planVersion, label).toBe(Number(made.refs.currentVersion));
      const operator = await person("usr_operator");
      const stale = await refused(submitEdit(operator, r.id, { baseVersion: Number(made.refs.staleBaseVersion), steps: [] as never }, TEST_NOW));
      expect(stale.code, label).toBe("stale_plan_version");
      expect(JSON.stringify(stale.details), label).toContain("Sam Senior");
      break;
    }
    case "four-eyes":
      expect({ status: r.status, approvals: active.map((a) => a.approverId) }, label).toEqual({ status: "pending_review", approvals: ["usr_senior"] });
      expect((await invoiceOf("freight", String(made.refs.invoiceId))).openMinor, label).toBe(212000);
      break;
    case "expired-card":
      expect(r.status, label).toBe("expired");
      break;
    case "escalated-run":
      expect({ status: r.status, escalated: r.escalatedAt !== null }, label).toEqual({ status: "pending_review", escalated: true });
      break;
    case "stopped-stale-task":
      expect({ status: r.status, executions }, label).toEqual({ status: "stopped", executions: [] });
      break;
    case "partial-stop":
      expect({ status: r.status, executions }, label).toEqual({ status: "stopped", executions: [[made.refs.executedStepId, "succeeded"]] });
      break;
    case "unknown-outcome":
      expect({ status: r.status, executions }, label).toEqual({ status: "executing", executions: [[made.refs.stepId, "unknown"]] });
      break;
    case "needs-decision":
      expect({ status: r.status, reason: (r.decisionReason as { message?: string } | null)?.message }, label).toEqual({
        status: "needs_decision",
        reason: `Needs a new decision: ${made.refs.invoiceId} has $100.00 open; the approved refund was $600.00.`,
      });
      expect((await invoiceOf("freight", String(made.refs.invoiceId))).openMinor, label).toBe(10000);
      break;
    case "needs-decision-recovered":
      expect(r.status, label).toBe("needs_decision");
      expect((await invoiceOf("freight", String(made.refs.invoiceId))).openMinor, label).toBe(64950);
      break;
    case "imported-tool-run":
      expect({ status: r.status, tools: steps.map((s) => s.tool) }, label).toEqual({ status: "pending_review", tools: ["print_label"] });
      break;
    case "second-desk":
      expect({ status: r.status, desk: r.desk }, label).toEqual({ status: "pending_review", desk: "retail" });
      break;
    default: {
      const unchecked: never = made.scenario;
      throw new Error(`no check for scenario ${String(unchecked)}`);
    }
  }
}

describe("named scenarios stand alone", () => {
  it("every scenario made twice, shuffled and partly at once, still shows what its expect says; the cross-account refunds all approve", async () => {
    const names = listScenarios().map((s) => s.name);
    const seed = Number(process.env.SCENARIO_SHUFFLE_SEED ?? 20261206);
    const order = shuffled<ScenarioName>([...names, ...names], seed);
    const made: ScenarioResult[] = [];

    // the first half one after another, each checked right after its make
    const half = Math.ceil(order.length / 2);
    for (const name of order.slice(0, half)) {
      const m = await makeScenario(name, TEST_NOW);
      await expectSituation(m);
      made.push(m);
    }
    // the second half at once
    made.push(...(await Promise.all(order.slice(half).map((name) => makeScenario(name, TEST_NOW)))));

    // each scenario twice, every make with its own run, task and ticket
    expect(made.map((m) => m.scenario).sort(), `seed ${seed}`).toEqual([...names, ...names].sort());
    for (const key of ["runIds", "taskIds", "ticketIds"] as const) {
      const ids = made.map((m) => m[key][0]);
      expect(new Set(ids).size, `${key} (seed ${seed})`).toBe(made.length);
    }
    // after every make, every result still shows its own situation
    for (const m of made) await expectSituation(m);

    // no scenario's money holds on another's invoice: each cross-account refund approves with the warning acknowledged
    const senior = await person("usr_senior");
    for (const m of made.filter((x) => x.scenario === "cross-account-refund")) {
      const r = await runOf(m.runIds[0]);
      const e = await refused(approveSteps(senior, r.id, { planVersion: r.planVersion, stepIds: [String(m.refs.refundStepId)], idempotencyKey: `ack:${r.id}` }, TEST_NOW));
      const required = (e.details.required as { code: string; stepId: string }[]).map(({ code, stepId }) => ({ code, stepId }));
      await approveSteps(senior, r.id, { planVersion: r.planVersion, stepIds: [String(m.refs.refundStepId)], idempotencyKey: `ack2:${r.id}`, acknowledgedWarnings: required }, TEST_NOW);
      expect((await runOf(r.id)).approvals.filter((a) => a.state === "active" && a.stepId === m.refs.refundStepId), `${m.runIds[0]} (seed ${seed})`).toHaveLength(1);
    }
    // 26 makes through the real services: 5 s on SQLite, up to 30 s on PostgreSQL on a loaded machine
  }, 120_000);
});
