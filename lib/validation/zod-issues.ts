import type { z } from "zod";
import type { FieldSpec } from "../tools/types";
import type { ValidationIssue } from "./types";

/*
 * Turns zod issues into pipeline issues with stable codes and messages a person understands.
 * Messages the schema author wrote are kept; zod's generic "Invalid input…" texts are
 * rewritten from the field's label. Source: docs/design.md §1.1 (shape stage), §2.
 */

type Segment = PropertyKey;

/** Labels of the step envelope and plan keys. */
const ENVELOPE_LABELS: Record<string, string> = {
  version: "Plan version",
  steps: "Steps",
  id: "Step id",
  tool: "Tool",
  args: "Arguments",
  provenance: "Provenance",
  author: "Author",
};

/** Sub-field names inside composite argument kinds (money, date windows, provenance…). */
const SUB_LABELS: Record<string, string> = {
  currency: "currency",
  from: "start",
  to: "end",
  kind: "kind",
  userId: "user id",
};

/** Joins a path into the pipeline's dotted form: ["steps", 2, "args", "amount"] → "steps.2.args.amount". */
export function dotted(path: readonly Segment[]): string {
  return path.map((s) => String(s)).join(".");
}

/**
 * Label for people of the value at `path` (relative to a step; envelope keys and plan keys
 * share one table), using the tool's field labels for arguments, e.g.
 * ["args", "amount", "minor"] → "Amount", ["args", "amount", "currency"] → "Amount currency",
 * ["version"] → "Plan version", [] → "The plan".
 */
export function labelFor(path: readonly Segment[], fields?: readonly FieldSpec[]): string {
  const [head, ...rest] = path.map((s) => String(s));
  if (head === "args" && rest.length > 0) {
    const field = fields?.find((f) => f.name === rest[0]);
    const base = field?.label ?? humanize(rest[0]);
    const tail = rest.slice(1).filter((s) => s !== "minor");
    return [base, ...tail.map((s) => SUB_LABELS[s] ?? humanize(s))].join(" ");
  }
  if (head === undefined) return "The plan";
  const base = ENVELOPE_LABELS[head] ?? humanize(head);
  const tail = rest.filter((s) => !/^\d+$/.test(s));
  return [base, ...tail.map((s) => SUB_LABELS[s] ?? humanize(s))].join(" ");
}

