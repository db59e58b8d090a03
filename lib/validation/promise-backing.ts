import type { Step } from "../plan/schema";
import type { ToolDefinition } from "../tools/types";
import { findCommitments, type Commitment } from "./commitments";
import type { ValidationIssue } from "./types";

/**
 * Promises match approvals (docs/design.md §1.6): a customer-visible step whose text
 * promises money or a delivery date that a step of the same plan backs is approved without
 * acknowledgement only when that backing step is approved too — already, or in the same decision.
 * Otherwise the customer could be told of a refund nobody with the authority approved.
 *
 * `steps` are the plan's steps in order with their tool definitions (`tool` undefined for a tool
 * the catalog does not know: such a step backs nothing); `decided` the ids of steps approved now
 * or before (active approvals of this plan version plus the steps being approved, plus steps the
 * gate policy lets run without approval). Returns one
 * `unbacked_commitment` warning (needs acknowledgement) per promise and customer-visible step
 * whose every backing step is undecided; `details.backedBy` lists those step ids, so the decision
 * panel can say which step backs the promise. A promise no step backs at all is the validator's
 * own `unbacked_commitment` (content stage), not repeated here. Pure; `now` (UTC) dates relative
 * phrases such as "tomorrow".
 */
export function promisesAwaitingApproval(
  steps: readonly { step: Step; tool: ToolDefinition | undefined }[],
  decided: ReadonlySet<string>,
  now: Date,
): ValidationIssue[] {
  const money = steps.flatMap(({ step, tool }) => {
    const m = tool?.amount(step.args as never);
    return m ? [{ id: step.id, tool: step.tool, money: m }] : [];
  });
  const windows = steps.flatMap(({ step, tool }) => {
    const w = tool?.deliveryWindow?.(step.args as never);
    return w ? [{ id: step.id, tool: step.tool, window: w }] : [];
  });
  const label = (id: string) => {
    const i = steps.findIndex((s) => s.step.id === id);
    return `step ${i + 1} (${steps[i].step.tool})`;
  };

  const issues: ValidationIssue[] = [];
  steps.forEach(({ step, tool }, index) => {
    const text = tool?.customerText?.(step.args as never);
    if (!text) return;
    const textField = tool!.fields.find((f) => f.kind === "textarea")?.name ?? "body";
    const seen = new Set<string>();
    for (const c of findCommitments(text, now)) {
      const backers = backersOf(c, money, windows);
      if (backers.length === 0 || backers.some((b) => decided.has(b))) continue;
      const key = backers.join(",");
      if (seen.has(key)) continue;
      seen.add(key);
      const what = c.kind === "money" ? (c.amounts.length ? c.amounts.map((a) => a.phrase).join(", ") : "money") : `delivery on ${c.date}`;
      issues.push({
        stage: "content",
        code: "unbacked_commitment",
        severity: "warning",
        stepId: step.id,
        path: `steps.${index}.args.${textField}`,
        needsAcknowledgement: true,
        message: `The reply promises ${what} ("${c.clause}"), which ${backers.map(label).join(" and ")} backs — not approved yet. Approve it too, or acknowledge that the customer may be told before it is.`,
        details: { kind: c.kind, quote: c.clause, backedBy: backers, ...(c.kind === "money" ? { amounts: c.amounts } : { date: c.date }) },
      });
    }
  });
  return issues;
}

/** The ids of the steps that back commitment `c`: money steps of a promised amount (any money step when none is named), windows containing a promised day. */
function backersOf(
  c: Commitment,
  money: { id: string; money: { minor: number; currency: string } }[],
  windows: { id: string; window: { from: string; to: string } }[],
): string[] {
  if (c.kind === "money") {
    if (c.amounts.length === 0) return money.map((m) => m.id);
    return money.filter((m) => c.amounts.some((a) => a.minor === m.money.minor && (a.currency === undefined || a.currency === m.money.currency))).map((m) => m.id);
  }
  return windows.filter((w) => w.window.from <= c.date && c.date <= w.window.to).map((w) => w.id);
}

/** The ids of steps the gate lets run without approval (`gate[stepId] === "auto"`): they back a promise as if approved. */
export function autoGated(gate: Readonly<Record<string, "approval_required" | "auto">>): string[] {
  return Object.entries(gate).flatMap(([id, g]) => (g === "auto" ? [id] : []));
}
