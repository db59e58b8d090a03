import type { AccountSnapshot } from "../desk/snapshot";
import { accountIdOf, accountName } from "../desk/lookup";
import { formatMoney, type Money } from "../money/format-money";
import { scanFolded, scanInstructions, untrustedPartIndexes, INSTRUCTION_KIND_LABELS } from "../task-contract/instruction-scan";
import { REFUND_TOOLS, TEXT_SOURCE_LABELS, isUntrustedSource, type Intent, type TextSource } from "../task-contract/schema";
import type { ToolEffect } from "../tools/types";
import { buildTaintIndex, findCopiedRuns, TAINT_SHINGLE_WORDS, type TaintIndex } from "../task-contract/taint";
import { foldForScan, originalSpan } from "../text/scan-map";
import { parsedSteps, type ParsedStepView, type StepView, type TaskContractContext, type ValidationIssue, type ValidationPhase } from "./types";

/** Codes a gate-policy rule may turn from a refusal into a supervisor's decision. */
export const SUPERVISOR_DECIDABLE_CODES = ["outside_task_intent", "outside_task_accounts"] as const;

/**
 * Codes after which the gate policy alone never approves a step (it waits for a person, and the
 * issue's message is the reason shown): an argument taken from untrusted text, and a write that
 * rests on a read that failed or is not there (`evidence_failed`, `evidence_missing`: ./evidence.ts).
 */
export const NEVER_AUTO_CODES: readonly string[] = ["derived_from_untrusted_text", "untrusted_authority", "evidence_failed", "evidence_missing"];

const issue = (s: ParsedStepView, code: string, path: string, message: string, details: Record<string, unknown>): ValidationIssue => ({
  stage: "task_contract",
  code,
  severity: "error",
  stepId: s.id,
  path,
  message,
  details,
});

/**
 * The contract rules, for each step that passed its shape (all errors unless stated):
 * - `outside_task_intent`: the tool is not among the tools the task's intent permits;
 * - `outside_task_window`: a delivery window the step sets starts before `deliveryNotBefore` or
 *   ends after `deliveryNotAfter` (ISO dates, inclusive);
 * - `over_compensation_cap`: the money the plan's steps move, summed in step order, goes over the
 *   cap (or is in another currency than the cap); the step that crosses it carries the error;
 * - `refund_forbidden_by_task`: a refund tool under "no refund";
 * - `outside_task_accounts`: the step writes to an account not among the accounts in scope; a
 *   contract without `accountsInScope` scopes the agent's own steps of a submission (`phase`
 *   "submit", author model) to the ticket's account (`details.defaultScope`), while a person's
 *   step keeps the acknowledgement of ./task-contract.ts (`cross_account_target`) and a stored plan
 *   checked again is judged as it was accepted.
 * `outside_task_intent` and `outside_task_accounts` become a warning that needs acknowledgement,
 * with `details.decisionBy: "supervisor"`, when the governing gate-policy rule allows it
 * (`supervisorMayAllow`).
 * No contract (the integration posted none): only `outside_task_intent`, judged with the desk's
 * default intent (`task.intent`, which the server sets from the desk when the task has no contract)
 * or, when the desk declared none, the built-in most restrictive intent, which permits only tools
 * whose effect is a note or a reply ({@link NO_CONTRACT_EFFECTS}); the message says the task has
 * no contract and `details.noContract` is true (docs/design.md "The task contract"). It judges the
 * agent's submission and, in a person's edit, the person's own steps; a stored plan checked again
 * (`phase` "recheck") is judged as it was accepted.
 */
