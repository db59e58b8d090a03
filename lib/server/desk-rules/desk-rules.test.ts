/**
 * Desk rules through the service: versions, audit, stale and parallel saves (on SQLite and
 * PostgreSQL alike), the validator applying a desk's rules at submission, edit and dispatch, the
 * count of the edit a rule was made from, and the agent's guidance (its own desk only).
 */
import { nanoid } from "nanoid";
import { beforeAll, describe, expect, it } from "vitest";
import { DEMO_AGENT_TOOLS } from "../../demo/desk-data";
import { isDomainError } from "../../errors/domain-error";
import type { Step, StepInput } from "../../plan/schema";
import { claimStep } from "../claims/claim-step";
import { reportOutcome } from "../claims/report-outcome";
import { approveSteps } from "../approvals/approve-steps";
import { prisma } from "../db/db";
import { DEMO_AGENT_ID, DEMO_RETAIL_AGENT_ID } from "../demo/seed";
import { submitEdit } from "../edits/submit-edit";
import { loadRun } from "../plans/load-run";
import { submitRun } from "../runs/submit-run";
import { toRunView } from "../plans/run-view";
import { loadViewer, type AgentCaller, type Viewer } from "../auth/viewer";
import { prepareTestDatabase, TEST_NOW } from "../../../testing/test-support";
import { guidanceFor } from "./guidance";
import { loadInsights } from "../audit/insights";
import { getDeskRule, listDeskRules } from "./list-desk-rules";
import { createDeskRule, saveDeskRule } from "./save-desk-rule";

const agent: AgentCaller = { id: DEMO_AGENT_ID, name: "Freight desk agent", allowedTools: [...DEMO_AGENT_TOOLS], keyId: "key_demo", desk: "freight" };
const retailAgent: AgentCaller = { id: DEMO_RETAIL_AGENT_ID, name: "Retail agent", allowedTools: [...DEMO_AGENT_TOOLS], keyId: "key_retail", desk: "retail" };
const TICKET = "75011";
const at = (s: number) => new Date(TEST_NOW.getTime() + s * 1000);

let supervisor: Viewer;
let admin: Viewer;
let operator: Viewer;
let senior: Viewer;

const note: StepInput = { id: "n1", tool: "add_ticket_note", args: { ticketId: TICKET, note: "Customer uploaded the certificate." } };
const reply: StepInput = { id: "r1", tool: "send_reply", args: { ticketId: TICKET, body: "Thanks, we received the certificate and are checking it now." } };

async function submit(steps: StepInput[], when: Date) {
  const task = await prisma.task.findUniqueOrThrow({ where: { id: `task_${TICKET}` } });
  return (await submitRun(agent, task.id, { taskRevision: task.revision, steps, addition: true }, `dr:${nanoid()}`, when)).run;
}

/** The validation issues stored with a run's current plan version. */
async function issuesOf(runId: string): Promise<{ stage: string; code: string; severity: string; stepId?: string; message: string; details?: Record<string, unknown> }[]> {
  const run = await prisma.run.findUniqueOrThrow({ where: { id: runId }, select: { planVersion: true } });
  const v = await prisma.planVersion.findFirstOrThrow({ where: { runId, version: run.planVersion }, select: { validation: true } });
  return (v.validation as { issues: [] }).issues;
}

const refused = async (p: Promise<unknown>) => {
  const e = await p.then(() => null, (x: unknown) => x);
  if (!isDomainError(e)) throw new Error(`expected a refusal, got ${String(e)}`);
  return e;
};

const replyAfterNote = {
  desk: "freight",
  severity: "warning" as const,
  description: "A reply follows a ticket note",
  rule: { kind: "step_requires_prior" as const, tool: "send_reply", priorTool: "add_ticket_note" },
  source: { key: "added|add_ticket_note", kind: "step_added" as const, tool: "add_ticket_note", pattern: "step added" },
  note: "People keep adding the note before the reply",
};

