import { addHours, addMinutes } from "date-fns";
import { buildDemoDesk, DEMO_AGENT_TOOLS } from "../../demo/desk-data";
import { DomainError } from "../../errors/domain-error";
import { gateRule } from "../../gate-policy/rules";
import type { StepInput } from "../../plan/schema";
import { approveSteps } from "../approvals/approve-steps";
import { claimStep } from "../claims/claim-step";
import { reportOutcome } from "../claims/report-outcome";
import { prisma } from "../db/db";
import { DEMO_AGENT_ID, DEMO_INTEGRATION_ID, DEMO_RETAIL_AGENT_ID } from "../demo/seed";
import { buildRetailDesk, RETAIL_DESK } from "../../demo/retail-desk";
import { submitEdit } from "../edits/submit-edit";
import { loadGatePolicy } from "../gate-policy/load-gate-policy";
import { saveGatePolicy } from "../gate-policy/save-gate-policy";
import { sweepDeadlines } from "../deadlines/sweep-deadlines";
import { submitRun } from "../runs/submit-run";
import { loadViewer, type AgentCaller, type Viewer } from "../auth/viewer";
import { reviseTask } from "../tasks/revise-task";
import { importToolsAsAdmin, setAgentAllowedTools } from "../tools/imported-tools";
import { DEFAULT_DESK } from "../../desk/desks";
import { freshCopyOf, putOpenBalance, type FreshCopy, type FreshCopyRequest } from "./fresh-records";

/**
 * Named scenarios for QA suites and demos (docs/testing.md "Scenarios"): each builds one known
 * situation on the demo desk through the same service functions the API calls — the agent
 * submits, people edit and approve, the executor claims and reports, the ticketing integration
 * revises — so what a scenario makes is exactly what a real flow would have made, audit trail
 * included. Demo mode only (the HTTP and command-line entry points check it). Every make works on
 * records of its own: a fresh copy of the seeded ticket it is about, with its task, its customer
 * accounts, invoices (and their open balances) and shipments (lib/server/scenarios/fresh-records.ts),
 * so no scenario's run holds money, supersedes a plan or changes a balance another scenario relies
 * on, and scenarios may be made in any order and in parallel.
 */

/** What a scenario made: the ids a test goes on with, and one sentence of what to expect. */
export interface ScenarioResult {
  scenario: ScenarioName;
  /** The runs it made, the main one first. */
  runIds: string[];
  taskIds: string[];
  ticketIds: string[];
  /** Extra ids by meaning (e.g. `staleBaseVersion`, `refundStepId`). */
  refs: Record<string, string | number>;
  /** What the run looks like now, in the console's words. */
  expect: string;
}

interface ScenarioContext {
  now: Date;
  agent: AgentCaller;
  person(id: "usr_operator" | "usr_senior" | "usr_supervisor" | "usr_admin"): Promise<Viewer>;
}

interface ScenarioDefinition {
  description: string;
  make(ctx: ScenarioContext): Promise<Omit<ScenarioResult, "scenario">>;
}

/**
 * A fresh copy of the ticket of the seeded plan `key` ("ref-74991") with the records `records`
 * names (fresh-records.ts), and that plan's steps rewritten to name the copies.
 */
async function freshPlan(ctx: ScenarioContext, key: string, records: Omit<FreshCopyRequest, "desk" | "ticket"> = {}, desk: FreshCopyRequest["desk"] = DEFAULT_DESK): Promise<FreshCopy & { steps: StepInput[] }> {
  const r = (desk === RETAIL_DESK.id ? buildRetailDesk : buildDemoDesk)(ctx.now).runs.find((x) => x.key === key);
  if (!r) throw new DomainError("not_found", `The ${desk} demo desk has no seeded plan ${key}.`);
  const copy = await freshCopyOf({ desk, ticket: r.ticketId, ...records }, ctx.now);
  return { ...copy, steps: copy.rewrite(structuredClone(r.steps)) };
}

