import { z } from "zod";
import { planSchema, stepIdSchema, stepSchema, type Plan, type Step } from "../plan/schema";
import { canonicalJson } from "../plan/canonical-json";
import { builtinCatalog, type ToolCatalog } from "../tools/versioned-catalog";
import { nearest } from "../text/confusables";
import type { StepView, ValidationIssue } from "./types";
import { mapZodIssues } from "./zod-issues";
import { checkReadsShape } from "../reads/check-reads";
import type { ReadStep } from "../reads/schema";

/** What the shape stage hands to the rest of the pipeline. */
export interface ShapeOutcome {
  issues: ValidationIssue[];
  /** One view per element of `plan.steps`, or `null` when `steps` is not a list at all. */
  steps: StepView[] | null;
  /** The parsed plan, only when the whole plan passed the shape stage. */
  plan?: Plan;
  /** The parsed read steps (`plan.reads`), when every one passed its shape (`[]` when the plan has none). */
  reads?: ReadStep[];
}

/** The plan envelope with `steps` left unparsed so each step is checked on its own. */
const envelopeSchema = z
  .object({
    version: planSchema.shape.version,
    steps: z.array(z.unknown(), { error: (i) => (i.input === undefined ? "Steps are required" : "Steps must be a list") }),
    reads: z.unknown().optional(),
  })
  .strict();

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function isJson(v: unknown): boolean {
  try {
    canonicalJson(v);
    return true;
  } catch {
    return false;
  }
}

/**
 * Stage 1, *shape* (docs/design.md §1.1): the plan envelope `{version, steps}` (lib/plan/schema.ts),
 * each step `{id, tool, args, provenance?, author?}`, and each step's `args` against its tool's
 * strict zod schema — the built-in tool's, or an imported tool's from `catalog` (its JSON
 * Schema converted, lib/tools/json-schema-tool.ts). Unknown fields and wrong types are errors, never dropped. Every step is
 * checked independently so ALL problems are reported. Codes: `invalid_plan`, `invalid_step`,
 * `unknown_tool`, `invalid_json_value`, plus the zod-derived codes of ./zod-issues.ts.
 * Never throws.
 */
export function checkShape(input: unknown, catalog: ToolCatalog = builtinCatalog): ShapeOutcome {
  if (!isPlainObject(input)) {
    return {
      issues: [
        {
          stage: "shape",
          code: "invalid_plan",
          severity: "error",
          message: `A plan must be an object {version, steps}, not ${Array.isArray(input) ? "a list" : input === null ? "null" : typeof input}`,
        },
      ],
      steps: null,
    };
  }
  const issues: ValidationIssue[] = [];
  const env = envelopeSchema.safeParse(input, { reportInput: true });
  if (!env.success) issues.push(...mapZodIssues(env.error.issues, { stage: "shape", prefix: [] }));
  if (!Array.isArray(input.steps)) return { issues, steps: null };

  const views = input.steps.map((raw, index) => checkStep(raw, index, issues, catalog));
  // The reads the agent made (lib/reads): checked apart from the write steps, paths "reads.K".
  const reads = checkReadsShape(input.reads);
  issues.push(...reads.issues);
  if (issues.length > 0 || !env.success) return { issues, steps: views, reads: reads.reads };
  const plan: Plan = { version: env.data.version, steps: views.map((v) => v.step as Step), ...(input.reads !== undefined ? { reads: reads.reads } : {}) };
  return { issues, steps: views, plan, reads: reads.reads };
}

function checkStep(raw: unknown, index: number, issues: ValidationIssue[], catalog: ToolCatalog): StepView {
  const path = `steps.${index}`;
  const view: StepView = { index, path, shapeOk: false };
  if (!isPlainObject(raw)) {
    issues.push({
      stage: "shape",
      code: "invalid_step",
      severity: "error",
      path,
      message: `Step ${index + 1} must be an object {id, tool, args}`,
    });
    return view;
  }
  if (typeof raw.id === "string") {
    view.rawId = raw.id;
    if (stepIdSchema.safeParse(raw.id).success) view.id = raw.id;
  }
  const stepId = view.id !== undefined ? { stepId: view.id } : {};
  const before = issues.length;

  const env = stepSchema.safeParse(raw, { reportInput: true });
  if (!env.success) issues.push(...mapZodIssues(env.error.issues, { stage: "shape", prefix: ["steps", index], ...stepId }));
  issues.push(...checkProvenanceKeys(raw, path, stepId));

  if (typeof raw.tool === "string") {
    view.tool = catalog.get(raw.tool);
    if (!view.tool) {
      const hint = nearest(raw.tool, catalog.names());
      issues.push({
        stage: "shape",
        code: "unknown_tool",
        severity: "error",
        ...stepId,
        path: `${path}.tool`,
        message: `Unknown tool ${JSON.stringify(raw.tool)}${hint ? ` — did you mean ${hint.id}?` : ""}`,
        details: { tool: raw.tool, ...(hint ? { suggestion: hint.id } : {}) },
      });
    }
  }
  if (isPlainObject(raw.args)) view.rawArgs = raw.args;

  let args: Record<string, unknown> | undefined;
  if (view.tool && isPlainObject(raw.args)) {
    const parsed = view.tool.argsSchema.safeParse(raw.args, { reportInput: true });
    if (parsed.success) args = parsed.data as Record<string, unknown>;
    else
      issues.push(
        ...mapZodIssues(parsed.error.issues, {
          stage: "shape",
          prefix: ["steps", index, "args"],
          labelPrefix: ["args"],
          fields: view.tool.fields,
          ...stepId,
        }),
      );
  }

  if (!isJson(raw)) {
    issues.push({
      stage: "shape",
      code: "invalid_json_value",
      severity: "error",
      ...stepId,
      path,
      message: `Step ${index + 1} contains a value that is not valid JSON (NaN, Infinity, a lone surrogate character or a cycle)`,
    });
  }

  if (issues.length === before && env.success && view.tool && args && view.id !== undefined) {
    view.shapeOk = true;
    view.step = { ...env.data, args };
  }
  return view;
}

/**
 * Provenance names arguments: every key of `provenance` must be an argument of the step (or a
 * dotted path into one, e.g. "window.from"). Checked on the raw object, because a record schema
 * silently drops a "__proto__" key, and an origin recorded for no argument is never dropped
 * silently (docs/design.md §3). Code `unknown_field` (error).
 */
function checkProvenanceKeys(raw: Record<string, unknown>, path: string, stepId: { stepId?: string }): ValidationIssue[] {
  const prov = raw.provenance;
  if (!isPlainObject(prov)) return [];
  const args = isPlainObject(raw.args) ? raw.args : {};
  const out: ValidationIssue[] = [];
  for (const key of Object.keys(prov)) {
    const head = key.split(".")[0];
    if (!Object.prototype.hasOwnProperty.call(args, head)) {
      out.push({
        stage: "shape",
        code: "unknown_field",
        severity: "error",
        ...stepId,
        path: `${path}.provenance.${key}`,
        message: `Provenance is recorded for ${JSON.stringify(key)}, which is not an argument of this step`,
      });
    }
  }
  return out;
}
