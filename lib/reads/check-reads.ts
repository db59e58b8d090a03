import type { AccountSnapshot } from "../desk/snapshot";
import { accountIdOf, describeRecord, notFoundPhrase } from "../desk/lookup";
import { canonicalJson } from "../plan/canonical-json";
import type { ValidationIssue } from "../validation/types";
import { mapZodIssues } from "../validation/zod-issues";
import { fieldLabel, getReadTool, readToolNames, showObserved } from "./catalog";
import { readArgsSchema } from "./args-schemas";
import { observedDigest } from "./digest";
import { MAX_PLAN_READS, readStepSchema, type ReadStep } from "./schema";

/** What the read checks hand back: issues, and the parsed read steps when every one passed its shape. */
export interface ReadsOutcome {
  issues: ValidationIssue[];
  reads?: ReadStep[];
}

/**
 * The shape of `plan.reads` (untrusted JSON; absent is no reads): a list of at most
 * MAX_PLAN_READS read steps (./schema.ts), each with a read tool of the catalog
 * (`unknown_read_tool`, error) and that tool's arguments (its strict zod schema; the shape
 * codes of lib/validation/zod-issues.ts). Paths are `reads.K…`. Stage `shape`. Pure.
 */
export function checkReadsShape(raw: unknown): ReadsOutcome {
  if (raw === undefined) return { issues: [], reads: [] };
  if (!Array.isArray(raw)) return { issues: [{ stage: "shape", code: "invalid_type", severity: "error", path: "reads", message: "Reads must be a list of read steps" }] };
  const issues: ValidationIssue[] = [];
  if (raw.length > MAX_PLAN_READS) issues.push({ stage: "shape", code: "too_big", severity: "error", path: "reads", message: `A plan carries at most ${MAX_PLAN_READS} reads; this one has ${raw.length}` });
  const reads: ReadStep[] = [];
  raw.forEach((r, k) => {
    const parsed = readStepSchema.safeParse(r, { reportInput: true });
    const stepId = typeof (r as { id?: unknown } | null)?.id === "string" ? { stepId: (r as { id: string }).id } : {};
    if (!parsed.success) {
      issues.push(...mapZodIssues(parsed.error.issues, { stage: "shape", prefix: ["reads", k], ...stepId }));
      return;
    }
    const tool = getReadTool(parsed.data.tool);
    if (!tool) {
      issues.push({ stage: "shape", code: "unknown_read_tool", severity: "error", ...stepId, path: `reads.${k}.tool`, message: `Unknown read tool ${JSON.stringify(parsed.data.tool)}: Plandesk knows ${readToolNames.join(", ")}` });
      return;
    }
    const args = readArgsSchema(tool.name)!.safeParse(parsed.data.args, { reportInput: true });
    if (!args.success) {
      issues.push(...mapZodIssues(args.error.issues, { stage: "shape", prefix: ["reads", k, "args"], ...stepId }));
      return;
    }
    reads.push({ ...parsed.data, args: args.data as Record<string, unknown> });
  });
  return issues.length > 0 ? { issues } : { issues, reads };
}

const same = (a: unknown, b: unknown) => {
  try {
    return canonicalJson(a) === canonicalJson(b);
  } catch {
    return false;
  }
};

/**
 * Plandesk re-reads every read step's record from the account snapshot and says when the world
 * moved since the agent looked (task-contract stage, warnings, path `reads.K`):
 * - `read_outdated`: a field the agent says it saw differs from the record now ("The agent saw
 *   an open balance of $2,120.00; it is $1,200.00 now"), the agent's digest does not match the
 *   record now, or the record it read does not exist;
 * - `read_other_account`: the record belongs to another account than the task's.
 * A failed read is not compared (it saw nothing); a field the read tool does not know is ignored.
 * Duplicate ids among reads, and between reads and write steps (`writeIds`), are
 * `duplicate_step_id` (structure, error). Pure.
 */
export function checkReads(reads: readonly ReadStep[], desk: AccountSnapshot, writeIds: readonly string[] = []): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  const seen = new Set<string>(writeIds);
  reads.forEach((r, k) => {
    const path = `reads.${k}`;
    if (seen.has(r.id)) issues.push({ stage: "structure", code: "duplicate_step_id", severity: "error", stepId: r.id, path: `${path}.id`, message: `Step id ${JSON.stringify(r.id)} is used twice (read steps and write steps share one set of ids)` });
    seen.add(r.id);
    const tool = getReadTool(r.tool);
    if (!tool) return;
    const recordId = tool.recordId(r.args);
    const now = tool.observe(desk, recordId);
    const base = { stage: "task_contract" as const, severity: "warning" as const, stepId: r.id, path };
    if (!now) {
      issues.push({ ...base, code: "read_outdated", message: `The agent read ${describeRecord(tool.kind, recordId)}, which ${notFoundPhrase(desk)}`, details: { recordKind: tool.kind, recordId, reason: "not_found" } });
      return;
    }
    const owner = accountIdOf(desk, tool.kind, recordId);
    if (owner !== desk.ticket.accountId) {
      issues.push({ ...base, code: "read_other_account", message: `The agent read ${describeRecord(tool.kind, recordId)}, a record of another account than the task's`, details: { recordKind: tool.kind, recordId } });
    }
    if (r.status !== "ok") return;
    const changed: string[] = [];
    for (const [field, saw] of Object.entries(r.observed ?? {})) {
      if (!Object.prototype.hasOwnProperty.call(now, field) || same(saw, now[field])) continue;
      changed.push(field);
      issues.push({
        ...base,
        code: "read_outdated",
        path: `${path}.observed.${field}`,
        message: `The agent saw ${fieldLabel(field)} ${showObserved(field, saw, now.currency)} on ${describeRecord(tool.kind, recordId)}; it is ${showObserved(field, now[field], now.currency)} now`,
        details: { recordKind: tool.kind, recordId, field, observed: saw, current: now[field] },
      });
    }
    if (r.digest && changed.length === 0 && r.digest !== observedDigest(now)) {
      issues.push({ ...base, code: "read_outdated", path: `${path}.digest`, message: `What the agent saw of ${describeRecord(tool.kind, recordId)} (its digest) differs from the record now`, details: { recordKind: tool.kind, recordId, reason: "digest" } });
    }
  });
  return issues;
}