/** Submits `steps` for the task `taskId` as the scenario's agent (submitted at `at`). */
async function submitFor(ctx: ScenarioContext, taskId: string, steps: StepInput[], at = ctx.now, expiresInSeconds?: number) {
  const task = await prisma.task.findUniqueOrThrow({ where: { id: taskId } });
  const { run } = await submitRun(ctx.agent, task.id, { taskRevision: task.revision, steps, ...(expiresInSeconds ? { expiresInSeconds } : {}) }, null, at);
  return { run, task };
}

/** The ids every result carries for one run. */
const idsOf = (run: { id: string; taskId: string }, ticketId: string) => ({ runIds: [run.id], taskIds: [run.taskId], ticketIds: [ticketId] });

/** Approves every step of the run's current version as `who` (the scenario's task has no other run). */
async function approveAll(ctx: ScenarioContext, runId: string, planVersion: number, who: Viewer) {
  await approveSteps(who, runId, { planVersion, stepIds: "all", idempotencyKey: `scenario:${runId}:${planVersion}:${who.id}` }, ctx.now);
}

/**
 * The reference case's plan with the operator's edit of docs/design.md "The demo domain": date +4
 * days, refund on `invoiceId` (the scenario's copy of in_74119) with the title, evidence (the
 * run's ticket), risk and stop condition the gate policy requires of a person's refund.
 */
async function referenceEdit(ctx: ScenarioContext, runId: string, steps: { id: string; tool: string; args: Record<string, unknown> }[], planVersion: number, invoiceId: string) {
  const senior = await ctx.person("usr_senior");
  const edited = steps.map((s) => {
    if (s.tool !== "reschedule_delivery") return { id: s.id, tool: s.tool, args: s.args };
    const window = s.args.window as { from: string; to: string };
    const shift = (d: string) => addHours(new Date(`${d}T00:00:00Z`), 96).toISOString().slice(0, 10);
    return { id: s.id, tool: s.tool, args: { ...s.args, window: { from: shift(window.from), to: shift(window.to) } } };
  });
  // the senior's refund carries what the gate policy requires of a person's refund, as the edit form asks
  const { ticketId } = await prisma.run.findUniqueOrThrow({ where: { id: runId }, select: { ticketId: true } });
  edited.push({
    id: "new_refund",
    tool: "issue_refund",
    args: { invoiceId, amount: { minor: 148900, currency: "USD" }, reason: "Missed delivery window" },
    title: `Issue refund on ${invoiceId}`,
    evidence: [{ recordType: "ticket", recordId: ticketId }],
    risk: "The invoice belongs to another account than the ticket's",
    stopCondition: `Stop if ${invoiceId} was already refunded`,
  } as never);
  const res = await submitEdit(senior, runId, { baseVersion: planVersion, steps: edited as never }, ctx.now);
  return res.planVersion;
}

