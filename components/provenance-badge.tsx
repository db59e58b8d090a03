import type { AccountSnapshot } from "@/lib/desk/snapshot";
import { formatFormula, formatInstant } from "@/lib/text/format";
import type { Money } from "@/lib/money/format-money";
import type { Provenance } from "@/lib/plan/schema";
import type { FieldSpec } from "@/lib/tools/types";
import type { ProvenanceCheck } from "@/lib/validation/provenance-check";
import { ArgValue } from "./arg-value";

/**
 * What Plandesk found when it checked the stated origin (lib/validation/provenance-check.ts):
 * "checked" when the account data or the task text bears it out, "unverified" when it could not
 * be checked (never shown as fact), or the mismatch itself ("claimed $1,500.00, formula gives
 * $1,060.00"). Nothing for origins that make no claim (model, operator). With `untrusted` (the
 * validator found the value comes from untrusted text) a found quote reads "untrusted · not checked"
 * in red, never "checked".
 */
export function VerificationMark({ check, untrusted = false }: { check: ProvenanceCheck | null | undefined; untrusted?: boolean }) {
  if (!check) return null;
  if (untrusted && check.status !== "mismatch") {
    // A quote found in untrusted text proves someone wrote it, not that it is owed: never green.
    return (
      <span
        data-testid="provenance-check"
        data-status="untrusted"
        className="ml-1 rounded bg-red-700 px-1 text-[10px] font-semibold text-white"
        title="The value is in text Plandesk does not trust (a customer's message, or text flagged as instructions): it shows what someone wrote, not what is owed. Confirm it from the account data."
      >
        untrusted · not checked
      </span>
    );
  }
  if (check.status === "checked") {
    return (
      <span data-testid="provenance-check" data-status="checked" className="ml-1 rounded bg-emerald-100 px-1 text-[10px] font-semibold text-emerald-900" title={check.message}>
        checked
      </span>
    );
  }
  if (check.status === "unverified") {
    return (
      <span data-testid="provenance-check" data-status="unverified" className="ml-1 rounded border border-dashed border-slate-400 px-1 text-[10px] font-semibold text-slate-700" title={check.message}>
        unverified
      </span>
    );
  }
  return (
    <span data-testid="provenance-check" data-status="mismatch" role="status" className="ml-1 rounded bg-red-100 px-1 text-[10px] font-semibold text-red-900" title={check.message}>
      mismatch: {check.message}
    </span>
  );
}

/** "untrusted text" in red: the validator found the value repeats untrusted text, whatever origin the agent stated. */
export function UntrustedTextMark() {
  return (
    <span
      data-testid="untrusted-text-mark"
      className="ml-1 rounded bg-red-700 px-1 text-[10px] font-semibold text-white"
      title="The value repeats text Plandesk does not trust (a customer's message, or text flagged as instructions). Confirm it from the account data."
    >
      untrusted text
    </span>
  );
}

const BASE = "inline-flex items-center gap-1 rounded px-1.5 py-0.5 text-[11px] font-medium leading-4";

/**
 * The origin of one argument value as a small badge (docs/design.md §3): the agent's model, the task
 * text (quote on hover), account data (record type and id), computed (formula), or an operator
 * edit (who, when, and the value it replaced). `undefined` = the agent did not say.
 * Approval never changes what this shows: it reads the stored step's provenance only.
 */