export function checkContractRules(steps: readonly StepView[], desk: AccountSnapshot, task: TaskContractContext, phase: ValidationPhase = "recheck"): ValidationIssue[] {
  const { contract, intent } = task;
  // A stored plan checked again (approval, dispatch) is judged as it was accepted: a desk default
  // set or narrowed later, or an upgrade that introduced it, never strands a run already accepted;
  // in an edit, the agent's steps were judged at submission and the person's own steps are judged now.
  if (!contract) return phase === "recheck" ? [] : checkDefaultIntent(phase === "edit" ? steps.filter((s) => s.step?.author.kind !== "model") : steps, intent, task);
  const c = contract.constraints;
  const out: ValidationIssue[] = [];
  let moved: Money | null = null;
  for (const s of parsedSteps(steps)) {
    const supervised = (i: ValidationIssue): ValidationIssue =>
      task.supervisorMayAllow?.(s)
        ? { ...i, severity: "warning", needsAcknowledgement: true, message: `${i.message}. The gate policy lets a supervisor decide it`, details: { ...i.details, decisionBy: "supervisor" } }
        : i;
    const permitted = intent?.permittedTools ?? [];
    if (!permitted.includes(s.tool.name)) {
      const label = intent?.label.toLowerCase() ?? contract.intent;
      out.push(
        supervised(
          issue(
            s,
            "outside_task_intent",
            `${s.path}.tool`,
            intent
              ? `The task is a ${label}; its intent permits ${permitted.join(", ") || "no tool"}, not ${s.tool.name}`
              : `The task's intent "${contract.intent}" is not in the desk's catalog; no tool is permitted`,
            { intent: contract.intent, tool: s.tool.name, permittedTools: permitted },
          ),
        ),
      );
    }
    const window = s.tool.deliveryWindow?.(s.step.args as never);
    if (window && c.deliveryNotBefore && window.from < c.deliveryNotBefore) {
      out.push(issue(s, "outside_task_window", `${s.path}.args.window.from`, `The task says deliver not before ${c.deliveryNotBefore}; this window starts ${window.from}`, { constraint: "deliveryNotBefore", limit: c.deliveryNotBefore, value: window.from }));
    }
    if (window && c.deliveryNotAfter && window.to > c.deliveryNotAfter) {
      out.push(issue(s, "outside_task_window", `${s.path}.args.window.to`, `The task says deliver not after ${c.deliveryNotAfter}; this window ends ${window.to}`, { constraint: "deliveryNotAfter", limit: c.deliveryNotAfter, value: window.to }));
    }
    const amount = s.tool.amount(s.step.args as never);
    const moneyField = s.tool.moneyArg ?? s.tool.fields.find((f) => f.kind === "money")?.name ?? "amount";
    if (amount && c.compensationCap) {
      const cap = c.compensationCap;
      if (amount.currency !== cap.currency) {
        out.push(issue(s, "over_compensation_cap", `${s.path}.args.${moneyField}`, `The task caps compensation at ${formatMoney(cap)}; this step moves ${formatMoney(amount)}, another currency`, { constraint: "compensationCap", cap, amount }));
      } else {
        const before: Money = moved ?? { minor: 0, currency: cap.currency };
        moved = { minor: before.minor + amount.minor, currency: cap.currency };
        if (moved.minor > cap.minor && before.minor <= cap.minor) {
          out.push(
            issue(s, "over_compensation_cap", `${s.path}.args.${moneyField}`, `The task caps compensation at ${formatMoney(cap)}; with this step the plan moves ${formatMoney(moved)}`, { constraint: "compensationCap", cap, total: moved, amount }),
          );
        }
      }
    }
    if (c.noRefund && REFUND_TOOLS.includes(s.tool.name)) {
      out.push(issue(s, "refund_forbidden_by_task", `${s.path}.tool`, "The task says no refund; this step refunds money", { constraint: "noRefund", tool: s.tool.name }));
    }
    // Without a stated scope the task's account is the ticket's: the agent's own submission may not
    // write beyond it; a person's edit keeps the approver's acknowledgement (cross_account_target).
    const scope = c.accountsInScope ?? (phase === "submit" && s.step.author.kind === "model" ? [desk.ticket.accountId] : undefined);
    if (scope) {
      const target = s.tool.target(s.step.args, desk);
      const accountId = target ? accountIdOf(desk, target.kind, target.id) : undefined;
      if (accountId !== undefined && !scope.includes(accountId)) {
        const argPath = s.tool.fields.find((f) => f.kind === `${target!.kind}_id` || f.record === target!.kind)?.name;
        out.push(
          supervised(
            issue(
              s,
              "outside_task_accounts",
              argPath ? `${s.path}.args.${argPath}` : `${s.path}.args`,
              c.accountsInScope
                ? `This step writes to ${accountName(desk, accountId)}, which is not among the task's accounts (${scope.map((a) => accountName(desk, a)).join(", ")})`
                : `This step writes to ${accountName(desk, accountId)}; the task is about ${accountName(desk, desk.ticket.accountId)} (the account on ticket #${desk.ticket.id}), and an agent's plan may not write to another account`,
              { accountId, accountsInScope: scope, ...(c.accountsInScope ? {} : { defaultScope: true }) },
            ),
          ),
        );
      }
    }
  }
  return out;
}