const SCENARIO_DEFINITIONS = {
  "reference-case": {
    description: "Ticket #74991 as the agent proposed it: note, reschedule, reply — waiting for review.",
    async make(ctx) {
      const plan = await freshPlan(ctx, "ref-74991", { shipments: ["sh_5521"] });
      const { run } = await submitFor(ctx, plan.taskId, plan.steps);
      return { ...idsOf(run, plan.ticketId), refs: {}, expect: "pending_review, 3 steps, version 1" };
    },
  },
  "cross-account-refund": {
    description: "The reference case after Sam Senior's edit: date 4 days later and a $1,489.00 refund on in_74119 of Halvorsen Freight (another account).",
    async make(ctx) {
      const plan = await freshPlan(ctx, "ref-74991", { shipments: ["sh_5521"], invoices: ["in_74119"] });
      const { run } = await submitFor(ctx, plan.taskId, plan.steps);
      const version = await referenceEdit(ctx, run.id, run.steps, run.planVersion, plan.ids.in_74119);
      const refund = version.steps.find((s) => s.tool === "issue_refund")!;
      return { ...idsOf(run, plan.ticketId), refs: { refundStepId: refund.id, planVersion: version.version, invoiceId: plan.ids.in_74119 }, expect: "pending_review at version 2; approving the refund needs the cross-account warning acknowledged" };
    },
  },
  "stale-edit-race": {
    description: "Someone saved an edit first: the run is at version 2, so an edit based on version 1 is refused as stale.",
    async make(ctx) {
      const plan = await freshPlan(ctx, "ref-74991", { shipments: ["sh_5521"], invoices: ["in_74119"] });
      const { run } = await submitFor(ctx, plan.taskId, plan.steps);
      const version = await referenceEdit(ctx, run.id, run.steps, run.planVersion, plan.ids.in_74119);
      return { ...idsOf(run, plan.ticketId), refs: { staleBaseVersion: 1, currentVersion: version.version }, expect: "an edit from version 1 answers 409 stale_plan_version naming Sam Senior" };
    },
  },
  "four-eyes": {
    description: "A $1,500.00 refund under a rule that needs two distinct approvers: approved once by Sam Senior, waiting for a second person.",
    async make(ctx) {
      // The rule matches the scenario's own accounts only (by tag), so no other scenario's refund needs two approvers.
      await ensureGateRule(ctx, gateRule({ tool: "issue_refund", accountTag: FOUR_EYES_TAG, minAmountMinor: 100000, decision: "two", note: "Scenario four-eyes: refunds of $1,000 and more on its accounts need two approvers" }));
      const copy = await freshCopyOf({ desk: DEFAULT_DESK, ticket: "75002", invoices: ["in_74119"], accountTags: { acc_halvorsen: [FOUR_EYES_TAG] } }, ctx.now);
      const invoiceId = copy.ids.in_74119;
      const steps: StepInput[] = [
        {
          id: "st_refund",
          tool: "issue_refund",
          args: { invoiceId, amount: { minor: 150000, currency: "USD" }, reason: "Damaged pallets" },
          // What the seeded policy asks of an irreversible step, though this scenario's own rule asks nothing.
          title: "Refund the damaged pallets",
          evidence: [{ recordType: "invoice", recordId: invoiceId }],
          risk: "Money leaves the company",
          stopCondition: "The invoice was paid or refunded meanwhile",
        },
      ];
      const { run } = await submitFor(ctx, copy.taskId, steps);
      await approveAll(ctx, run.id, run.planVersion, await ctx.person("usr_senior"));
      return { ...idsOf(run, copy.ticketId), refs: { stepId: "st_refund", invoiceId }, expect: "pending_review, 1 of 2 approvals; Sam Senior may not approve again" };
    },
  },
  "expired-card": {
    description: "A run submitted 2 hours ago with a one-hour deadline that nobody decided: escalated, then expired; its buttons say why.",
    async make(ctx) {
      const plan = await freshPlan(ctx, "note-75004");
      const { run } = await submitFor(ctx, plan.taskId, withoutAutoOnly(plan.steps, plan.ticketId), addHours(ctx.now, -2), 3600);
      await sweepDeadlines(ctx.now);
      return { ...idsOf(run, plan.ticketId), refs: {}, expect: "expired; approve and edit are disabled" };
    },
  },
  "escalated-run": {
    description: "A run waiting past its escalation time (submitted 50 minutes ago with a one-hour deadline): escalated to supervisors, not yet expired.",
    async make(ctx) {
      const plan = await freshPlan(ctx, "resched-75002", { shipments: ["sh_5530"] });
      const { run } = await submitFor(ctx, plan.taskId, plan.steps, addMinutes(ctx.now, -50), 3600);
      await sweepDeadlines(ctx.now);
      return { ...idsOf(run, plan.ticketId), refs: {}, expect: "pending_review, escalated, listed on /escalations" };
    },
  },
  "stopped-stale-task": {
    description: "Approved, then the ticketing integration revised the task before the first write: the claim stops the run.",
    async make(ctx) {
      const plan = await freshPlan(ctx, "ref-74991", { shipments: ["sh_5521"] });
      const { run, task } = await submitFor(ctx, plan.taskId, plan.steps);
      await approveAll(ctx, run.id, run.planVersion, await ctx.person("usr_senior"));
      await reviseTask(task.id, { comment: "Customer now asks for delivery next week instead." }, { kind: "integration", id: DEMO_INTEGRATION_ID });
      await claimStep(ctx.agent, run.id, run.steps[0].id, { digest: run.steps[0].digest, taskRevision: task.revision }, null, ctx.now).catch(expectRefusal);
      return { ...idsOf(run, plan.ticketId), refs: { boundRevision: task.revision, liveRevision: task.revision + 1 }, expect: "stopped (stale task), nothing executed" };
    },
  },
  "partial-stop": {
    description: "Step 1 written, then the task was revised: the claim of step 2 stops the run with step 1 executed.",
    async make(ctx) {
      const plan = await freshPlan(ctx, "ref-74991", { shipments: ["sh_5521"] });
      const { run, task } = await submitFor(ctx, plan.taskId, plan.steps);
      await approveAll(ctx, run.id, run.planVersion, await ctx.person("usr_senior"));
      const first = run.steps[0];
      const { claim } = await claimStep(ctx.agent, run.id, first.id, { digest: first.digest, taskRevision: task.revision }, null, ctx.now);
      await reportOutcome(ctx.agent, run.id, first.id, { token: claim.token, status: "succeeded" }, ctx.now);
      await reviseTask(task.id, { comment: "Customer changed the delivery address." }, { kind: "integration", id: DEMO_INTEGRATION_ID });
      const second = run.steps[1];
      await claimStep(ctx.agent, run.id, second.id, { digest: second.digest, taskRevision: task.revision }, null, ctx.now).catch(expectRefusal);
      return { ...idsOf(run, plan.ticketId), refs: { executedStepId: first.id, blockedStepId: second.id }, expect: "stopped with step 1 executed and step 2 blocked" };
    },
  },
  "unknown-outcome": {
    description: "The executor lost the answer of a write: step 1 reported unknown, waiting for a supervisor on /reconciliation.",
    async make(ctx) {
      const plan = await freshPlan(ctx, "ref-74991", { shipments: ["sh_5521"] });
      const { run, task } = await submitFor(ctx, plan.taskId, plan.steps);
      await approveAll(ctx, run.id, run.planVersion, await ctx.person("usr_senior"));
      const first = run.steps[0];
      const { claim } = await claimStep(ctx.agent, run.id, first.id, { digest: first.digest, taskRevision: task.revision }, null, ctx.now);
      await reportOutcome(ctx.agent, run.id, first.id, { token: claim.token, status: "unknown", detail: "Timed out waiting for the ticketing system" }, ctx.now);
      return { ...idsOf(run, plan.ticketId), refs: { stepId: first.id }, expect: "executing; step 1 outcome unknown, listed on /reconciliation" };
    },
  },
  "needs-decision": {
    description:
      "A $600.00 refund approved by Sam Senior, then the invoice's open balance dropped to $100.00 (as the account system would): the executor's claim is refused validation_failed and the run needs a new decision.",
    async make(ctx) {
      const { run, ticketId, invoiceId, refundStepId } = await approvedThenRefused(ctx);
      return { ...idsOf(run, ticketId), refs: { invoiceId, refundStepId }, expect: `needs_decision: ${invoiceId} has $100.00 open; the approved refund was $600.00` };
    },
  },
  "needs-decision-recovered": {
    description:
      "As needs-decision, then the payment that lowered the balance was reversed (the invoice has $649.50 open again): approving step 1 again passes the fresh validation and the executor may claim.",
    async make(ctx) {
      const { run, ticketId, invoiceId, refundStepId } = await approvedThenRefused(ctx);
      await putOpenBalance(DEFAULT_DESK, invoiceId, 64950, ctx.now);
      return { ...idsOf(run, ticketId), refs: { invoiceId, refundStepId }, expect: `needs_decision; ${invoiceId} covers the $600.00 refund again, so approving it again succeeds` };
    },
  },
  "imported-tool-run": {
    description: "A tool imported from an MCP tools/list (print_label) allowed for the demo agent, in a run waiting for review.",
    async make(ctx) {
      const admin = await ctx.person("usr_admin");
      const payload = {
        tools: [{ name: "print_label", title: "Print label", description: "Prints shipping labels at the depot.", inputSchema: { type: "object", properties: { shipmentId: { type: "string" }, copies: { type: "integer", minimum: 1, maximum: 10 } }, required: ["shipmentId", "copies"] } }],
      };
      await importToolsAsAdmin(admin, { source: "mcp_tools_list", label: "scenario imported-tool-run", payload });
      const agentRow = await prisma.agent.findUniqueOrThrow({ where: { id: DEMO_AGENT_ID } });
      const allowed = [...new Set([...(agentRow.allowedTools as string[]), "print_label"])];
      await setAgentAllowedTools(admin, DEMO_AGENT_ID, allowed);
      const copy = await freshCopyOf({ desk: DEFAULT_DESK, ticket: "74991", shipments: ["sh_5521"] }, ctx.now);
      const steps: StepInput[] = [{ id: "st_label", tool: "print_label", args: { shipmentId: copy.ids.sh_5521, copies: 2 } }];
      const { run } = await submitFor({ ...ctx, agent: { ...ctx.agent, allowedTools: allowed } }, copy.taskId, steps);
      return { ...idsOf(run, copy.ticketId), refs: { tool: "print_label" }, expect: "pending_review; the step's form comes from the imported JSON Schema; effect unknown" };
    },
  },
  "second-desk": {
    description: "A fresh run on the retail desk (ticket #81001, its own agent and operator retail@plandesk.test): a freight operator neither sees nor reaches it.",
    async make(ctx) {
      const agentRow = await prisma.agent.findUnique({ where: { id: DEMO_RETAIL_AGENT_ID } });
      if (!agentRow) throw new DomainError("not_found", "The retail desk is not seeded (npm run db:seed).");
      const agent: AgentCaller = { id: agentRow.id, name: agentRow.name, allowedTools: agentRow.allowedTools as string[], keyId: "key_demo_retail", desk: RETAIL_DESK.id };
      const plan = await freshPlan(ctx, "retail-81001", { invoices: ["in_81001"] }, RETAIL_DESK.id);
      const { run } = await submitFor({ ...ctx, agent }, plan.taskId, plan.steps);
      return { ...idsOf(run, plan.ticketId), refs: { desk: RETAIL_DESK.id, operator: "retail@plandesk.test", agentKey: "pd_demo_retail_agent_key" }, expect: "pending_review on the retail desk; 404 for a freight operator" };
    },
  },
} satisfies Record<string, ScenarioDefinition>;