beforeAll(async () => {
  await prepareTestDatabase();
  supervisor = (await loadViewer("usr_supervisor"))!;
  admin = (await loadViewer("usr_admin"))!;
  operator = (await loadViewer("usr_operator"))!;
  senior = (await loadViewer("usr_senior"))!;
});

describe("desk rules: versions, audit, stale saves", () => {
  it("a supervisor makes a rule (version 1, audited); a save is version 2 with before and after", async () => {
    const made = await createDeskRule(supervisor, { ...replyAfterNote, desk: "retail", rule: { ...replyAfterNote.rule } }, at(10));
    expect(made).toMatchObject({ desk: "retail", version: 1, severity: "warning", enabled: true, createdBy: { id: "usr_supervisor", name: "Sofia Supervisor" }, inWords: "send_reply needs an add_ticket_note step before it in the plan" });
    const saved = await saveDeskRule(admin, made.id, { baseVersion: 1, severity: "error", description: "A reply always follows a note", rule: made.rule, enabled: false, note: "Stricter, and off for now" }, at(20));
    expect(saved).toMatchObject({ version: 2, severity: "error", enabled: false });
    const { versions } = await getDeskRule(supervisor, made.id);
    expect(versions.map((v) => [v.version, v.severity, v.enabled, v.note, v.createdBy.id])).toEqual([
      [2, "error", false, "Stricter, and off for now", "usr_admin"],
      [1, "warning", true, "People keep adding the note before the reply", "usr_supervisor"],
    ]);
    const events = await prisma.auditEvent.findMany({ where: { type: "admin_change" }, orderBy: { seq: "asc" } });
    const mine = events.filter((e) => (e.data as { target?: { id?: string } }).target?.id === made.id).map((e) => e.data as Record<string, unknown>);
    expect(mine.map((d) => d.what)).toEqual(["desk_rule.create", "desk_rule.save"]);
    expect(mine[1]).toMatchObject({ before: { version: 1, severity: "warning", enabled: true }, after: { version: 2, severity: "error", enabled: false }, note: "Stricter, and off for now" });
  });

  it("a save from an old version is 409 stale_desk_rule naming who saved; nothing changes", async () => {
    const made = await createDeskRule(supervisor, { ...replyAfterNote, desk: "retail" }, at(30));
    await saveDeskRule(supervisor, made.id, { baseVersion: 1, severity: "warning", description: "First save", rule: made.rule, enabled: true, note: "one" }, at(31));
    const e = await refused(saveDeskRule(admin, made.id, { baseVersion: 1, severity: "error", description: "Second save", rule: made.rule, enabled: true, note: "two" }, at(32)));
    expect(e.code).toBe("stale_desk_rule");
    expect(e.details).toMatchObject({ version: 2, savedBy: { id: "usr_supervisor", name: "Sofia Supervisor" } });
    expect((await getDeskRule(supervisor, made.id)).rule).toMatchObject({ version: 2, description: "First save" });
  });

  it("parallel saves from one version: exactly one wins, every other is stale", async () => {
    const made = await createDeskRule(supervisor, { ...replyAfterNote, desk: "retail" }, at(40));
    const results = await Promise.allSettled(
      [0, 1, 2, 3].map((i) => saveDeskRule(i % 2 ? admin : supervisor, made.id, { baseVersion: 1, severity: "warning", description: `Save ${i}`, rule: made.rule, enabled: true, note: `race ${i}` }, at(41))),
    );
    expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(1);
    const losers = results.filter((r): r is PromiseRejectedResult => r.status === "rejected");
    expect(losers.map((r) => isDomainError(r.reason) && r.reason.code)).toEqual(["stale_desk_rule", "stale_desk_rule", "stale_desk_rule"]);
    expect(await prisma.deskRuleVersion.count({ where: { ruleId: made.id } })).toBe(2);
  });

  it("operators may not make, save or list rules (403, audited); unknown tools and desks are refused", async () => {
    const before = await prisma.auditEvent.count({ where: { type: "denied", actorId: "usr_operator" } });
    expect((await refused(createDeskRule(operator, replyAfterNote))).code).toBe("forbidden");
    expect((await refused(listDeskRules(operator))).code).toBe("forbidden");
    expect(await prisma.auditEvent.count({ where: { type: "denied", actorId: "usr_operator" } })).toBe(before + 2);
    const unknownTool = await refused(createDeskRule(supervisor, { ...replyAfterNote, rule: { ...replyAfterNote.rule, priorTool: "fax_customer" } }));
    expect(unknownTool.code).toBe("validation_failed");
    expect(unknownTool.details.issues).toEqual([{ path: "rule.priorTool", code: "unknown_tool", message: "There is no tool called fax_customer in the catalog." }]);
    expect((await refused(createDeskRule(supervisor, { ...replyAfterNote, desk: "nowhere" }))).code).toBe("unknown_desk");
    expect((await refused(createDeskRule(supervisor, { ...replyAfterNote, severity: "fatal" }))).code).toBe("bad_request");
  });
});