/**
 * The tool effects the built-in most restrictive intent permits, the intent of a task without a
 * contract on a desk that declared no default intent: `internal` (a note on our own records, or a
 * hand-off to a team) and `customer_visible` (a reply). Tools are classified by their effect
 * (lib/tools/types.ts `ToolEffect`; an imported tool by its declared effect), so no money moves and
 * no delivery changes without a contract or a desk default that permits it.
 */
export const NO_CONTRACT_EFFECTS: readonly ToolEffect[] = ["internal", "customer_visible"];

/** `outside_task_intent` for a task without a contract: the desk's default intent, else the built-in one (see checkContractRules). */
function checkDefaultIntent(steps: readonly StepView[], intent: Intent | null, task: TaskContractContext): ValidationIssue[] {
  const out: ValidationIssue[] = [];
  for (const s of parsedSteps(steps)) {
    const permitted = intent ? intent.permittedTools.includes(s.tool.name) : NO_CONTRACT_EFFECTS.includes(s.tool.effect);
    if (permitted) continue;
    const i = issue(
      s,
      "outside_task_intent",
      `${s.path}.tool`,
      intent
        ? `The task has no contract, so the desk's default intent applies (${intent.label.toLowerCase()}); it permits ${intent.permittedTools.join(", ") || "no tool"}, not ${s.tool.name}`
        : `The task has no contract and the desk declares no default intent, so only replies and notes are permitted, not ${s.tool.name}`,
      intent
        ? { intent: intent.name, tool: s.tool.name, permittedTools: intent.permittedTools, noContract: true }
        : { intent: null, tool: s.tool.name, permittedEffects: NO_CONTRACT_EFFECTS, noContract: true },
    );
    out.push(
      task.supervisorMayAllow?.(s)
        ? { ...i, severity: "warning", needsAcknowledgement: true, message: `${i.message}. The gate policy lets a supervisor decide it`, details: { ...i.details, decisionBy: "supervisor" } }
        : i,
    );
  }
  return out;
}

const MONEY_TEXT = /(?:[$€£]\s?\d)|(?:\b\d[\d,.]*\s?(?:usd|eur|gbp|nok|sek|dkk|dollars?|euros?)\b)/i;

/** One reason an argument is derived from untrusted text, as `derived_from_untrusted_text` details carry it. */
export interface DerivedArg {
  /** The argument's path ("note", "window.from", "items.0"). */
  arg: string;
  /** Why, in words ("it copies 23 words of the customer message"). */
  why: string;
  /**
   * How it was found: `quote` (its `user_literal` quote lies in an untrusted part), `overlap` (it
   * copies a run of words of one: lib/task-contract/taint.ts), `flagged_text` (it repeats a span
   * the instruction scan flagged), `instruction` (it reads as an instruction itself, while the task
   * holds flagged text it likely renders in other words).
   */
  via: "quote" | "overlap" | "flagged_text" | "instruction";
  /** The part it came from (index in the task's parts) and that part's source, when one is known. */
  partIndex?: number;
  source?: TextSource;
  /**
   * The copied spans: `start`/`end` in the argument's value, `partStart`/`partEnd` in the part's
   * text (UTF-16 offsets, end exclusive), `words` how many words a copy spans. For a quote: the
   * quote's place in the part only.
   */
  spans?: { start?: number; end?: number; partIndex?: number; source?: TextSource; partStart?: number; partEnd?: number; words?: number }[];
}