/**
 * A fresh copy of Baltic Reefer Lines' customs-hold ticket (#75003, about storage fees) and of its
 * invoice in_74203 ($649.50 open), so no other run holds money on the invoice or plans for the
 * task; a $600.00 refund approved by Sam Senior, the open balance dropped to $100.00 through the
 * records door and the executor's claim refused: the run needs a new decision.
 */
async function approvedThenRefused(ctx: ScenarioContext) {
  const copy = await freshCopyOf(
    { desk: DEFAULT_DESK, ticket: "75003", invoices: ["in_74203"], ticketText: { subject: "Storage fees while held at Rotterdam customs", body: "Customer asks for the storage fees on in_74203 back: the shipment was held by customs." } },
    ctx.now,
  );
  const invoiceId = copy.ids.in_74203;
  const refund: StepInput = {
    id: "st_refund",
    tool: "issue_refund",
    args: { invoiceId, amount: { minor: 60000, currency: "USD" }, reason: "Storage at Rotterdam while held by customs" },
    title: "Refund the storage days",
    evidence: [{ recordType: "invoice", recordId: invoiceId }],
    risk: "Money leaves the account",
    stopCondition: "The invoice was paid or credited meanwhile",
  };
  const { run, task } = await submitFor(ctx, copy.taskId, [refund]);
  await approveAll(ctx, run.id, run.planVersion, await ctx.person("usr_senior"));
  await putOpenBalance(DEFAULT_DESK, invoiceId, 10000, ctx.now);
  await claimStep(ctx.agent, run.id, refund.id, { digest: run.steps[0].digest, taskRevision: task.revision }, null, ctx.now).catch(expectRefusal);
  return { run, ticketId: copy.ticketId, invoiceId, refundStepId: refund.id };
}

