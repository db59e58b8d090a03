import { formatMoney, type Money } from "../money/format-money";
import { moneyOf } from "../tools/tool-meta";
import type { ToolMeta } from "../tools/types";

/**
 * What makes a step risky, in the order a person should read them:
 * - `other_account`: its target belongs to another account (or ticket) than the task's — the
 *   validator's `cross_account_target` / `other_ticket_target` warnings;
 * - `money_out`: it moves money (the tool's money argument, `moneyArg`: what its `amount` returns);
 * - `irreversible`: the tool's effect cannot be undone once written;
 * - `untrusted_text`: an argument comes from untrusted text (a customer's message, or text flagged as
 *   instruction-like) — the validator's `derived_from_untrusted_text` warning. A quote found in such
 *   text proves only that someone wrote it, never that it is owed;
 * - `unbacked_promise`: the step tells the customer of money or a date no step of the plan moves
 *   (the validator's `unbacked_commitment`), e.g. a reply still promising $1,060.00 after an edit
 *   lowered the refund to $1,000.00.
 * Client-safe, pure: derived only from the validation issues and the tool definitions; no business
 * fact is checked here.
 */
export type RiskKind = "other_account" | "untrusted_text" | "unbacked_promise" | "money_out" | "irreversible";

/** Validation issue codes that mean "this step reaches another account or ticket". */
export const OTHER_ACCOUNT_CODES: readonly string[] = ["cross_account_target", "other_ticket_target"];

/** The validator's warning that a step's argument comes from untrusted text (details `{args: string[]}`: argument paths). */
export const UNTRUSTED_TEXT_CODE = "derived_from_untrusted_text";

/** The validator's warning that a customer-visible step promises money or a date no step backs. */
export const UNBACKED_PROMISE_CODE = "unbacked_commitment";

/**
 * True when `issue` says a step promises what NO step of the plan does. The same code with
 * `details.backedBy` is a promise a step does back but nobody approved yet (the decision panel's
 * acknowledgement), which is no inconsistency of the plan.
 */
export function isUnkeptPromise(issue: RiskIssueInput): boolean {
  return issue.code === UNBACKED_PROMISE_CODE && !Array.isArray(issue.details?.backedBy);
}

/** The validator's warning, on such a step, that the approver must confirm money or a commitment from the account data. */
export const UNTRUSTED_AUTHORITY_CODE = "untrusted_authority";

/**
 * The argument paths of a step that come from untrusted text ("amount", "window.from"), from its
 * `derived_from_untrusted_text` warning; empty when it has none. Pure.
 */
export function untrustedArgs(issues: readonly RiskIssueInput[], stepId: string): string[] {
  const hit = issues.find((i) => i.stepId === stepId && i.code === UNTRUSTED_TEXT_CODE);
  const args = hit?.details?.args;
  return Array.isArray(args) ? args.filter((a): a is string => typeof a === "string") : [];
}

/** Where a step's argument copies untrusted text: `start`/`end` in its value (UTF-16, end exclusive), and the part it came from. */
export interface CopiedSpan {
  start: number;
  end: number;
  /** Index of the task's text part it came from, and that part's source ("customer_message"). */
  partIndex?: number;
  source?: string;
}

/**
 * The spans of argument `arg` (a top-level name) of a step that copy untrusted text, from the
 * `details.sources[].spans` of its `derived_from_untrusted_text` warning (lib/validation/
 * contract-rules.ts), sorted and without overlaps; empty when none names a place in the value
 * (a quote names only its place in the part). Pure; ignores malformed details.
 */
export function copiedSpans(issues: readonly RiskIssueInput[], stepId: string, arg: string): CopiedSpan[] {
  const hit = issues.find((i) => i.stepId === stepId && i.code === UNTRUSTED_TEXT_CODE);
  const sources = hit?.details?.sources;
  if (!Array.isArray(sources)) return [];
  const spans: CopiedSpan[] = [];
  for (const src of sources as { arg?: unknown; spans?: unknown }[]) {
    if (src?.arg !== arg || !Array.isArray(src.spans)) continue;
    for (const sp of src.spans as Record<string, unknown>[]) {
      if (typeof sp?.start !== "number" || typeof sp.end !== "number" || sp.end <= sp.start) continue;
      spans.push({
        start: sp.start,
        end: sp.end,
        ...(typeof sp.partIndex === "number" ? { partIndex: sp.partIndex } : {}),
        ...(typeof sp.source === "string" ? { source: sp.source } : {}),
      });
    }
  }
  spans.sort((a, b) => a.start - b.start);
  return spans.filter((sp, k) => k === 0 || sp.start >= spans[k - 1].end);
}

/** True when argument `name` (a top-level name or a dotted path) is, or lies inside or around, one of `paths`. */
export function argIsUntrusted(paths: readonly string[], name: string): boolean {
  return paths.some((p) => p === name || p.startsWith(`${name}.`) || name.startsWith(`${p}.`));
}

/** Short labels of the risk kinds, as badges show them. */
export const RISK_LABELS: Record<RiskKind, string> = {
  other_account: "another account",
  money_out: "money out",
  irreversible: "irreversible",
  untrusted_text: "untrusted text",
  unbacked_promise: "promise no step keeps",
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
  /** The validator's own words about the other account and the untrusted text, when there are any. */
  detail?: string;
  /** The arguments taken from untrusted text (paths), when there are any. */
  untrustedArgs?: string[];
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
    const untrusted = untrustedArgs(issues, s.id);
    const authority = issues.find((i) => i.stepId === s.id && i.code === UNTRUSTED_AUTHORITY_CODE);
    const kinds: RiskKind[] = [];
    if (other) kinds.push("other_account");
    if (untrusted.length > 0) kinds.push("untrusted_text");
    const promises = issues.filter((i) => i.stepId === s.id && isUnkeptPromise(i));
    if (promises.length > 0) kinds.push("unbacked_promise");
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
    } else if (!kinds.includes("money_out") && kinds.includes("irreversible")) {
      what = `${what} · cannot be undone`;
    }
    if (untrusted.length > 0) what = `${what} · ${untrusted.join(", ")} from untrusted text`;
    if (promises.length > 0) what = `${what} · promises what no step does`;
    const parts = [what, ...(amount && amount.minor > 0 ? [formatMoney(amount)] : []), ...(counterparty ? [counterparty] : [])];
    out.push({
      stepId: s.id,
      position: s.position,
      tool: s.tool,
      kinds,
      ...(amount && amount.minor > 0 ? { amount } : {}),
      ...(counterparty ? { counterparty } : {}),
      headline: parts.join(" · "),
      ...(other || untrusted.length > 0 || promises.length > 0
        ? {
            detail: [
              other?.message,
              untrusted.length > 0 ? (authority?.message ?? "A customer's words are no authority: confirm this step from the account data before approving it") : undefined,
              ...promises.map((p) => p.message),
            ]
              .filter(Boolean)
              .join(" "),
          }
        : {}),
      ...(untrusted.length > 0 ? { untrustedArgs: untrusted } : {}),
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
