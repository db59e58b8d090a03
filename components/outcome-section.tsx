import { formatMoney, type Money } from "@/lib/money/format-money";
import type { OutcomeLabelView, OutcomeRecord } from "@/lib/outcomes/outcome";
import { deliveryWords, feeWords, laterInWords } from "@/lib/outcomes/outcome-words";
import { formatWindow } from "@/lib/effects/describe-change";


/*
 * The run page's "Outcome" section and the review queue's card body
 * (docs/design.md "Did the edit help?"): what the run wrote, beside what the agent's own plan would have moved, what happened
 * afterwards, and the signals as a suggestion — never as the label, which is a supervisor's.
 */

const moneyList = (ms: readonly Money[]) => (ms.length ? ms.map((m) => formatMoney(m)).join(" + ") : "none");
const signed = (m: Money) => `${m.minor > 0 ? "+" : "−"}${formatMoney({ minor: Math.abs(m.minor), currency: m.currency })}`;

const capitalise = (t: string) => `${t.charAt(0).toUpperCase()}${t.slice(1)}`;

const EVENT_WORDS: Record<string, string> = { reopened: "Reopened", customer_replied: "Customer replied", resolved: "Resolved", chargeback: "Chargeback" };
const SIGNAL_WORDS: Record<string, string> = {
  reopened: "reopened within the window",
  chargeback: "chargeback",
  over_compensation: "over-compensation",
  beyond_cap: "beyond the task's cap",
  resolved: "resolved",
  customer_replied: "customer replied",
  commitment_sent: "commitment sent",
};

