import { formatMoney, type Money } from "../money/format-money";
import { moneyOf } from "../tools/tool-meta";
import type { ToolMeta } from "../tools/types";

/**
 * What makes a step risky, in the order a person should read them:
 * - `other_account`: its target belongs to another account (or ticket) than the task's — the
 *   validator's `cross_account_target` / `other_ticket_target` warnings;
 * - `money_out`: it moves money (the tool's money argument, `moneyArg`: what its `amount` returns);
 * - `irreversible`: the tool's effect cannot be undone once written.
 * Client-safe, pure: derived only from the validation issues and the tool definitions; no business
 * fact is checked here.
 */
export type RiskKind = "other_account" | "money_out" | "irreversible";

/** Validation issue codes that mean "this step reaches another account or ticket". */
export const OTHER_ACCOUNT_CODES: readonly string[] = ["cross_account_target", "other_ticket_target"];

/** Short labels of the risk kinds, as badges show them. */
export const RISK_LABELS: Record<RiskKind, string> = {
  other_account: "another account",
  money_out: "money out",
  irreversible: "irreversible",
};

/** One risky step of a plan, as the risk callout shows it. Money in minor units + currency. */
export interface StepRisk {
  stepId: string;
  /** 1-based position in the plan. */
  position: number;
  tool: string;
  kinds: RiskKind[];
  /** The money the step moves, when it moves any. */
  amount?: Money;
  /** The other account's name (or "ticket #N") when the step reaches another account or ticket. */
  counterparty?: string;
  /** One line, e.g. "Refund to another customer's invoice · $1,489.00 · Halvorsen Freight". */
  headline: string;
  /** The validator's own words about the other account, when there are any. */
  detail?: string;
}

/** The minimum a step must carry to be judged. */
export interface RiskStepInput {
  id: string;
  position: number;
  tool: string;
  args: unknown;
}

/** The minimum of a validation issue this reads. */
export interface RiskIssueInput {
  code: string;
  stepId?: string;
  message: string;
  details?: Record<string, unknown>;
}

const NOUNS: Record<string, string> = {
  issue_refund: "Refund",
  apply_credit: "Credit",
  waive_fee: "Fee waiver",
  reschedule_delivery: "Reschedule",
  send_reply: "Reply",
  add_ticket_note: "Note",
  escalate_ticket: "Escalation",
};

const TARGET_NOUNS: Record<string, string> = { invoice: "invoice", shipment: "shipment", ticket: "ticket", account: "account" };

/**
 * The risky steps of a plan in plan order (steps with no risk are left out): for each, the kinds of
 * risk, the money it moves, the other account it reaches (named by `accountName` from the issue's
 * `targetAccountId`) and a one-line headline. `toolOf` resolves a tool name (built-in or imported);
 * an unknown tool counts as irreversible (nothing says it can be undone). A money argument that is
 * not money yet (malformed arguments the validator reports) counts as moving none.
 */
export function planRisks(
  steps: readonly RiskStepInput[],
  issues: readonly RiskIssueInput[],
  toolOf: (name: string) => Pick<ToolMeta, "label" | "effect" | "moneyArg"> | undefined,
  accountName: (accountId: string) => string,
): StepRisk[] {
  const out: StepRisk[] = [];
  for (const s of steps) {
    const tool = toolOf(s.tool);
    const amount = moneyOf(tool, s.args);
    const other = issues.find((i) => i.stepId === s.id && OTHER_ACCOUNT_CODES.includes(i.code));
    const kinds: RiskKind[] = [];
    if (other) kinds.push("other_account");
    if (amount && amount.minor > 0) kinds.push("money_out");
    if (!tool || tool.effect === "irreversible") kinds.push("irreversible");
    if (kinds.length === 0) continue;
    let counterparty: string | undefined;
    let what = NOUNS[s.tool] ?? tool?.label ?? s.tool;
    if (other?.code === "cross_account_target") {
      const id = typeof other.details?.targetAccountId === "string" ? other.details.targetAccountId : undefined;
      counterparty = id ? accountName(id) : undefined;
      const kind = TARGET_NOUNS[String(other.details?.targetKind)] ?? "record";
      what = kind === "account" ? `${what} to another customer's account` : `${what} to another customer's ${kind}`;
    } else if (other?.code === "other_ticket_target") {
      const t = other.details?.targetTicketId;
      counterparty = typeof t === "string" ? `ticket #${t}` : undefined;
      what = `${what} on another ticket`;
    } else if (!kinds.includes("money_out")) {
      what = `${what} · cannot be undone`;
    }
    const parts = [what, ...(amount && amount.minor > 0 ? [formatMoney(amount)] : []), ...(counterparty ? [counterparty] : [])];
    out.push({
      stepId: s.id,
      position: s.position,
      tool: s.tool,
      kinds,
      ...(amount && amount.minor > 0 ? { amount } : {}),
      ...(counterparty ? { counterparty } : {}),
      headline: parts.join(" · "),
      ...(other ? { detail: other.message } : {}),
    });
  }
  return out;
}

/**
 * Money out per currency over `amounts` (minor units), largest first; zero and negative amounts
 * are left out. E.g. two USD refunds and one EUR credit → `[{USD total}, {EUR total}]`.
 */
export function moneyOutByCurrency(amounts: readonly Money[]): Money[] {
  const sums = new Map<Money["currency"], number>();
  for (const a of amounts) if (a.minor > 0) sums.set(a.currency, (sums.get(a.currency) ?? 0) + a.minor);
  return [...sums].map(([currency, minor]) => ({ minor, currency })).sort((a, b) => b.minor - a.minor || a.currency.localeCompare(b.currency));
}

/** Largest value an `Int` column holds on both databases (PostgreSQL `Int` is 32-bit). */
const MAX_INT = 2_147_483_647;

/**
 * The run's sort key "at stake": the largest per-currency total of the money its steps move, in
 * minor units, capped at the largest 32-bit integer. 0 when the plan moves no money.
 */
export function atStakeSortKey(amounts: readonly Money[]): number {
  return Math.min(MAX_INT, moneyOutByCurrency(amounts)[0]?.minor ?? 0);
}