/** The account tag of the four-eyes scenario's own accounts, which its two-approver rule matches. */
const FOUR_EYES_TAG = "scenario_four_eyes";

/**
 * Adds `rule` to the live gate policy as the demo admin unless a rule of its note is there; a
 * concurrent save of the policy (another make of the same scenario) is read again, not an error.
 */
async function ensureGateRule(ctx: ScenarioContext, rule: ReturnType<typeof gateRule>) {
  const admin = await ctx.person("usr_admin");
  for (let attempt = 0; ; attempt++) {
    const live = await loadGatePolicy(prisma);
    if (live.rules.some((r) => r.note === rule.note)) return;
    try {
      await saveGatePolicy(admin, { baseVersion: live.version, rules: [...live.rules.map(({ id: _id, position: _p, ...r }) => r), rule], note: "Scenario four-eyes" }, ctx.now);
      return;
    } catch (e) {
      if (!(e instanceof DomainError && e.code === "stale_policy_version") || attempt >= 5) throw e;
    }
  }
}

/** The name of a scenario, e.g. "reference-case". */
export type ScenarioName = keyof typeof SCENARIO_DEFINITIONS;

/** Every scenario with its description, in catalog order. */
export function listScenarios(): { name: ScenarioName; description: string }[] {
  return (Object.keys(SCENARIO_DEFINITIONS) as ScenarioName[]).map((name) => ({ name, description: SCENARIO_DEFINITIONS[name].description }));
}