/** The record's facts: money (and the agent's plan beside it), cap, commitments, afterwards, signals. */
export function OutcomeFacts({ record }: { record: OutcomeRecord }) {
  return (
    <div className="space-y-3 text-sm">
      <p data-testid="outcome-summary" className="font-medium">
        {record.summary}
      </p>
      <table className="w-full text-sm">
        <caption className="sr-only">Money out, written vs the agent&apos;s plan</caption>
        <thead>
          <tr className="text-left text-xs text-slate-600">
            <th className="py-1 font-medium">Money out</th>
            <th className="py-1 font-medium">Written</th>
            {record.proposedMoneyOut && <th className="py-1 font-medium">Agent&apos;s plan</th>}
            {record.moneyDifference && <th className="py-1 font-medium">Difference</th>}
          </tr>
        </thead>
        <tbody>
          <tr className="border-t border-slate-100">
            <td className="py-1 text-xs text-slate-600">per currency</td>
            <td className="py-1 tabular-nums">{moneyList(record.moneyOut)}</td>
            {record.proposedMoneyOut && <td className="py-1 tabular-nums">{moneyList(record.proposedMoneyOut)}</td>}
            {record.moneyDifference && (
              <td className="py-1 tabular-nums" data-testid="outcome-difference">
                {record.moneyDifference.length ? record.moneyDifference.map(signed).join(", ") : "none"}
              </td>
            )}
          </tr>
        </tbody>
      </table>
      {record.moneyLines.length > 0 && (
        <ul className="text-xs text-slate-700">
          {record.moneyLines.map((l) => (
            <li key={l.stepId}>
              {l.kind === "refund" ? "Refund" : l.kind === "credit" ? "Credit" : "Waived fee"} {formatMoney(l.amount)} ({l.tool}, step {l.stepId})
            </li>
          ))}
        </ul>
      )}
      {(record.deliveries.length > 0 || (record.deliveryDifference?.length ?? 0) > 0 || record.feesWaived.length > 0 || (record.feeDifference?.length ?? 0) > 0) && (
        <div data-testid="outcome-deliveries-fees">
          <h3 className="text-xs font-semibold text-slate-700">Deliveries and fees</h3>
          <ul className="text-xs text-slate-700">
            {record.deliveries.map((d) => (
              <li key={`d-${d.stepId}`}>
                Delivery of {d.shipmentId} set to {formatWindow(d.window)} ({d.tool}, step {d.stepId})
              </li>
            ))}
            {record.feesWaived.map((f) => (
              <li key={`f-${f.stepId}`}>
                {f.feeCode} fee on {f.invoiceId}: {formatMoney(f.amount)} waived ({f.tool}, step {f.stepId})
              </li>
            ))}
          </ul>
          {record.edited && (
            <ul className="mt-1 text-xs font-medium text-slate-800" aria-label="Deliveries and fees beside the agent's plan" data-testid="outcome-effect-difference">
              {(record.deliveryDifference ?? []).map((d) => (
                <li key={`dd-${d.shipmentId}`}>
                  {capitalise(deliveryWords(d))}
                  {d.proposed && d.executed ? ` (agent: ${formatWindow(d.proposed)}; written: ${formatWindow(d.executed)})` : ""}.
                </li>
              ))}
              {(record.feeDifference ?? []).map((f) => (
                <li key={`fd-${f.invoiceId}-${f.feeCode}-${f.difference.currency}`}>{capitalise(feeWords(f))}.</li>
              ))}
              {(record.deliveryDifference ?? []).length === 0 && (record.feeDifference ?? []).length === 0 && <li>Deliveries and fees as the agent proposed them.</li>}
            </ul>
          )}
        </div>
      )}
      <p className="text-xs text-slate-700">
        {record.compensationCap
          ? record.beyondCap.length
            ? `Beyond the task's cap of ${formatMoney(record.compensationCap)}: ${moneyList(record.beyondCap)}.`
            : `Within the task's cap of ${formatMoney(record.compensationCap)}.`
          : "The task has no compensation cap; the agent's plan is the bar."}
      </p>
      <div>
        <h3 className="text-xs font-semibold text-slate-700">Commitments sent to the customer</h3>
        {record.commitments.length === 0 ? (
          <p className="text-xs text-slate-600">None: no written reply promised money or a date.</p>
        ) : (
          <ul className="list-disc pl-5 text-xs">
            {record.commitments.map((c, i) => (
              <li key={i}>
                {c.kind === "money" ? "Money" : `Date ${c.date}`}: “{c.clause}”
              </li>
            ))}
          </ul>
        )}
      </div>
      <div>
        <h3 className="text-xs font-semibold text-slate-700">Afterwards</h3>
        {record.afterwards.length === 0 ? (
          <p className="text-xs text-slate-600">No ticket event reported since the run executed.</p>
        ) : (
          <ul className="text-xs" aria-label="Ticket events afterwards">
            {record.afterwards.map((e, i) => (
              <li key={i} className={e.countsAgainst ? "font-medium text-red-800" : ""}>
                {EVENT_WORDS[e.type] ?? e.type} {laterInWords(e.daysAfter)}
                {e.countsAgainst ? ` (within ${record.reopenWindowDays} days: counts against the run)` : ""}
                {e.detail ? ` — “${e.detail}”` : ""}
              </li>
            ))}
          </ul>
        )}
      </div>
      <p className="text-xs text-slate-700" data-testid="outcome-suggestion">
        Signals: {record.signals.length ? record.signals.map((s) => SIGNAL_WORDS[s] ?? s).join(", ") : "none"}.{" "}
        {record.suggestion.label ? `They suggest “${record.suggestion.label}” (${record.suggestion.because.join("; ")}) — a suggestion, not the label.` : "No suggestion: a person judges."}
      </p>
    </div>
  );
}

/** The run page's "Outcome" section: the record and the supervisor's label (or that there is none yet). */
export function OutcomeSection({ record, label, canLabel }: { record: OutcomeRecord; label: OutcomeLabelView | null; canLabel: boolean }) {
  return (
    <section aria-labelledby="outcome-h" className="rounded-lg border border-slate-200 bg-white p-4" data-testid="run-outcome">
      <h2 id="outcome-h" className="font-semibold">
        Outcome
      </h2>
      <p className="mb-2 text-xs text-slate-500">What the run wrote (steps reported succeeded){record.edited ? ", beside what the agent's own plan would have moved" : ""}.</p>
      <OutcomeFacts record={record} />
      {record.edited && (
        <p className="mt-3 text-sm" data-testid="outcome-label">
          {label ? (
            <>
              Labelled <strong>{label.label}</strong> by {label.by.name}: “{label.reason}”
            </>
          ) : (
            <>Not labelled yet.</>
          )}{" "}
          {canLabel && (
            <a href="/outcomes/review" className="text-blue-700 underline">
              Review queue
            </a>
          )}
        </p>
      )}
    </section>
  );
}
