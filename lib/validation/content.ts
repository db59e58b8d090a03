import { formatMoney, type Money } from "../money/format-money";
import { findHiddenCharacters } from "../text/hidden-characters";
import { findCommitments } from "./commitments";
import { parsedSteps, type StepView, type ValidationIssue } from "./types";

/**
 * Stage 6, *content* (docs/design.md §1.6): customer-facing text (a tool's `customerText`, i.e. a
 * `send_reply` body, whoever wrote it) is scanned for commitments the plan does not back.
 * Code `unbacked_commitment` (warning, needs acknowledgement), details `{kind: "money" | "date", …}`:
 * - a money promise (refund, credit, compensation, reimbursement, waiver) when no step of the
 *   plan moves money (a tool whose `amount()` is defined: issue_refund, apply_credit,
 *   waive_fee), or when a promised amount equals no such step's amount;
 * - a delivery-date promise when no step's `deliveryWindow()` (reschedule_delivery) contains
 *   that day.
 * Only steps that passed shape back a promise; skips text of steps whose shape failed.
 */
export function checkContent(steps: readonly StepView[], now: Date): ValidationIssue[] {
  const parsed = parsedSteps(steps);
  const moved: Money[] = [];
  const windows: Array<{ from: string; to: string }> = [];
  for (const s of parsed) {
    const m = s.tool.amount(s.step.args);
    if (m) moved.push(m);
    const w = s.tool.deliveryWindow?.(s.step.args);
    if (w) windows.push(w);
  }

  const issues: ValidationIssue[] = [];
  for (const s of parsed) {
    const text = s.tool.customerText?.(s.step.args);
    if (!text) continue;
    const textField = s.tool.fields.find((f) => f.kind === "textarea")?.name ?? "body";
    const base = {
      stage: "content" as const,
      code: "unbacked_commitment",
      severity: "warning" as const,
      stepId: s.id,
      path: `${s.path}.args.${textField}`,
      needsAcknowledgement: true,
    };
    const reported = new Set<string>();
    const push = (key: string, issue: ValidationIssue) => {
      if (reported.has(key)) return;
      reported.add(key);
      issues.push(issue);
    };
    for (const c of findCommitments(text, now)) {
      if (c.kind === "money") {
        if (moved.length === 0) {
          push(`money:${c.keyword}`, {
            ...base,
            message: `The reply promises money ("${c.clause}") but no step in this plan moves money (refund, credit or fee waiver)`,
            details: { kind: "money", keyword: c.keyword, quote: c.clause, amounts: c.amounts },
          });
          continue;
        }
        for (const a of c.amounts) {
          const backed = moved.some((m) => m.minor === a.minor && (a.currency === undefined || a.currency === m.currency));
          if (backed) continue;
          push(`amount:${a.minor}:${a.currency ?? ""}`, {
            ...base,
            message: `The reply promises ${a.phrase} ("${c.clause}") but no refund, credit or fee-waiver step in this plan is for that amount (the plan moves ${moved.map(formatMoney).join(", ")})`,
            details: { kind: "money", keyword: c.keyword, quote: c.clause, amount: a, planAmounts: moved },
          });
        }
      } else {
        if (windows.some((w) => w.from <= c.date && c.date <= w.to)) continue;
        const planned = windows.length ? ` (the plan's windows: ${windows.map((w) => (w.from === w.to ? w.from : `${w.from} to ${w.to}`)).join("; ")})` : "";
        push(`date:${c.date}`, {
          ...base,
          message: `The reply promises delivery on ${c.date} ("${c.clause}") but no reschedule_delivery step in this plan has a window containing that day${planned}`,
          details: { kind: "date", date: c.date, phrase: c.phrase, quote: c.clause, windows },
        });
      }
    }
  }
  issues.push(...hiddenCharacterIssues(parsed));
  return issues;
}

/** At most this many hidden characters are named in one issue's details. */
const MAX_NAMED_HIDDEN = 10;

/**
 * `hidden_characters` (warning, needs acknowledgement): a text argument of any step holds
 * characters a person cannot see or tell apart — zero-width characters, bidi controls (which can
 * make "\u202Ednufer\u202C" display as "refund"), the BOM, soft hyphens, no-break spaces. The card
 * shows each as a marker; approving means acknowledging them. One issue per argument, details
 * `{characters: [{name, codePoint, index}], count}` (the first MAX_NAMED_HIDDEN named).
 */
function hiddenCharacterIssues(parsed: ReturnType<typeof parsedSteps>): ValidationIssue[] {
  const out: ValidationIssue[] = [];
  for (const s of parsed) {
    const visit = (value: unknown, at: string, depth: number) => {
      if (depth > 8) return;
      if (typeof value === "string") {
        const found = findHiddenCharacters(value);
        if (found.length === 0) return;
        out.push({
          stage: "content",
          code: "hidden_characters",
          severity: "warning",
          stepId: s.id,
          path: `${s.path}.args.${at}`,
          needsAcknowledgement: true,
          message: `${at} holds ${found.length} hidden character${found.length === 1 ? "" : "s"} (${[...new Set(found.map((f) => f.name))].slice(0, 5).join(", ")}) that change how it reads or what it is; they are shown as markers`,
          details: { characters: found.slice(0, MAX_NAMED_HIDDEN), count: found.length },
        });
      } else if (Array.isArray(value)) value.forEach((v, i) => visit(v, `${at}.${i}`, depth + 1));
      else if (value && typeof value === "object") for (const [k, v] of Object.entries(value)) visit(v, at ? `${at}.${k}` : k, depth + 1);
    };
    visit(s.step.args, "", 0);
  }
  return out;
}
