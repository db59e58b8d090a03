/**
 * The date horizon is a gate-policy setting (docs/security.md "Limits and what exceeding
 * them answers"; docs/api-extensions.md, "Date horizon"), against this file's own database (SQLite, or PostgreSQL with
 * PLANDESK_TEST_DB=postgres): under the seeded policy (no rule sets one: one year) a reschedule to
 * 9999-12-31 is refused `window_beyond_horizon`, whoever plans it; an admin saves a policy version
 * whose rule for the freight desk's reschedules sets 30 days, and from then a reschedule 40 days
 * out is refused on that desk — the agent's plan and a person's edit alike — while a date within
 * the 30 days passes and another desk keeps the default.
 */
import { nanoid } from "nanoid";
import { beforeAll, describe, expect, it } from "vitest";
import { DEMO_AGENT_TOOLS } from "../../demo/desk-data";
import { gateRule } from "../../gate-policy/rules";
import type { StepInput } from "../../plan/schema";
import { daysFromNow } from "../../time/dates";
import { prisma } from "../db/db";
import { DEMO_AGENT_ID, DEMO_RETAIL_AGENT_ID } from "../demo/seed";
import { submitEdit } from "../edits/submit-edit";
import { loadRun } from "../plans/load-run";
import { toRunView } from "../plans/run-view";
import { submitRun } from "../runs/submit-run";
import { loadViewer, type AgentCaller, type Viewer } from "../auth/viewer";
import { editable, prepareTestDatabase, refused, TEST_NOW } from "../../../testing/test-support";
import { liveGatePolicyVersion, loadGatePolicy } from "./load-gate-policy";
import { saveGatePolicy } from "./save-gate-policy";

const freightAgent: AgentCaller = { id: DEMO_AGENT_ID, name: "Freight desk agent", allowedTools: [...DEMO_AGENT_TOOLS], keyId: "key_demo" };
const retailAgent: AgentCaller = { id: DEMO_RETAIL_AGENT_ID, name: "Retail desk agent", allowedTools: [...DEMO_AGENT_TOOLS], keyId: "key_demo_retail", desk: "retail" };
const admin = { id: "usr_admin", role: "admin" as const };
let senior: Viewer;

const day = (n: number) => daysFromNow(TEST_NOW, n);
const reschedule = (shipmentId: string, to: string, from = to): StepInput => ({
  id: "st_move",
  tool: "reschedule_delivery",
  args: { shipmentId, window: { from, to }, reason: "Customer asked for a later date" },
  rationale: "The customer asked for a later delivery.",
});

type Issue = { code: string; path?: string; severity: string; details?: Record<string, unknown> };

/**
 * Submits `steps` for the ticket's task as `agent`: whether it was stored, and the issues of the
 * refusal (a stored plan has no error; its warnings are not read here).
 */
async function plan(agent: AgentCaller, ticketId: string, steps: StepInput[]): Promise<{ stored: boolean; runId?: string; issues: Issue[] }> {
  const task = await prisma.task.findFirstOrThrow({ where: { ticketId } });
  try {
    const { run } = await submitRun(agent, task.id, { taskRevision: task.revision, steps, addition: true }, `t:${nanoid()}`, TEST_NOW);
    return { stored: true, runId: run.id, issues: [] };
  } catch (e) {
    const err = e as { code?: string; details?: { issues?: Issue[] } };
    if (err.code !== "validation_failed") throw e;
    return { stored: false, issues: err.details?.issues ?? [] };
  }
}

const horizonIssue = (issues: Issue[]) => issues.find((i) => i.code === "window_beyond_horizon");

beforeAll(async () => {
  await prepareTestDatabase();
  senior = (await loadViewer("usr_senior"))!;
});

describe("the date horizon, a gate-policy setting", () => {
  it("by default (one year) a reschedule to 9999-12-31 is refused; a date within the year is not", async () => {
    const far = await plan(freightAgent, "74991", [reschedule("sh_5521", "9999-12-31", day(3))]);
    expect(far.stored).toBe(false);
    expect(horizonIssue(far.issues)).toMatchObject({ severity: "error", path: "steps.0.args.window.to", details: { to: "9999-12-31", horizon: day(366), horizonDays: 366 } });
    const near = await plan(freightAgent, "74991", [reschedule("sh_5521", day(40))]);
    expect(horizonIssue(near.issues)).toBeUndefined();
    expect(near.stored).toBe(true);
  });

  it("an admin sets 30 days for the freight desk's reschedules: a new policy version, audited, with the horizon on its rule", async () => {
    const live = await loadGatePolicy(prisma);
    const rules = live.rules.map(({ id: _i, position: _p, ...r }) => r);
    await saveGatePolicy(admin, { baseVersion: live.version, note: "Freight reschedules at most a month ahead", rules: [...rules, gateRule({ tool: "reschedule_delivery", desk: "freight", decision: "one", dateHorizonDays: 30, note: "a month ahead at most" })] }, TEST_NOW);
    expect(await liveGatePolicyVersion(prisma)).toBe(live.version + 1);
    expect((await loadGatePolicy(prisma)).rules.find((r) => r.desk === "freight" && r.tool === "reschedule_delivery")).toMatchObject({ dateHorizonDays: 30 });
    const audit = await prisma.auditEvent.findFirstOrThrow({ where: { type: "admin_change" }, orderBy: { seq: "desc" } });
    expect(JSON.stringify(audit.data)).toContain('"dateHorizonDays":30');
  });

  it("on the desk with a 30-day horizon the agent's reschedule 40 days out is refused; 29 days out passes (day 30 is May Day, a holiday at NO-OSL)", async () => {
    const forty = await plan(freightAgent, "74991", [reschedule("sh_5521", day(40))]);
    expect(forty.stored).toBe(false);
    const issue = horizonIssue(forty.issues);
    expect(issue).toMatchObject({ severity: "error", details: { to: day(40), horizon: day(30), horizonDays: 30 } });
    const within = await plan(freightAgent, "74991", [reschedule("sh_5521", day(29))]);
    expect(horizonIssue(within.issues)).toBeUndefined();
    expect(within.stored, JSON.stringify(within.issues)).toBe(true);
  });

  it("a person's edit to 40 days out is refused there too", async () => {
    const { runId } = await plan(freightAgent, "74991", [reschedule("sh_5521", day(5))]);
    const run = toRunView(await loadRun(runId!), TEST_NOW);
    const steps = editable(run.steps as never);
    (steps[0].args as { window: { from: string; to: string } }).window = { from: day(40), to: day(40) };
    const err = await refused(submitEdit(senior, runId!, { baseVersion: run.planVersion, steps }, TEST_NOW));
    expect(err.code).toBe("validation_failed");
    expect(horizonIssue((err.details as { issues: Issue[] }).issues)).toMatchObject({ severity: "error", details: { horizonDays: 30 } });
  });

  it("another desk keeps the default: a retail reschedule 40 days out is not beyond its horizon, 9999-12-31 is", async () => {
    const forty = await plan(retailAgent, "81002", [reschedule("sh_8102", day(40))]);
    expect(horizonIssue(forty.issues)).toBeUndefined();
    const far = await plan(retailAgent, "81002", [reschedule("sh_8102", "9999-12-31", day(40))]);
    expect(far.stored).toBe(false);
    expect(horizonIssue(far.issues)).toMatchObject({ details: { horizonDays: 366 } });
  });
});