export function ProvenanceBadge({
  provenance,
  users,
  field,
  desk,
  subPath,
  value,
  check,
  untrusted = false,
}: {
  provenance: Provenance | undefined;
  /** The argument's value, so a computed money value reads "$3,180.00 × 2/6 = $1,060.00". */
  value?: unknown;
  users: Record<string, string>;
  field?: FieldSpec;
  desk?: AccountSnapshot;
  /** For a provenance entry on part of an argument, e.g. "from" of `window.from`. */
  subPath?: string;
  /** What Plandesk found when it checked this origin against live data ({@link VerificationMark}). */
  check?: ProvenanceCheck | null;
  /** The validator found this value comes from untrusted text (`derived_from_untrusted_text`): badged red, never "checked". */
  untrusted?: boolean;
}) {
  const prefix = subPath ? <span className="font-mono text-[10px] opacity-80">{subPath}:</span> : null;
  if (!provenance) {
    return (
      <span data-testid="provenance" data-kind="none" className={`${BASE} border border-dashed border-slate-300 text-slate-500`} title="The agent did not say where this value came from.">
        {prefix}origin not stated
        {untrusted && <UntrustedTextMark />}
      </span>
    );
  }
  switch (provenance.kind) {
    case "model":
      return (
        <span data-testid="provenance" data-kind="model" className={`${BASE} bg-slate-100 text-slate-700`} title="Written by the agent's model">
          {prefix}model
          {untrusted && <UntrustedTextMark />}
        </span>
      );
    case "user_literal":
      return (
        <span
          data-testid="provenance"
          data-kind="user_literal"
          data-untrusted={untrusted ? "true" : undefined}
          tabIndex={0}
          className={`${BASE} cursor-help ${untrusted ? "bg-red-50 text-red-950 ring-1 ring-red-300" : "bg-teal-50 text-teal-900 ring-1 ring-teal-200"}`}
          title={provenance.quote ? `From the task text${untrusted ? " (untrusted)" : ""}: “${provenance.quote}”` : "Taken from the task text"}
        >
          {prefix}
          {untrusted ? "untrusted task text" : "task text"}
          {provenance.quote && <span className="sr-only">: “{provenance.quote}”</span>}
          <VerificationMark check={check} untrusted={untrusted} />
        </span>
      );
    case "source":
      return (
        <span
          data-testid="provenance"
          data-kind="source"
          className={`${BASE} bg-indigo-50 text-indigo-900 ring-1 ring-indigo-200`}
          title={`Read from account data: ${provenance.recordType} ${provenance.recordId}`}
        >
          {prefix}account data · {provenance.recordType} <code className="font-mono">{provenance.recordId}</code>
          <VerificationMark check={check} />
          {untrusted && <UntrustedTextMark />}
        </span>
      );
    case "computed": {
      // "= $1,060.00" only when Plandesk recomputed it: a claimed result is never shown as the formula's.
      const formula = provenance.formula ? humanFormula(provenance.formula, check?.status === "checked" ? value : undefined, desk) : undefined;
      return (
        <span
          data-testid="provenance"
          data-kind="computed"
          className={`${BASE} bg-amber-50 text-amber-950 ring-1 ring-amber-200`}
          title={provenance.formula ? `Computed: ${provenance.formula}` : "Computed from other values"}
        >
          {prefix}
          <span>
            computed{formula && <span className="font-normal">: {formula}</span>}
          </span>
          <VerificationMark check={check} />
          {untrusted && <UntrustedTextMark />}
        </span>
      );
    }
    case "operator": {
      const who = users[provenance.userId] ?? provenance.userId;
      const hasPrevious = "previous" in provenance && provenance.previous !== undefined;
      return (
        <span data-testid="provenance" data-kind="operator" className={`${BASE} flex-wrap bg-fuchsia-50 text-fuchsia-950 ring-1 ring-fuchsia-200`}>
          {prefix}
          <span>
            {hasPrevious ? "edited" : "set"} by {who} · {formatInstant(provenance.at)}
          </span>
          {hasPrevious && (
            <span className="font-normal">
              · was{" "}
              <span className="line-through decoration-fuchsia-400">
                {field && desk && !subPath ? <ArgValue field={field} value={provenance.previous} desk={desk} /> : <code>{JSON.stringify(provenance.previous)}</code>}
              </span>
            </span>
          )}
        </span>
      );
    }
  }
}

/** A computed formula for people: minor units of money we know (the desk's invoice totals, balances, fees) read as money; the money result appended (lib/text/format.ts `formatFormula`). */
function humanFormula(formula: string, value: unknown, desk?: AccountSnapshot): string {
  const isMoney = (v: unknown): v is Money => !!v && typeof v === "object" && typeof (v as Money).minor === "number" && typeof (v as Money).currency === "string";
  const known: Money[] = desk ? Object.values(desk.invoices).flatMap((i) => [i.total, i.openBalance, ...i.fees.map((f) => f.amount)]) : [];
  return formatFormula(formula, known, isMoney(value) ? value : undefined);
}