describe("the validator applies the desk's rules", () => {
  let ruleId = "";

  beforeAll(async () => {
    ruleId = (await createDeskRule(supervisor, replyAfterNote, at(100))).id;
  });

  it("a new plan that repeats the mistake carries the warning; one with the note first does not", async () => {
    const bad = await submit([reply], at(200));
    const issue = (await issuesOf(bad.id)).find((i) => i.stage === "desk_rule");
    expect(issue).toMatchObject({ code: "desk_rule_prior_missing", severity: "warning", stepId: "r1", details: { ruleId, version: 1 } });
    expect(issue?.message).toContain("Desk rule: A reply follows a ticket note");
    const good = await submit([note, reply], at(210));
    expect((await issuesOf(good.id)).filter((i) => i.stage === "desk_rule")).toEqual([]);
  });

  it("an edit is checked too, and the claim (dispatch) sees the plan's earlier steps", async () => {
    const run = await submit([note, reply], at(300));
    const v = toRunView(await loadRun(run.id), at(301));
    const steps: Step[] = v.steps.map((s) => ({ id: s.id, tool: s.tool, args: structuredClone(s.args), provenance: {}, author: { kind: "model" } }));
    const edited = await submitEdit(senior, run.id, { baseVersion: v.planVersion, steps: [steps[1], steps[0]] }, at(302)); // the reply moved first
    expect(edited.validation.issues.map((i) => i.code)).toContain("desk_rule_prior_missing");
    // Put back in order, approved, claimed: the reply's claim validates it alone but with the note before it.
    const back = toRunView(await loadRun(run.id), at(303));
    await submitEdit(senior, run.id, { baseVersion: back.planVersion, steps }, at(304));
    const now = toRunView(await loadRun(run.id), at(305));
    await approveSteps(senior, run.id, { planVersion: now.planVersion, stepIds: "all", idempotencyKey: nanoid() }, at(306));
    const approved = toRunView(await loadRun(run.id), at(307));
    for (const s of approved.steps) {
      const { claim } = await claimStep(agent, run.id, s.id, { digest: s.digest, taskRevision: approved.boundTaskRevision }, null, at(308));
      expect(claim.stepId).toBe(s.id);
      await reportOutcome(agent, run.id, s.id, { token: claim.token, status: "succeeded" }, at(309));
    }
  });

  it("an error rule refuses the agent's plan; a disabled rule applies no more", async () => {
    const current = await getDeskRule(supervisor, ruleId);
    await saveDeskRule(supervisor, ruleId, { baseVersion: current.rule.version, severity: "error", description: current.rule.description, rule: current.rule.rule, enabled: true, note: "Make it an error" }, at(400));
    const e = await refused(submit([reply], at(401)));
    expect(e.code).toBe("validation_failed");
    expect((e.details.issues as { code: string; severity: string }[]).find((i) => i.code === "desk_rule_prior_missing")?.severity).toBe("error");
    await saveDeskRule(supervisor, ruleId, { baseVersion: current.rule.version + 1, severity: "error", description: current.rule.description, rule: current.rule.rule, enabled: false, note: "Off" }, at(402));
    const run = await submit([reply], at(403));
    expect((await issuesOf(run.id)).filter((i) => i.stage === "desk_rule")).toEqual([]);
  });

  it("counts the edit it was made from since the rule: an added note after the rule's creation counts", async () => {
    const run = await submit([reply], at(500));
    const v = toRunView(await loadRun(run.id), at(501));
    const steps: Step[] = v.steps.map((s) => ({ id: s.id, tool: s.tool, args: structuredClone(s.args), provenance: {}, author: { kind: "model" } }));
    await submitEdit(senior, run.id, { baseVersion: v.planVersion, steps: [{ id: "added_note", tool: "add_ticket_note", args: { ticketId: TICKET, note: "Noted first." }, provenance: {}, author: { kind: "model" } }, ...steps] }, at(502));
    const { rule } = await getDeskRule(supervisor, ruleId, at(600));
    expect(rule.effect).toMatchObject({ since: at(100).toISOString(), edits: 1, runs: 1 });
    expect(rule.effect!.runsSubmitted).toBeGreaterThanOrEqual(5);
    const listed = await listDeskRules(supervisor, { desk: "freight" }, at(600));
    expect(listed.rules.find((r) => r.id === ruleId)?.effect?.edits).toBe(1);
  });
});