/** True when `name` names a scenario (own key; "constructor" is not one). */
export function isScenarioName(name: string): name is ScenarioName {
  return Object.prototype.hasOwnProperty.call(SCENARIO_DEFINITIONS, name);
}

/**
 * Makes the scenario `name` on the demo desk (which must be seeded) at `now` (UTC) and returns the
 * ids it made. Errors: 404 `not_found` for an unknown name or a demo desk that is not seeded; any
 * refusal of the services it calls surfaces unchanged (a scenario never half-hides a failure).
 */
export async function makeScenario(name: string, now = new Date()): Promise<ScenarioResult> {
  if (!isScenarioName(name)) throw new DomainError("not_found", `There is no scenario "${name}". GET /api/demo/scenarios lists them.`);
  const agentRow = await prisma.agent.findUnique({ where: { id: DEMO_AGENT_ID } });
  if (!agentRow) throw new DomainError("not_found", "The demo desk is not seeded (npm run db:seed).");
  const people = new Map<string, Viewer>();
  const ctx: ScenarioContext = {
    now,
    agent: { id: DEMO_AGENT_ID, name: agentRow.name, allowedTools: [...((agentRow.allowedTools as string[] | null) ?? DEMO_AGENT_TOOLS)], keyId: "key_demo" },
    async person(id) {
      const known = people.get(id) ?? (await loadViewer(id));
      if (!known) throw new DomainError("not_found", `The demo user ${id} is missing (npm run db:seed).`);
      people.set(id, known);
      return known;
    },
  };
  return { scenario: name, ...(await SCENARIO_DEFINITIONS[name].make(ctx)) };
}

/** A refusal the scenario provokes on purpose (e.g. the stale-task stop); anything else is rethrown. */
function expectRefusal(e: unknown): void {
  if (!(e instanceof DomainError)) throw e;
}

/** A plan whose steps all need a person (so it waits): the seeded note plus a reply on the same ticket. */
function withoutAutoOnly(steps: StepInput[], ticketId: string): StepInput[] {
  return [...steps, { id: "st_reply", tool: "send_reply", args: { ticketId, body: "Thanks, we have updated the delivery contact." } }];
}
