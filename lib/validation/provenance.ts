import type { AccountSnapshot } from "../desk/snapshot";
import { accountIdOf, describeRecord, findRecord, notFoundPhrase, type RecordKind } from "../desk/lookup";
import { canonicalJson } from "../plan/canonical-json";
import { parsedSteps, type StepView, type ValidationIssue } from "./types";

/**
 * Provenance is checked, not displayed on trust (DESIGN.md §3, issue #12). Part of stage 5,
 * *task contract*: for each argument whose origin the agent states,
 * - `source` {recordType, recordId}: the record must exist as that kind (invoice, shipment,
 *   ticket, account), belong to the ticket's account, and hold the argument's value in one of its
 *   fields (its id, account, balance, total, a fee, a window or a day of it, destination, subject…);
 * - `user_literal` {quote?}: the quote — or, without one, the argument's value — must occur in
 *   the task's text (case and spacing ignored; checked when the context carries the text); the
 *   task's own ticket number counts as stated;
 * otherwise an `unverified_provenance` warning on that argument (path `steps.N.provenance.<arg>`),
 * which the card shows next to the badge. `model`, `computed` and `operator` origins are what they
 * say (a person's edit is recorded by the server, never by the agent). Pure.
 */
export function checkProvenance(steps: readonly StepView[], desk: AccountSnapshot, taskText?: string): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  for (const s of parsedSteps(steps)) {
    for (const [arg, p] of Object.entries(s.step.provenance ?? {})) {
      const value = valueAt(s.step.args, arg);
      let why: string | null = null;
      if (p.kind === "source") why = checkSource(desk, p.recordType, p.recordId, value);
      else if (p.kind === "user_literal") why = checkLiteral(desk, taskText, p.quote, value);
      if (!why) continue;
      issues.push({
        stage: "task_contract",
        code: "unverified_provenance",
        severity: "warning",
        stepId: s.id,
        path: `${s.path}.provenance.${arg}`,
        message: `The agent says "${arg}" ${p.kind === "source" ? `was read from ${p.recordType} ${p.recordId}` : "was taken from the task text"}, but ${why}; treat the value as the agent's own`,
        details: { arg, kind: p.kind, reason: why },
      });
    }
  }
  return issues;
}

const KINDS: readonly RecordKind[] = ["invoice", "shipment", "ticket", "account"];

function checkSource(desk: AccountSnapshot, recordType: string, recordId: string, value: unknown): string | null {
  if (!(KINDS as readonly string[]).includes(recordType)) return `"${recordType}" is not a kind of record Plandesk knows`;
  const kind = recordType as RecordKind;
  const record = findRecord(desk, kind, recordId);
  if (!record) return `${describeRecord(kind, recordId)} ${notFoundPhrase(desk)}`;
  if (accountIdOf(desk, kind, recordId) !== desk.ticket.accountId) return `${describeRecord(kind, recordId)} belongs to another account than the ticket's`;
  if (value === undefined) return "the step has no such argument";
  const wanted = canon(value);
  return fieldValues(record).some((v) => canon(v) === wanted) ? null : `no field of ${describeRecord(kind, recordId)} holds that value`;
}

function checkLiteral(desk: AccountSnapshot, taskText: string | undefined, quote: string | undefined, value: unknown): string | null {
  if (taskText === undefined) return null; // no task text in this context: nothing to check against
  const text = squash(taskText);
  const needle = quote ?? (typeof value === "string" || typeof value === "number" ? String(value) : undefined);
  if (needle === undefined) return quote === undefined ? "no quote was given for a value that is not text" : null;
  if (!quote && String(value) === desk.ticket.id) return null; // the task IS this ticket
  return text.includes(squash(needle)) ? null : `${quote ? "the quote" : "the value"} does not occur in the task text`;
}

/** Every value a record holds, at any depth (ids, money, windows and their days, strings). */
function fieldValues(record: object): unknown[] {
  const out: unknown[] = [];
  const walk = (v: unknown) => {
    out.push(v);
    if (Array.isArray(v)) v.forEach(walk);
    else if (v && typeof v === "object") Object.values(v).forEach(walk);
  };
  walk(record);
  return out;
}

/** The value at a top-level argument name or a dotted path ("window.from"); own properties only. */
function valueAt(args: Record<string, unknown>, path: string): unknown {
  let cur: unknown = args;
  for (const key of path.split(".")) {
    if (!cur || typeof cur !== "object" || !Object.prototype.hasOwnProperty.call(cur, key)) return undefined;
    cur = (cur as Record<string, unknown>)[key];
  }
  return cur;
}

const squash = (s: string) => s.normalize("NFKC").toLowerCase().replace(/\s+/g, " ").trim();
const canon = (v: unknown) => {
  try {
    return canonicalJson(v);
  } catch {
    return "\u0000unserialisable";
  }
};
