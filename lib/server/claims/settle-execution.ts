import type { RunStatus } from "../../lifecycle/run-state";
import { appendAudit } from "../audit-log/append-audit";
import { moveRun } from "../lifecycle/run-lifecycle";
import { storedSteps } from "../plans/stored-plan";
import type { Tx } from "../db/transaction";
import { isOutstanding, outcomeOf } from "./execution-view";
import { moveApprovals } from "../lifecycle/approval-lifecycle";

/**
 * Settles an `executing` run from its claims (docs/design.md §9), through the run lifecycle:
 * any step failed → `fail`; every step of the approved version succeeded → `complete`;
 * a claim or an `unknown` outcome still open → stays `executing` (an `unknown` waits for a
 * person); otherwise, when the deadline (UTC `now`) has passed with steps never claimed →
 * `expire_unclaimed` (their approvals expire too, audited `expired`); else stays `executing`.
 * Returns the run's status afterwards (unchanged when it was not executing).
 */
export async function settleExecution(tx: Tx, runId: string, now: Date): Promise<RunStatus> {
  const run = await tx.run.findUniqueOrThrow({
    where: { id: runId },
    select: { status: true, expiresAt: true, planVersion: true, approvedVersion: true, executions: true, planVersions: { select: { version: true, steps: true } } },
  });
  if (run.status !== "executing") return run.status as RunStatus;
  const version = run.approvedVersion ?? run.planVersion;
  const steps = storedSteps(run.planVersions.find((p) => p.version === version)?.steps);
  const byStep = new Map(run.executions.map((e) => [e.stepId, e]));
  if (run.executions.some((e) => outcomeOf(e) === "failed")) {
    return (await moveRun(tx, runId, "fail")) ? "failed" : "executing";
  }
  if (steps.length > 0 && steps.every((s) => byStep.has(s.id) && outcomeOf(byStep.get(s.id)!) === "succeeded")) {
    return (await moveRun(tx, runId, "complete")) ? "completed" : "executing";
  }
  if (run.executions.some(isOutstanding) || run.expiresAt.getTime() > now.getTime()) return "executing";
  if (!(await moveRun(tx, runId, "expire_unclaimed"))) return "executing";
  const expired = await moveApprovals(tx, "expire", { runId });
  await appendAudit(tx, {
    runId,
    type: "expired",
    actor: { kind: "system" },
    data: { at: now.toISOString(), while: "executing", approvalsExpired: expired, unclaimedStepIds: steps.filter((s) => !byStep.has(s.id)).map((s) => s.id) },
  });
  return "expired";
}
