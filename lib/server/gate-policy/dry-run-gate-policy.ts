import { DomainError } from "../../errors/domain-error";
import { requirementsOf } from "../../gate-policy/evaluate";
import { describeRequirement, gatePolicyDryRunSchema, type GatePolicy } from "../../gate-policy/rules";
import type { Money } from "../../money/money";
import type { ToolCatalog } from "../../tools/versioned-catalog";
import { prisma } from "../db/db";
import { storedSteps } from "../plans/stored-plan";
import { requireRole, type Viewer } from "../auth/session";
import { catalogAt } from "../tools/imported-tools";
import { loadGatePolicy } from "./load-gate-policy";

/** One step a draft would gate differently than the live policy. */
export interface DryRunStepChange {
  stepId: string;
  tool: string;
  amount: Money | null;
  before: string;
  after: string;
}

/** What a dry-run found: how many runs it replayed and those whose gating would change. */
export interface DryRunResult {
  liveVersion: number;
  runsExamined: number;
  changed: { runId: string; ticketId: string; desk: string; createdAt: string; steps: DryRunStepChange[] }[];
}

/**
 * Dry-run of a draft gate policy: replays the current plan version of each of the
 * last `lastRuns` runs (newest first, at most MAX_DRY_RUN_RUNS, limited in SQL) under the live
 * policy and under the draft, and lists the steps whose requirement differs: the decision (auto /
 * one / two approvers, author allowed), who decides a step outside the task contract, the required
 * step fields or the date horizon (describeRequirement). Saves nothing. Each run's tools are looked up in the catalog version
 * the run records (built-in and imported, like every later validation of that run): an imported
 * tool is evaluated with its own effect and gate, so a rule can make it `auto` unless it is
 * irreversible; a tool its catalog does not know is read as irreversible (never auto).
 * Errors: 403 `forbidden` unless admin; 400 `bad_request` {issues}.
 */
export async function dryRunGatePolicy(admin: Pick<Viewer, "id" | "role">, raw: unknown): Promise<DryRunResult> {
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
    select: { id: true, ticketId: true, desk: true, accountId: true, planVersion: true, createdAt: true, catalogVersion: true },
  });
  // One catalog per recorded version (a handful: a version is created per tool import).
  const catalogs = new Map<number | null, ToolCatalog>();
  for (const v of new Set(runs.map((r) => r.catalogVersion))) catalogs.set(v, await catalogAt(v));
  const versions = runs.length
    ? await prisma.planVersion.findMany({ where: { OR: runs.map((r) => ({ runId: r.id, version: r.planVersion })) }, select: { runId: true, steps: true } })
    : [];
  const stepsOf = new Map(versions.map((v) => [v.runId, storedSteps(v.steps)]));
  const accountIds = [...new Set(runs.map((r) => r.accountId).filter(Boolean))];
  const tags = new Map(
    (await prisma.customerAccount.findMany({ where: { id: { in: accountIds } }, select: { id: true, tags: true } })).map((a) => [
      a.id,
      Array.isArray(a.tags) ? (a.tags as unknown[]).filter((t): t is string => typeof t === "string") : [],
    ]),
  );
  const changed: DryRunResult["changed"] = [];
  for (const run of runs) {
    const steps = stepsOf.get(run.id) ?? [];
    const ctx = { desk: run.desk, accountId: run.accountId, accountTags: tags.get(run.accountId) ?? [] };
    const catalog = catalogs.get(run.catalogVersion)!;
    const lookup = (name: string) => catalog.get(name);
    const before = requirementsOf(steps, lookup, { ...ctx, policy: live });
    const after = requirementsOf(steps, lookup, { ...ctx, policy: draft });
    const diffs: DryRunStepChange[] = [];
    for (const s of steps) {
      const b = describeRequirement(before[s.id]);
      const a = describeRequirement(after[s.id]);
      if (a === b) continue;
      let amount: Money | null = null;
      try {
        amount = catalog.get(s.tool)?.amount(s.args as never) ?? null;
      } catch {
        amount = null;
      }
      diffs.push({ stepId: s.id, tool: s.tool, amount, before: b, after: a });
    }
    if (diffs.length) changed.push({ runId: run.id, ticketId: run.ticketId, desk: run.desk, createdAt: run.createdAt.toISOString(), steps: diffs });
  }
  return { liveVersion: live.version, runsExamined: runs.length, changed };
}
