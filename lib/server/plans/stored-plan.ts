import { stepSchema, type Step, type StepReasonKey } from "../../plan/schema";
import { readStepSchema, type ReadStep } from "../../reads/schema";
import type { GateDecision, ValidationIssue } from "../../validation/types";
import { LRUCache } from "lru-cache";
import type { DbOrTx } from "../db/transaction";

/**
 * A plan version as the database stores it (`plan_version.steps`, `.reads`, `.validation`) read
 * back into typed values, and the facts of a plan the run row carries. Every service that reads a
 * stored plan goes through these (docs/design.md, "The plan"): a corrupted entry is dropped, never
 * shown or executed.
 */

/** The validation stored with a plan version: every issue and the gate decision per step id. */
export interface StoredValidation {
  issues: ValidationIssue[];
  gate: Record<string, GateDecision>;
  /** What the gate policy asked of each step; absent on plan versions stored before it. */
  requirements?: Record<string, StoredRequirement>;
}

/** One step's requirement as a plan version stores it (lib/gate-policy/evaluate.ts `GateRequirement`, trimmed). */
export interface StoredRequirement {
  approvalsRequired: number;
  authorMayApprove: boolean;
  policyVersion: number;
  ruleId: string | null;
  /** The step fields the rule requires (absent: none, or stored before rules could require fields). */
  requiredFields?: StepReasonKey[];
  /** The rule's record-age bound in minutes (absent: none, or stored before rules could bound it). */
  maxRecordAgeMinutes?: number | null;
  /** True: approving the step needs the approver's signature (absent: not required, or stored before rules could require it). */
  requireSignature?: boolean;
}

/** The stored form of requirements: per step id, what the rule asked. */
export function toStoredRequirements(reqs: Record<string, StoredRequirement>): Record<string, StoredRequirement> {
  return Object.fromEntries(
    Object.entries(reqs).map(([id, r]) => [id, { approvalsRequired: r.approvalsRequired, authorMayApprove: r.authorMayApprove, policyVersion: r.policyVersion, ruleId: r.ruleId, ...(r.requiredFields?.length ? { requiredFields: r.requiredFields } : {}), ...(r.maxRecordAgeMinutes ? { maxRecordAgeMinutes: r.maxRecordAgeMinutes } : {}), ...(r.requireSignature ? { requireSignature: true } : {}) }]),
  );
}

/**
 * Stored steps JSON back into `Step[]`. Steps are written only after the validator parsed them,
 * so each entry passes `stepSchema`; an entry that does not (a corrupted row) is dropped rather
 * than shown or executed.
 */
export function storedSteps(json: unknown): Step[] {
  if (!Array.isArray(json)) return [];
  return json.flatMap((s) => {
    const parsed = stepSchema.safeParse(s);
    return parsed.success ? [parsed.data] : [];
  });
}

/** Parsed steps of plan versions, by `plan_version.id` (random; a stored version never changes, and a demo reset that restores its snapshot brings an id back only with the same steps). */
const stepsByVersionId = new LRUCache<string, readonly Step[]>({ max: 2_000 });

/**
 * The steps of the plan version with id `planVersionId` (`storedSteps` of its stored column),
 * read and parsed once per process: a plan version is immutable once stored (docs/design.md,
 * "The plan": an edit stores a new version), so its parsed steps are kept in a bounded cache
 * (2,000 versions) keyed by the row's id — never by the run or version number, which a demo
 * reset may give to another plan. Unknown id (or null): `[]`. The array and its steps are
 * shared: callers must not mutate them.
 */
export async function planStepsById(db: DbOrTx, planVersionId: string | null | undefined): Promise<readonly Step[]> {
  if (!planVersionId) return [];
  const hit = stepsByVersionId.get(planVersionId);
  if (hit) return hit;
  const row = await db.planVersion.findUnique({ where: { id: planVersionId }, select: { steps: true } });
  if (!row) return [];
  const steps = storedSteps(row.steps);
  stepsByVersionId.set(planVersionId, steps);
  return steps;
}

/**
 * Stored read steps JSON (`plan_version.reads`) back into `ReadStep[]` (lib/reads/schema.ts);
 * null or a corrupted entry reads as no read. What the agent read; never approved or claimed.
 */
export function storedReads(json: unknown): ReadStep[] {
  if (!Array.isArray(json)) return [];
  return json.flatMap((r) => {
    const parsed = readStepSchema.safeParse(r);
    return parsed.success ? [parsed.data] : [];
  });
}

/** Stored validation JSON back into `{issues, gate}` (missing parts are empty). */
export function storedValidation(json: unknown): StoredValidation {
  const v = (json ?? {}) as Partial<StoredValidation>;
  const out: StoredValidation = { issues: Array.isArray(v.issues) ? v.issues : [], gate: v.gate && typeof v.gate === "object" ? v.gate : {} };
  if (v.requirements && typeof v.requirements === "object") out.requirements = v.requirements;
  return out;
}

/**
 * The facts of a plan version that the run row carries so lists count in SQL:
 * `{stepCount, gatedCount (steps needing a person's approval), warningCount}`.
 */
export function planFacts(steps: readonly { id: string }[], validation: StoredValidation) {
  return {
    stepCount: steps.length,
    gatedCount: steps.filter((s) => validation.gate[s.id] !== "auto").length,
    warningCount: validation.issues.filter((i) => i.severity === "warning").length,
  };
}
