import type { AccountSnapshot } from "../../desk/snapshot";
import { inSpanSync, traceGate } from "../trace/span";
import { DomainError } from "../../errors/domain-error";
import type { ReadStep } from "../../reads/schema";
import type { ToolCatalog } from "../../tools/versioned-catalog";
import { validatePlan } from "../../validation/pipeline";
import type { DeskRulesContext, GateRulesContext, TaskContractContext, ValidationContext, ValidationResult } from "../../validation/types";
import { deskRulesFor } from "../desk-rules/load-desk-rules";
import { loadAccountSnapshot } from "../account-data/load-account-snapshot";
import { prisma } from "../db/db";
import { gateRulesFor } from "../gate-policy/load-gate-policy";
import { taskContractContext } from "../tasks/task-contract";
import { catalogAt } from "../tools/imported-tools";

/** The stored run a plan context is loaded for (the columns of `run` it reads). */
export interface PlanContextRun {
  id: string;
  taskId: string;
  ticketId: string;
  agentId: string;
  desk: string;
  accountId: string;
  catalogVersion: number | null;
  policyVersion: number | null;
  boundTaskRevision: number;
}

/**
 * Everything "check this plan against live data" reads for one stored run, loaded once: the task
 * as it stands (revision, text, contract), the run's agent (allowlist and the tools its executor
 * runs), the live account records the steps name (`desk`), the tool catalog version the run was
 * made under, the gate-policy rules that govern it, the task-contract context of its desk and the
 * desk's enabled desk rules (stage `desk_rule`, the rules in force now).
 */
export interface PlanContext {
  task: { revision: number; body: string; contract: unknown; textParts: unknown };
  agent: { allowedTools: string[]; executesTools: unknown };
  desk: AccountSnapshot;
  catalog: ToolCatalog;
  gateRules: GateRulesContext;
  taskContract: TaskContractContext;
  deskRules: DeskRulesContext;
}

/**
 * Loads the {@link PlanContext} of a run waiting for a decision, for an edit, a discarded edit or
 * an approval (docs/design.md, "The chain": every decision is checked against the task as it
 * stands now and live data). First refuses a run whose task was revised since the plan was bound:
 * no decision on it can make it current.
 *
 * - `steps`, `reads`: the steps whose records are loaded (an edit passes its base and its
 *   candidate, not yet parsed, so both can be compared) and what the agent read.
 * - `action`: what the decision would do, in the refusal's words ("edited", "approved").
 * - `policy`: `"live"` — a new plan version is gated under the live gate policy (edit, discard);
 *   `"recorded"` — the approval of a stored version follows the policy version the run records
 *   (null: the built-in defaults).
 * - `now`: UTC instant the account snapshot is taken at.
 *
 * Errors: 409 `stale_task` {boundRevision, liveRevision}.
 */
export async function loadPlanContext(
  run: PlanContextRun,
  opts: { steps: Parameters<typeof loadAccountSnapshot>[0]["steps"]; reads: ReadStep[]; now: Date; policy: "live" | "recorded"; action: string },
): Promise<PlanContext> {
  const task = await prisma.task.findUniqueOrThrow({ where: { id: run.taskId }, select: { revision: true, body: true, contract: true, textParts: true } });
  if (task.revision !== run.boundTaskRevision) {
    throw new DomainError(
      "stale_task",
      `The task changed since this plan was made (plan bound to revision ${run.boundTaskRevision}, task now at ${task.revision}); it cannot be ${opts.action}. Reject it so the agent can plan again.`,
      { boundRevision: run.boundTaskRevision, liveRevision: task.revision },
    );
  }
  return loadContextOfTask(run, task, opts);
}

/**
 * The {@link PlanContext} of a stored run against its task as it stands, whatever revision the plan
 * was bound to: for replaying a stored plan under another gate policy (the gate-policy dry-run),
 * which decides nothing. `opts` as for {@link loadPlanContext}. No refusal of its own.
 */
export async function loadReplayContext(run: PlanContextRun, opts: { steps: Parameters<typeof loadAccountSnapshot>[0]["steps"]; reads: ReadStep[]; now: Date; policy: "live" | "recorded" }): Promise<PlanContext> {
  const task = await prisma.task.findUniqueOrThrow({ where: { id: run.taskId }, select: { revision: true, body: true, contract: true, textParts: true } });
  return loadContextOfTask(run, task, opts);
}

/** The rest of a plan context once its task is read (the shared part of the two loaders above). */
async function loadContextOfTask(
  run: PlanContextRun,
  task: PlanContext["task"],
  opts: { steps: Parameters<typeof loadAccountSnapshot>[0]["steps"]; reads: ReadStep[]; now: Date; policy: "live" | "recorded" },
): Promise<PlanContext> {
  // the catalog first: its bound tools say which declared records the snapshot reads
  const catalog = await catalogAt(run.catalogVersion);
  const [desk, agent, gateRules, taskContract, deskRules] = await Promise.all([
    loadAccountSnapshot({ ticketId: run.ticketId, desk: run.desk, steps: opts.steps, reads: opts.reads, now: opts.now, catalog }),
    prisma.agent.findUniqueOrThrow({ where: { id: run.agentId }, select: { allowedTools: true, executesTools: true } }),
    gateRulesFor(prisma, { desk: run.desk, accountId: run.accountId }, opts.policy === "live" ? undefined : (run.policyVersion ?? 0)),
    taskContractContext(prisma, task, run.desk),
    deskRulesFor(prisma, run.desk),
  ]);
  return {
    task,
    agent: { allowedTools: Array.isArray(agent.allowedTools) ? (agent.allowedTools as string[]) : [], executesTools: agent.executesTools },
    desk,
    catalog,
    gateRules,
    taskContract,
    deskRules: { rules: deskRules },
  };
}

/**
 * Runs the one validator (lib/validation/pipeline.ts) over `plan` in a loaded {@link PlanContext},
 * for run `runId` at `now` (UTC). `extra` adds what only some decisions have: the editor and the
 * base plan of an edit (authorship is then checked). Pure over the context; traced as a `validate`
 * span with its gate stage as a `gate` child (lib/server/trace/span.ts).
 */
export function checkPlan(
  plan: Parameters<typeof validatePlan>[0],
  ctx: PlanContext,
  runId: string,
  now: Date,
  extra: Pick<ValidationContext, "editor" | "basePlan"> = {},
): ValidationResult {
  return inSpanSync("validate", () => validatePlan(plan, {
    desk: ctx.desk,
    now,
    runId,
    taskText: ctx.task.body,
    agentAllowedTools: ctx.agent.allowedTools,
    catalog: ctx.catalog,
    gateRules: ctx.gateRules,
    task: ctx.taskContract,
    deskRules: ctx.deskRules,
    observeGate: traceGate,
    ...extra,
  }));
}