/** Longest excerpt a message quotes (characters); longer ones end with "…". */
const EXCERPT = 80;
const excerpt = (s: string) => (s.length > EXCERPT ? `${s.slice(0, EXCERPT - 1).trimEnd()}…` : s);
/** At most this many copied spans are listed per argument (the first ones). */
const MAX_SPANS = 10;

/**
 * The untrusted-text rules:
 * - `instruction_in_source` (warning, no step): instruction-like text in any part (a staff or
 *   system part that carries it is then untrusted too: lib/task-contract/instruction-scan.ts);
 *   details `{partIndex, source, start, end, kind, excerpt}` (UTF-16 offsets in the part).
 * - `derived_from_untrusted_text` (warning): a string argument (at any depth) is derived from an
 *   untrusted part — its `user_literal` quote lies in one; it copies a run of words of one (taint:
 *   lib/task-contract/taint.ts, at least 6 words, or 4–5 words of 40 folded characters);
 *   it contains a flagged span; or, when the task holds flagged text, it reads as an instruction
 *   itself. Details `{args, sources: DerivedArg[]}` name the part and the copied spans. The gate
 *   policy alone never approves such a step, whatever its rule says: it waits for a person
 *   (`NEVER_AUTO_CODES`, ./gate.ts).
 * - `untrusted_authority` (warning, needs acknowledgement): such a derived argument is money, or
 *   the step moves money or speaks to the customer, or the derived text states an amount — a
 *   customer's words are no authority for money or commitments, so the approver must confirm them
 *   from the account data.
 * Each part is folded once (`foldForScan`) for the scan and the taint index; linear in the task
 * text and the arguments.
 */
