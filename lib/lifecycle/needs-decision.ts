import { z } from "zod";
import { formatMoney, type Money } from "../money/format-money";

/**
 * Why an approved run needs a person's new decision (run status `needs_decision`,
 * docs/design.md §10 "Nobody waits forever"): the executor's claim of its next step was refused for
 * a reason no executor can fix. Pure and client-safe: the claim builds the reason from its
 * refusal, the run page and the API show it.
 */

/** The claim refusals that move a run to `needs_decision` (each is typed to the executor as before). */
export const NEEDS_DECISION_CODES = ["validation_failed", "approval_revoked", "prerequisite_failed"] as const;
export type NeedsDecisionCode = (typeof NEEDS_DECISION_CODES)[number];

/**
 * The stored reason (`run.decisionReason`): the refusal's `code`, a `message` written for the person
 * who decides ("Needs a new decision: in_74203 has $100.00 open; the approved refund was
 * $600.00."), the blocked `stepId`, when (`at`, ISO UTC) and the refusal's details (issues…).
 */
export const decisionReasonSchema = z.object({
  code: z.enum(NEEDS_DECISION_CODES),
  message: z.string(),
  stepId: z.string(),
  at: z.string(),
  details: z.record(z.string(), z.unknown()),
});
/** A parsed {@link decisionReasonSchema}. */
export type DecisionReason = z.output<typeof decisionReasonSchema>;

/** True when a claim refusal of `code` is one a person must decide on (see NEEDS_DECISION_CODES). */
export function needsDecision(code: string): code is NeedsDecisionCode {
  return (NEEDS_DECISION_CODES as readonly string[]).includes(code);
}

/** What a money-moving tool calls the money, for "the approved refund was …". */
const MONEY_NOUN: Record<string, string> = { issue_refund: "refund", waive_fee: "fee waiver", apply_credit: "credit" };

type IssueLike = { code?: unknown; message?: unknown; details?: unknown };
const isMoney = (v: unknown): v is Money => !!v && typeof v === "object" && typeof (v as Money).minor === "number" && typeof (v as Money).currency === "string";

/**
 * One validation issue in words a person acts on: a refund the invoice no longer covers reads
 * "in_74203 has $100.00 open; the approved refund was $600.00" (`amount_exceeds_balance`; with
 * money held by other runs, "… has $100.00 available"); any other issue its own message.
 */
function issueWords(issue: IssueLike, step: { tool: string; args: Record<string, unknown> }): string {
  const d = (issue.details ?? {}) as { amount?: unknown; openBalance?: unknown; available?: unknown };
  const invoiceId = typeof step.args.invoiceId === "string" ? step.args.invoiceId : null;
  const noun = MONEY_NOUN[step.tool] ?? step.tool.replace(/_/g, " ");
  if (invoiceId && isMoney(d.amount)) {
    if (issue.code === "amount_exceeds_balance" && isMoney(d.openBalance)) return `${invoiceId} has ${formatMoney(d.openBalance)} open; the approved ${noun} was ${formatMoney(d.amount)}`;
    if (issue.code === "amount_exceeds_available" && isMoney(d.available)) return `${invoiceId} has ${formatMoney(d.available)} available; the approved ${noun} was ${formatMoney(d.amount)}`;
  }
  return typeof issue.message === "string" ? issue.message : String(issue.code ?? "a check failed");
}

/**
 * The reason a refused claim gives a person (`message` starts "Needs a new decision: "):
 * - `validation_failed` {issues}: each error issue in words (see `issueWords`);
 * - `approval_revoked` {approverId}: "<name> approved step N and no longer has the authority to approve it";
 * - `prerequisite_failed` {prerequisiteStepId}: "step N needs step M, which failed".
 * `position` is the step's 1-based place in the plan; `approverName` the approver's display name.
 */
export function decisionReasonOf(
  refusal: { code: NeedsDecisionCode; details: Record<string, unknown> },
  step: { id: string; tool: string; args: Record<string, unknown> },
  ctx: { at: Date; position: number; positionOf?: (stepId: string) => number; approverName?: string | null },
): DecisionReason {
  const details = refusal.details;
  let why: string;
  if (refusal.code === "validation_failed") {
    const issues = Array.isArray(details.issues) ? (details.issues as IssueLike[]) : [];
    why = issues.length ? issues.map((i) => issueWords(i, step)).join("; ") : `step ${ctx.position} no longer passes validation against live account data`;
  } else if (refusal.code === "approval_revoked") {
    const who = ctx.approverName ?? (typeof details.approverId === "string" ? details.approverId : "the approver");
    why = `${who} approved step ${ctx.position} (${step.tool}) and no longer has the authority to approve it; someone who has must approve it again`;
  } else {
    const pre = typeof details.prerequisiteStepId === "string" ? details.prerequisiteStepId : "?";
    why = `step ${ctx.position} (${step.tool}) needs step ${ctx.positionOf?.(pre) ?? "?"} (${pre}), which failed; edit the plan or reject it`;
  }
  return { code: refusal.code, message: `Needs a new decision: ${why}.`, stepId: step.id, at: ctx.at.toISOString(), details };
}

/** Reads a stored `run.decisionReason` JSON column back (null when absent or not a reason). */
export function storedDecisionReason(json: unknown): DecisionReason | null {
  if (!json || typeof json !== "object") return null;
  const r = json as Partial<DecisionReason>;
  if (typeof r.code !== "string" || typeof r.message !== "string") return null;
  return { code: r.code as NeedsDecisionCode, message: r.message, stepId: typeof r.stepId === "string" ? r.stepId : "", at: typeof r.at === "string" ? r.at : "", details: r.details && typeof r.details === "object" ? r.details : {} };
}