describe("insights: the recurring edit a rule is made from", () => {
  it("a note added before a reply by two people on two runs is recurring, with the reply as the step that followed", async () => {
    for (const [who, s] of [[senior, 800], [supervisor, 810]] as const) {
      const run = await submit([reply], at(s));
      const v = toRunView(await loadRun(run.id), at(s + 1));
      const steps: Step[] = v.steps.map((x) => ({ id: x.id, tool: x.tool, args: structuredClone(x.args), provenance: {}, author: { kind: "model" } }));
      await submitEdit(who, run.id, { baseVersion: v.planVersion, steps: [{ id: `note_${s}`, tool: "add_ticket_note", args: { ticketId: TICKET, note: "Noted first." }, provenance: {}, author: { kind: "model" } }, ...steps] }, at(s + 2));
    }
    const page = await loadInsights(supervisor, at(900), { since: at(790) });
    const added = page.recurring.find((r) => r.key === "added|add_ticket_note");
    expect(added).toMatchObject({ kind: "step_added", tool: "add_ticket_note", runs: 2, editors: ["usr_senior", "usr_supervisor"], desks: ["freight"], followedBy: "send_reply" });
  });
});

describe("GET /api/v1/guidance: the agent's desk's rules with worked examples", () => {
  it("the freight agent reads freight's enabled rules in words with the edit as example; the retail agent never sees them", async () => {
    const { id } = await createDeskRule(supervisor, { ...replyAfterNote, description: "Note first, then reply", severity: "warning" }, at(700));
    const g = await guidanceFor(agent);
    expect(g.desk).toBe("freight");
    const mine = g.rules.find((r) => r.id === id)!;
    expect(mine).toMatchObject({ tool: "send_reply", checked: true, inWords: "send_reply needs an add_ticket_note step before it in the plan" });
    expect(mine.examples[0]).toMatchObject({ tool: "add_ticket_note", before: null, after: { ticketId: TICKET, note: "Noted first." } });
    expect(g.prompt).toContain("Note first, then reply");
    const retail = await guidanceFor(retailAgent);
    expect(retail.desk).toBe("retail");
    expect(retail.rules.map((r) => r.id)).not.toContain(id);
    expect(retail.rules.every((r) => r.examples.length === 0)).toBe(true);
    expect(retail.prompt).not.toContain("Note first");
  });
});