export function checkUntrustedText(steps: readonly StepView[], task: TaskContractContext): ValidationIssue[] {
  const out: ValidationIssue[] = [];
  const folded = task.parts.map((p) => foldForScan(p.text));
  const flags = scanInstructions(task.parts, folded);
  for (const f of flags) {
    out.push({
      stage: "task_contract",
      code: "instruction_in_source",
      severity: "warning",
      path: `task.parts.${f.partIndex}`,
      message: isUntrustedSource(f.source)
        ? `The ${TEXT_SOURCE_LABELS[f.source]} ${INSTRUCTION_KIND_LABELS[f.kind]} ("${f.excerpt}"); it is the customer's text, not an instruction`
        : `The ${TEXT_SOURCE_LABELS[f.source]} text ${INSTRUCTION_KIND_LABELS[f.kind]} ("${f.excerpt}"); task text is data, not an instruction, so this part is treated as untrusted`,
      details: { ...f },
    });
  }
  const untrustedIdx = untrustedPartIndexes(task.parts, flags);
  if (untrustedIdx.size === 0) return out;
  const untrusted = [...untrustedIdx].sort((a, b) => a - b).map((i) => ({ i, source: task.parts[i].source, folded: folded[i] }));
  let index: TaintIndex | undefined; // built on the first argument long enough to hold a copy
  const flagged = flags
    .map((f) => ({ f, norm: foldForScan(f.excerpt).text }))
    .filter((x) => x.norm.length > 0);
  const fromLabel = (partIndex: number) => {
    const source = task.parts[partIndex].source;
    return isUntrustedSource(source) ? `the ${TEXT_SOURCE_LABELS[source]} (part ${partIndex + 1})` : `the ${TEXT_SOURCE_LABELS[source]} text that holds instruction-like passages (part ${partIndex + 1})`;
  };
  for (const s of parsedSteps(steps)) {
    const derived: (DerivedArg & { text: string })[] = [];
    for (const [arg, p] of Object.entries(s.step.provenance ?? {})) {
      if (p.kind !== "user_literal" || !p.quote) continue;
      const q = foldForScan(p.quote).text;
      const at = q ? untrusted.map((u) => ({ u, k: u.folded.text.indexOf(q) })).find((x) => x.k >= 0) : undefined;
      if (at) {
        const inPart = originalSpan(at.u.folded, at.k, at.k + q.length);
        derived.push({
          arg,
          why: `its quote is from ${fromLabel(at.u.i)}`,
          via: "quote",
          partIndex: at.u.i,
          source: at.u.source,
          spans: [{ partIndex: at.u.i, source: at.u.source, partStart: inPart.start, partEnd: inPart.end }],
          text: p.quote,
        });
      }
    }
    for (const [arg, value] of stringArgs(s.step.args)) {
      if (derived.some((d) => d.arg === arg)) continue;
      const v = foldForScan(value);
      if (v.text.length >= TAINT_SHINGLE_WORDS * 2) {
        index ??= buildTaintIndex(task.parts, untrustedIdx, folded);
        const runs = findCopiedRuns(index, value, v);
        if (runs.length > 0) {
          const first = runs[0];
          const words = runs.reduce((n, r) => n + r.words, 0);
          derived.push({
            arg,
            why: `it copies ${words} words of ${fromLabel(first.partIndex)}: "${excerpt(value.slice(first.start, first.end))}"`,
            via: "overlap",
            partIndex: first.partIndex,
            source: first.source,
            spans: runs.slice(0, MAX_SPANS),
            text: value,
          });
          continue;
        }
      }
      const hit = flagged.map((x) => ({ ...x, k: v.text.indexOf(x.norm) })).find((x) => x.k >= 0);
      if (hit) {
        const inValue = originalSpan(v, hit.k, hit.k + hit.norm.length);
        derived.push({
          arg,
          why: `it repeats flagged ${isUntrustedSource(hit.f.source) ? "customer" : "task"} text ("${hit.norm}")`,
          via: "flagged_text",
          partIndex: hit.f.partIndex,
          source: hit.f.source,
          spans: [{ ...inValue, partIndex: hit.f.partIndex, source: hit.f.source, partStart: hit.f.start, partEnd: hit.f.end }],
          text: value,
        });
        continue;
      }
      if (flags.length > 0) {
        const own = scanFolded(value, v);
        if (own.length > 0) {
          derived.push({
            arg,
            why: `it reads as an instruction itself ("${excerpt(value.slice(own[0].start, own[0].end))}", ${INSTRUCTION_KIND_LABELS[own[0].kind]}) while the task holds flagged text`,
            via: "instruction",
            spans: own.slice(0, MAX_SPANS).map((h) => ({ start: h.start, end: h.end })),
            text: value,
          });
        }
      }
    }
    if (derived.length === 0) continue;
    const args = derived.map((d) => d.arg);
    out.push({
      stage: "task_contract",
      code: "derived_from_untrusted_text",
      severity: "warning",
      stepId: s.id,
      path: `${s.path}.args.${args[0]}`,
      message: `"${args.join('", "')}" ${derived.length > 1 ? "come" : "comes"} from untrusted text (${derived.map((d) => d.why).join("; ")}); a person must approve this step`,
      details: { args, sources: derived.map(({ text: _text, ...d }) => d) },
    });
    const moneyFields = new Set(s.tool.fields.filter((f) => f.kind === "money").map((f) => f.name));
    const authority =
      s.tool.amount(s.step.args as never) !== undefined ||
      s.tool.effect === "customer_visible" ||
      derived.some((d) => moneyFields.has(d.arg.split(".")[0]) || MONEY_TEXT.test(d.text));
    if (authority) {
      out.push({
        stage: "task_contract",
        code: "untrusted_authority",
        severity: "warning",
        stepId: s.id,
        path: `${s.path}.args.${args[0]}`,
        message: "A customer's words are no authority for money or a commitment: confirm this step from the account data before approving it",
        needsAcknowledgement: true,
        details: { args },
      });
    }
  }
  return out;
}

/** Every string argument, at any depth (objects and lists), as [dotted path, value]. */
function stringArgs(args: unknown, prefix = ""): [string, string][] {
  const out: [string, string][] = [];
  if (!args || typeof args !== "object") return out;
  for (const [k, v] of Object.entries(args)) {
    const path = prefix ? `${prefix}.${k}` : k;
    if (typeof v === "string") out.push([path, v]);
    else if (v && typeof v === "object") out.push(...stringArgs(v, path));
  }
  return out;
}
