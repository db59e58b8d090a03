import { z } from "zod";
import { moneyInputIssue, stripMoneyInput } from "../money/money-input";
import { builtinCatalog, type ToolCatalog } from "../tools/versioned-catalog";

/**
 * The plan card's form for a catalog (built-in tools plus a run's imported tools): the steps as the operator edits them. Each step's `args` is checked by
 * that tool's own zod schema — the same one the server's shape stage uses (one schema, client
 * and server; docs/style.md §1). `key` is a client-only identity for React lists, never sent.
 * Errors are reported at `steps.N.args.<path>` so they attach to their inputs. A money field's
 * typed text (`input`, client-only) is read by `parseMoneyInput` and its problem reported once
 * at `args.<field>.minor`, instead of the tool schema's generic message.
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
