import type { DryRunResult } from "../../api/gate-policy-endpoints";
import { DomainError } from "../../errors/domain-error";
import { requirementsOf } from "../../gate-policy/evaluate";
import { gatePolicyDryRunSchema, type GatePolicy } from "../../gate-policy/rules";
import type { Money } from "../../money/format-money";
import { describeGateAnswer } from "../../validation/gate-answer";
import { prisma } from "../db/db";
import { checkPlan, loadReplayContext } from "./plan-context";
import { storedReads, storedSteps } from "../plans/stored-plan";
import { requireRole } from "../auth/require-role";
import type { Viewer } from "../auth/viewer";
import { loadGatePolicy } from "../gate-policy/load-gate-policy";

/** What a dry-run found: the API's answer (lib/api/gate-policy-endpoints.ts), declared once. */
export type { DryRunResult };
/** One step whose gating would change. */
export type DryRunStepChange = DryRunResult["changed"][number]["steps"][number];

/**
 * Dry-run of a draft gate policy: replays the current plan version of each of the
 * last `lastRuns` runs (newest first, at most MAX_DRY_RUN_RUNS, limited in SQL) under the live
 * policy and under the draft, and lists the steps the gate would answer differently. Each plan is
 * checked by the one validator (lib/validation/pipeline.ts) against its task as it stands and live
 * account data — as an approval checks it (lib/server/plan-check) — once per policy, so the answer
 * compared is the real gate's (lib/validation/gate-answer.ts `describeGateAnswer`): the decision
 * as applied (auto, one or two approvers, author allowed; never auto for a step the gate keeps for
 * a person), a step outside the task's intent or accounts refused or decided by a supervisor
 * (`allowOutsideContract` matters only for such a step), the required step fields and the date
 * horizon (a date beyond it refused). Saves nothing. Each run's tools are looked up in the catalog
 * version the run records (built-in and imported, like every later validation of that run): an
 * imported tool is evaluated with its own effect and gate, so a rule can make it `auto` unless it
 * is irreversible; a tool its catalog does not know is read as irreversible (never auto).
 * `now` (UTC) is the instant live data and date horizons are judged at.
 * Errors: 403 `forbidden` unless admin; 400 `bad_request` {issues}.
 */
export async function dryRunGatePolicy(admin: Pick<Viewer, "id" | "role">, raw: unknown, now = new Date()): Promise<DryRunResult> {
  await requireRole(admin, ["admin"], "admin.dry_run_gate_policy");
  const parsed = gatePolicyDryRunSchema.safeParse(raw);
  if (!parsed.success) {
    throw new DomainError("bad_request", parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; "), {
      issues: parsed.error.issues.map((i) => ({ path: i.path.map(String).join("."), message: i.message })),
    });
  }
  const live = await loadGatePolicy(prisma);
  const draft: GatePolicy = { version: live.version + 1, rules: parsed.data.rules.map((r, position) => ({ ...r, id: `draft_${position}`, position })) };
  const runs = await prisma.run.findMany({
    orderBy: [{ createdAt: "desc" }, { id: "desc" }],
    take: parsed.data.lastRuns,
    select: { id: true, taskId: true, ticketId: true, agentId: true, desk: true, accountId: true, planVersion: true, createdAt: true, catalogVersion: true, policyVersion: true, boundTaskRevision: true },
  });
  const versions = runs.length
    ? await prisma.planVersion.findMany({ where: { OR: runs.map((r) => ({ runId: r.id, version: r.planVersion })) }, select: { runId: true, version: true, steps: true, reads: true } })
    : [];
  const versionOf = new Map(versions.map((v) => [v.runId, v]));
  const changed: DryRunResult["changed"] = [];
  for (const run of runs) {
    const version = versionOf.get(run.id);
    const steps = storedSteps(version?.steps);
    if (!steps.length) continue;
    const reads = storedReads(version?.reads);
    const plan = { version: run.planVersion, steps, ...(reads.length ? { reads } : {}) };
    const ctx = await loadReplayContext(run, { steps, reads, now, policy: "live" });
    const under = (policy: GatePolicy) => {
      const c = { ...ctx, gateRules: { ...ctx.gateRules, policy } };
      return { requirements: requirementsOf(steps, (name) => c.catalog.get(name), c.gateRules), result: checkPlan(plan, c, run.id, now) };
    };
    const before = under(live);
    const after = under(draft);
    const diffs: DryRunStepChange[] = [];
    for (const s of steps) {
      const b = describeGateAnswer(s.id, before.requirements[s.id], before.result);
      const a = describeGateAnswer(s.id, after.requirements[s.id], after.result);
      if (a === b) continue;
      let amount: Money | null = null;
      try {
        amount = ctx.catalog.get(s.tool)?.amount(s.args as never) ?? null;
      } catch {
        amount = null;
      }
      diffs.push({ stepId: s.id, tool: s.tool, amount, before: b, after: a });
    }
    if (diffs.length) changed.push({ runId: run.id, ticketId: run.ticketId, desk: run.desk, createdAt: run.createdAt.toISOString(), steps: diffs });
  }
  return { liveVersion: live.version, runsExamined: runs.length, changed };
}
