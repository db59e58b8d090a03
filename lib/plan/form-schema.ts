import { z } from "zod";
import { moneyInputIssue, stripMoneyInput } from "../money/money-input";
import { builtinCatalog, type ToolCatalog } from "../tools/versioned-catalog";
import type { AccountSnapshot } from "../desk/snapshot";
import { STEP_REASON_KEYS, stepReasonsShape, type StepReasons } from "./schema";

/**
 * The plan card's form for a catalog (built-in tools plus a run's imported tools): the steps as the operator edits them. Each step's `args` is checked by
 * that tool's own zod schema — the same one the server's shape stage uses (one schema, client
 * and server; docs/style.md §1). `key` is a client-only identity for React lists, never sent.
 * Errors are reported at `steps.N.args.<path>` so they attach to their inputs. A money field's
 * typed text (`input`, client-only) is read by `parseMoneyInput` and its problem reported once
 * at `args.<field>.minor`, instead of the tool schema's generic message. The step's reasons
 * (`title`, `rationale`, `evidence`, `risk`, `stopCondition`: the plan schema's own
 * `stepReasonsShape`) are fields of the form too; `titleAuto` (client-only, never sent) says the
 * title is still the one derived from what the step does ({@link derivedTitle}). Which reasons the
 * gate policy requires is the server's validation (a person's added or changed step is refused
 * without them); its refusals land at `steps.N.<field>`.
 */
export function planFormSchemaFor(catalog: ToolCatalog) {
  return z.object({
  steps: z.array(
    z
      .object({
        key: z.string(),
        id: z.string(),
        tool: z.string(),
        args: z.record(z.string(), z.unknown()),
        ...stepReasonsShape,
        titleAuto: z.boolean().optional(),
      })
      .superRefine((step, ctx) => {
        const tool = catalog.get(step.tool);
        if (!tool) {
          ctx.addIssue({ code: "custom", path: ["tool"], message: `Unknown tool "${step.tool}"` });
          return;
        }
        // Money as typed: one parser (lib/money/money-input.ts) and one message per problem, at the field.
        const moneyProblems = new Set<string>();
        for (const f of tool.fields) {
          if (f.kind !== "money") continue;
          const problem = moneyInputIssue(step.args[f.name]);
          if (!problem) continue;
          moneyProblems.add(f.name);
          ctx.addIssue({ code: "custom", path: ["args", f.name, "minor"], message: problem });
        }
        const parsed = tool.argsSchema.safeParse(stripMoneyInput(step.args));
        if (!parsed.success) {
          for (const issue of parsed.error.issues) {
            if (moneyProblems.has(String(issue.path[0]))) continue;
            ctx.addIssue({
              code: "custom",
              path: ["args", ...issue.path.map((p) => (typeof p === "number" ? p : String(p)))],
              message: issue.message,
            });
          }
        }
      }),
  ),
  });
}

/** The plan form's schema over the built-in tools (see {@link planFormSchemaFor} for a run's catalog with imported tools). */
export const planFormSchema = planFormSchemaFor(builtinCatalog);
export type PlanFormValues = z.infer<typeof planFormSchema>;
export type PlanFormStep = PlanFormValues["steps"][number];

/** Empty arguments for a newly added step of `toolName` (ticket fields prefilled with the task's ticket). */
export function blankArgs(toolName: string, ticketId: string, currency = "USD", catalog: ToolCatalog = builtinCatalog): Record<string, unknown> {
  const tool = catalog.get(toolName);
  if (!tool) return {};
  const args: Record<string, unknown> = {};
  for (const f of tool.fields) {
    switch (f.kind) {
      case "money":
        args[f.name] = { minor: undefined, currency };
        break;
      case "date_window":
        args[f.name] = { from: "", to: "" };
        break;
      case "ticket_id":
        args[f.name] = ticketId;
        break;
      case "schema":
        if (f.schema?.default !== undefined) args[f.name] = structuredClone(f.schema.default);
        else if (f.schema?.type === "object") args[f.name] = {};
        else if (f.schema?.type === "array") args[f.name] = [];
        else if (f.schema?.type === "boolean") args[f.name] = false;
        else if (f.schema?.type === "string" && !Array.isArray(f.schema.enum)) args[f.name] = "";
        break;
      default:
        args[f.name] = "";
    }
  }
  return args;
}

/** A form step's reasons as an edit sends them (`sendReasons`): the step's id and its reason fields. */
type ReasonSource = Partial<StepReasons> & { id: string };

/**
 * The reasons a form step sends with an edit: each reason field that holds something (text that is
 * not blank, at least one evidence reference); a field left empty is sent empty only when the base
 * step (`base`, the stored step of the same id) had it — the person cleared it — and left out
 * otherwise, so the server keeps the base step's value (lib/plan/reasons.ts `keepReasons`). Pure.
 */
export function sendReasons(step: ReasonSource, base: Partial<StepReasons> | undefined): StepReasons {
  const out: Record<string, unknown> = {};
  for (const k of STEP_REASON_KEYS) {
    const v = step[k];
    const has = Array.isArray(v) ? v.length > 0 : typeof v === "string" && v.trim() !== "";
    if (has) out[k] = v;
    else if (base?.[k] !== undefined) out[k] = k === "evidence" ? [] : "";
  }
  return out as StepReasons;
}

/**
 * The title a person's added step starts with: what it does — the tool's label and its main
 * target, e.g. "Issue refund on in_74119" — or the label alone while the target is not typed yet.
 * Pure.
 */
export function derivedTitle(toolName: string, args: Record<string, unknown>, desk: AccountSnapshot, catalog: ToolCatalog = builtinCatalog): string {
  const tool = catalog.get(toolName);
  if (!tool) return toolName;
  let target: { id: string } | null = null;
  try {
    const parsed = tool.argsSchema.safeParse(stripMoneyInput(args));
    target = parsed.success ? tool.target(parsed.data as never, desk) : null;
    if (!target) {
      const idField = tool.fields.find((f) => f.kind.endsWith("_id") && f.kind !== "ticket_id");
      const typed = idField ? args[idField.name] : undefined;
      if (typeof typed === "string" && typed.trim()) target = { id: typed.trim() };
    }
  } catch {
    target = null;
  }
  return (target ? `${tool.label} on ${target.id}` : tool.label).slice(0, 200);
}

/** The reasons a person's added step starts with: its derived title (still following the arguments) and the task's ticket as evidence. */
export function addedStepReasons(title: string, ticketId: string) {
  return { title, titleAuto: true, rationale: "", evidence: [{ recordType: "ticket", recordId: ticketId }], risk: "", stopCondition: "" };
}