function humanize(key: string): string {
  const words = key.replace(/([a-z])([A-Z])/g, "$1 $2").replace(/_/g, " ").toLowerCase();
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/** "text", "a number"… for messages about what was sent. */
export function describeValue(v: unknown): string {
  if (v === null) return "null";
  if (Array.isArray(v)) return "a list";
  switch (typeof v) {
    case "string":
      return v.length <= 40 ? `text (${JSON.stringify(v)})` : "text";
    case "number":
      return Number.isFinite(v) ? `the number ${v}` : "a non-finite number";
    case "boolean":
      return `${v}`;
    case "object":
      return "an object";
    default:
      return typeof v;
  }
}

const EXPECTED: Record<string, string> = {
  string: "text",
  number: "a number",
  int: "a whole number",
  boolean: "true or false",
  object: "an object",
  array: "a list",
  record: "an object",
  date: "a date",
};

function isMissing(issue: { input?: unknown }, expected?: string): boolean {
  return !("input" in issue) || issue.input === undefined || issue.input === null || (issue.input === "" && expected !== "string");
}

/** "Amount is required", "Steps are required". */
function requiredMessage(label: string): string {
  return `${label} ${/[^s]s$/.test(label) ? "are" : "is"} required`;
}

/** True when zod wrote the message itself (its texts begin "Invalid" or "Too"), not the schema author. */
function isGeneric(message: string): boolean {
  return /^(Invalid|Too (big|small)|Unrecognized key|Expected)/.test(message);
}

/** Options for {@link mapZodIssues}. */
export interface MapOptions {
  stage: ValidationIssue["stage"];
  /** Prepended to each zod path, e.g. ["steps", 2] or ["steps", 2, "args"]. */
  prefix: readonly Segment[];
  stepId?: string;
  /** Argument fields of the step's tool, for labels. */
  fields?: readonly FieldSpec[];
  /** Path prefix (relative to the step) used for labels, e.g. ["args"] when mapping args issues. */
  labelPrefix?: readonly Segment[];
}

/**
 * Maps zod issues (parsed with `reportInput: true`) to pipeline issues. Codes:
 * `unknown_field` (one per unrecognized key), `missing_field` (absent, null, "" or blank),
 * `invalid_type`, `not_integer`, `not_safe_integer`, `invalid_value` (enum/union/literal),
 * `invalid_format`, `invalid_date`, `too_small`, `too_big`, or the `params.code` of a refinement.
 */
export function mapZodIssues(issues: readonly z.core.$ZodIssue[], opts: MapOptions): ValidationIssue[] {
  const out: ValidationIssue[] = [];
  const base = { stage: opts.stage, severity: "error" as const, ...(opts.stepId !== undefined ? { stepId: opts.stepId } : {}) };
  for (const issue of issues) {
    const labelPath = [...(opts.labelPrefix ?? []), ...issue.path];
    const label = labelFor(labelPath, opts.fields);
    const path = dotted([...opts.prefix, ...issue.path]);
    const keep = (fallback: string) => (isGeneric(issue.message) ? fallback : issue.message);
    switch (issue.code) {
      case "unrecognized_keys":
        for (const key of issue.keys) {
          const where = issue.path.length || opts.labelPrefix?.length ? ` in ${labelPath.length ? label : "the step"}` : "";
          out.push({
            ...base,
            code: "unknown_field",
            path: dotted([...opts.prefix, ...issue.path, key]),
            message: `Unknown field ${JSON.stringify(key)}${where}; remove it`,
            details: { field: key },
          });
        }
        break;
      case "invalid_type": {
        const expected = String(issue.expected);
        if (isMissing(issue, expected)) {
          out.push({ ...base, code: "missing_field", path, message: requiredMessage(label) });
        } else if (expected === "int" && typeof issue.input === "number") {
          out.push({ ...base, code: "not_integer", path, message: keep(`${label} must be a whole number`), details: { received: issue.input } });
        } else {
          out.push({
            ...base,
            code: "invalid_type",
            path,
            message: `${label} must be ${EXPECTED[expected] ?? expected}, not ${describeValue(issue.input)}`,
            details: { expected },
          });
        }
        break;
      }
      case "too_big":
        if (issue.origin === "int" || issue.origin === "number") {
          if (issue.maximum === Number.MAX_SAFE_INTEGER) {
            out.push({ ...base, code: "not_safe_integer", path, message: `${label} is too large to be exact (at most ${Number.MAX_SAFE_INTEGER})` });
          } else {
            out.push({ ...base, code: "too_big", path, message: keep(`${label} must be at most ${String(issue.maximum)}`) });
          }
        } else {
          out.push({ ...base, code: "too_big", path, message: keep(`${label} is too long (at most ${String(issue.maximum)})`), details: { maximum: issue.maximum } });
        }
        break;
      case "too_small":
        if ((issue.origin === "int" || issue.origin === "number") && issue.minimum === Number.MIN_SAFE_INTEGER) {
          out.push({ ...base, code: "not_safe_integer", path, message: `${label} is too small to be exact (at least ${Number.MIN_SAFE_INTEGER})` });
        } else if (issue.origin === "string" && (issue as { input?: unknown }).input === "") {
          out.push({ ...base, code: "missing_field", path, message: keep(requiredMessage(label)) });
        } else {
          out.push({ ...base, code: "too_small", path, message: keep(`${label} is too short (at least ${String(issue.minimum)})`), details: { minimum: issue.minimum } });
        }
        break;
      case "invalid_value":
        if (isMissing(issue)) {
          out.push({ ...base, code: "missing_field", path, message: requiredMessage(label) });
          break;
        }
        out.push({
          ...base,
          code: "invalid_value",
          path,
          message: keep(`${label} must be one of: ${issue.values.map((v) => String(v)).join(", ")}`),
          details: { allowed: issue.values },
        });
        break;
      case "invalid_union": {
        if (isMissing(issue)) {
          out.push({ ...base, code: "missing_field", path, message: requiredMessage(label) });
          break;
        }
        // Objects of a union of strict object shapes (e.g. evidence: a record or a read step): when
        // exactly one option has no unknown field at the union's own level, the input is meant as
        // that option — report its problems, at their own paths.
        const options = "errors" in issue && Array.isArray(issue.errors) ? (issue.errors as z.core.$ZodIssue[][]) : [];
        const fitting = options.filter((errs) => errs.length > 0 && !errs.some((e) => e.code === "unrecognized_keys" && e.path.length === 0));
        if (fitting.length === 1 && typeof issue.input === "object" && issue.input !== null) {
          out.push(...mapZodIssues(fitting[0].map((e) => ({ ...e, path: [...issue.path, ...e.path] })), opts));
          break;
        }
        out.push({ ...base, code: "invalid_value", path, message: keep(`${label} is not valid`) });
        break;
      }
      case "invalid_format":
        out.push({ ...base, code: "invalid_format", path, message: keep(`${label} is not in the expected format`) });
        break;
      case "custom": {
        const code = typeof issue.params?.code === "string" ? issue.params.code : "invalid_value";
        out.push({ ...base, code, path, message: keep(`${label} is not valid`) });
        break;
      }
      default:
        out.push({ ...base, code: "invalid_value", path, message: keep(`${label} is not valid`) });
    }
  }
  return out;
}
