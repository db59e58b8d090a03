import type { AccountSnapshot } from "../desk/snapshot";
import { accountIdOf, accountName } from "../desk/lookup";
import { formatMoney, type Money } from "../money/format-money";
import { scanInstructions, untrustedPartIndexes, INSTRUCTION_KIND_LABELS } from "../task-contract/instruction-scan";
import { REFUND_TOOLS, TEXT_SOURCE_LABELS, isUntrustedSource } from "../task-contract/schema";
import { normalizeWithMap } from "../text/scan-map";
import { parsedSteps, type ParsedStepView, type StepView, type TaskContractContext, type ValidationIssue, type ValidationPhase } from "./types";

/** Codes a gate-policy rule may turn from a refusal into a supervisor's decision. */
export const SUPERVISOR_DECIDABLE_CODES = ["outside_task_intent", "outside_task_accounts"] as const;

/** Codes after which the gate policy alone never approves a step (it waits for a person). */
export const NEVER_AUTO_CODES: readonly string[] = ["derived_from_untrusted_text", "untrusted_authority"];

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
 * (`supervisorMayAllow`). No contract: no issue.
 */
export function checkContractRules(steps: readonly StepView[], desk: AccountSnapshot, task: TaskContractContext, phase: ValidationPhase = "recheck"): ValidationIssue[] {
  const { contract, intent } = task;
  if (!contract) return [];
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

const MONEY_TEXT = /(?:[$€£]\s?\d)|(?:\b\d[\d,.]*\s?(?:usd|eur|gbp|nok|sek|dkk|dollars?|euros?)\b)/i;

/**
 * The untrusted-text rules:
 * - `instruction_in_source` (warning, no step): instruction-like text in any part (a staff or
 *   system part that carries it is then untrusted too: lib/task-contract/instruction-scan.ts);
 *   details `{partIndex, source, start, end, kind, excerpt}` (UTF-16 offsets in the part).
 * - `derived_from_untrusted_text` (warning): an argument's `user_literal` quote lies in an untrusted
 *   part, or an argument's text contains a flagged span. The gate policy alone never
 *   approves such a step, whatever its rule says: it waits for a person.
 * - `untrusted_authority` (warning, needs acknowledgement): such a derived argument is money, or
 *   the step moves money or speaks to the customer, or the derived text states an amount — a
 *   customer's words are no authority for money or commitments, so the approver must confirm them
 *   from the account data.
 */
export function checkUntrustedText(steps: readonly StepView[], task: TaskContractContext): ValidationIssue[] {
  const out: ValidationIssue[] = [];
  const flags = scanInstructions(task.parts);
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
  const untrusted = task.parts.map((p, i) => ({ i, source: p.source, norm: normalizeWithMap(p.text).text })).filter((p) => untrustedIdx.has(p.i));
  if (untrusted.length === 0) return out;
  const flaggedFrom = new Map(flags.map((f) => [normalizeWithMap(f.excerpt).text, f.source] as const).filter(([t]) => t.length > 0));
  const flagged = [...flaggedFrom.keys()];
  const flagSource = (hit: string) => (isUntrustedSource(flaggedFrom.get(hit)!) ? "customer" : "task");
  for (const s of parsedSteps(steps)) {
    const derived: { arg: string; why: string; text: string; partIndex?: number }[] = [];
    for (const [arg, p] of Object.entries(s.step.provenance ?? {})) {
      if (p.kind !== "user_literal" || !p.quote) continue;
      const q = normalizeWithMap(p.quote).text;
      const part = q ? untrusted.find((u) => u.norm.includes(q)) : undefined;
      if (part) {
        const from = isUntrustedSource(part.source) ? `the ${TEXT_SOURCE_LABELS[part.source]}` : `the ${TEXT_SOURCE_LABELS[part.source]} text that holds instruction-like passages`;
        derived.push({ arg, why: `its quote is from ${from}`, text: p.quote, partIndex: part.i });
      }
    }
    for (const [arg, value] of stringArgs(s.step.args)) {
      if (derived.some((d) => d.arg === arg)) continue;
      const v = normalizeWithMap(value).text;
      const hit = flagged.find((f) => v.includes(f));
      if (hit) derived.push({ arg, why: `it repeats flagged ${flagSource(hit)} text ("${hit}")`, text: value });
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
      details: { args, sources: derived.map(({ arg, why, partIndex }) => ({ arg, why, partIndex })) },
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

/** Every string argument, at any depth, as [dotted path, value]. */
function stringArgs(args: Record<string, unknown>, prefix = ""): [string, string][] {
  const out: [string, string][] = [];
  for (const [k, v] of Object.entries(args)) {
    const path = prefix ? `${prefix}.${k}` : k;
    if (typeof v === "string") out.push([path, v]);
    else if (v && typeof v === "object" && !Array.isArray(v)) out.push(...stringArgs(v as Record<string, unknown>, path));
  }
  return out;
}
