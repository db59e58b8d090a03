import type { ToolCatalog } from "../tools/versioned-catalog";
import type { ToolDefinition } from "../tools/types";
import type { ValidationIssue } from "../validation/types";

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
const RECORD_KINDS = ["invoice", "shipment", "ticket", "account"] as const;

/** An agent's submission split into write steps and read steps, with the issues found doing it. */
export interface AgentPlanParts {
  /** Write steps, `reads`/`writes` folded away (see {@link splitAgentPlan}). */
  steps: unknown[];
  /** Read steps (`kind: "read"` entries of `steps`, then the body's own `reads`), or undefined when there are none. */
  reads: unknown[] | undefined;
  issues: ValidationIssue[];
  /**
   * Rewrites the paths of issues about the split plan ("steps.N" among the writes, "reads.K")
   * back to where the agent put each entry ("steps.M" of what it sent, or "reads.J").
   */
  pathsAsSent(issues: ValidationIssue[]): ValidationIssue[];
}

/** The record a tool call declares it writes: its first id argument (`invoiceId`, `shipmentId`, `ticketId`, `accountId`). */
export function declaredWriteTarget(tool: ToolDefinition, args: unknown): { kind: string; id: string } | null {
  if (!isObject(args)) return null;
  for (const f of tool.fields) {
    const kind = RECORD_KINDS.find((k) => f.kind === `${k}_id`);
    if (kind && typeof args[f.name] === "string") return { kind, id: args[f.name] as string };
  }
  return null;
}

/**
 * An agent's plan as sent → the plan Plandesk validates and stores. Pure; raw input tolerated.
 * - An entry of `steps` with `kind: "read"` is a read step: it moves to `reads` (order kept,
 *   before the body's own `reads`). Write steps carry no `kind`.
 * - A write step's `reads: string[]` (a plan step's typed reads) names what it rests on: each entry
 *   is a read step id of the plan, or a record as "kind:id" ("invoice:in_74119"); it is added to
 *   the step's `evidence` (`{readStepId}` or `{recordType, recordId}`), and `reads` is removed.
 *   Anything else is `invalid_value` (shape, error).
 * - A write step's `writes: string[]` says what it writes: each entry ("kind:id" or a bare id) must
 *   be the tool's declared write target (its first id argument); otherwise `undeclared_write`
 *   (task contract, error: a plan never writes more than its tools declare). `writes` is removed —
 *   the tool's target is what the step writes.
 */
export function splitAgentPlan(rawSteps: readonly unknown[], rawReads: readonly unknown[] | undefined, catalog: ToolCatalog): AgentPlanParts {
  const steps: unknown[] = [];
  const reads: unknown[] = [];
  const stepOrigin: number[] = [];
  const readOrigin: string[] = [];
  rawSteps.forEach((raw, i) => {
    if (isObject(raw) && raw.kind === "read") {
      reads.push(raw);
      readOrigin.push(`steps.${i}`);
    } else {
      steps.push(raw);
      stepOrigin.push(i);
    }
  });
  (rawReads ?? []).forEach((r, j) => {
    reads.push(r);
    readOrigin.push(`reads.${j}`);
  });
  const readIds = new Set(reads.flatMap((r) => (isObject(r) && typeof r.id === "string" ? [r.id] : [])));
  const issues: ValidationIssue[] = [];
  const folded = steps.map((raw, n) => {
    if (!isObject(raw) || (!("reads" in raw) && !("writes" in raw))) return raw;
    const { reads: stepReads, writes, ...rest } = raw;
    const path = `steps.${stepOrigin[n]}`;
    const stepId = typeof raw.id === "string" ? { stepId: raw.id } : {};
    const out: Record<string, unknown> = { ...rest };
    if (stepReads !== undefined) {
      const evidence = Array.isArray(rest.evidence) ? [...rest.evidence] : [];
      if (!Array.isArray(stepReads)) {
        issues.push({ stage: "shape", code: "invalid_type", severity: "error", ...stepId, path: `${path}.reads`, message: "reads must be a list of read step ids or records (\"invoice:in_74119\")" });
      } else {
        stepReads.forEach((entry, k) => {
          const ref = typeof entry === "string" ? referenceOf(entry, readIds) : null;
          if (ref) evidence.push(ref);
          else issues.push({ stage: "shape", code: "invalid_value", severity: "error", ...stepId, path: `${path}.reads.${k}`, message: `${JSON.stringify(entry)} is neither a read step of this plan nor a record written "kind:id" (e.g. "invoice:in_74119")` });
        });
      }
      out.evidence = evidence;
    }
    if (writes !== undefined) {
      const tool = typeof raw.tool === "string" ? catalog.get(raw.tool) : undefined;
      const target = tool ? declaredWriteTarget(tool, raw.args) : null;
      const list = Array.isArray(writes) ? writes : [writes];
      list.forEach((w, k) => {
        const [kind, id] = typeof w === "string" && w.includes(":") ? w.split(/:(.*)/s) : [undefined, w];
        const ok = target !== null && typeof id === "string" && id === target.id && (kind === undefined || kind === target.kind);
        if (!ok && tool) {
          issues.push({
            stage: "task_contract",
            code: "undeclared_write",
            severity: "error",
            ...stepId,
            path: `${path}.writes.${k}`,
            message: `Step ${stepOrigin[n] + 1} says it writes ${JSON.stringify(w)}, but ${tool.name} writes ${target ? `${target.kind} ${target.id}` : "no record"} (its declared target); a step writes only what its tool declares`,
            details: { declared: target, writes: w },
          });
        }
      });
    }
    return out;
  });
  const pathsAsSent = (list: ValidationIssue[]) =>
    list.map((i) => {
      if (!i.path) return i;
      const m = /^(steps|reads)\.(\d+)(.*)$/.exec(i.path);
      if (!m) return i;
      const at = Number(m[2]);
      const to = m[1] === "steps" ? (stepOrigin[at] !== undefined ? `steps.${stepOrigin[at]}` : undefined) : readOrigin[at];
      return to ? { ...i, path: `${to}${m[3]}` } : i;
    });
  return { steps: folded, reads: reads.length > 0 ? reads : undefined, issues, pathsAsSent };
}

function referenceOf(entry: string, readIds: Set<string>): Record<string, string> | null {
  if (readIds.has(entry)) return { readStepId: entry };
  const m = /^(invoice|shipment|ticket|account):(.+)$/.exec(entry);
  return m && m[2].length <= 128 ? { recordType: m[1], recordId: m[2] } : null;
}
