import { formatMoney, type Money } from "@/lib/money/format-money";
import type { OutcomeInsights } from "@/lib/server/outcomes/outcome-insights";

/*
 * /insights "Did the edits help?": edited runs that executed, by the supervisors' label and by
 * each computed signal, and over-compensation per tool, per operator and per day (tables: every
 * number readable, nothing clipped at any desk size).
 */

const SIGNAL_WORDS: Record<string, string> = {
  reopened: "Reopened within the window",
  chargeback: "Chargeback",
  over_compensation: "Over-compensation",
  beyond_cap: "Beyond the task's cap",
  resolved: "Resolved",
  customer_replied: "Customer replied",
  commitment_sent: "Commitment sent",
  none: "No signal",
};

function Counts({ caption, rows }: { caption: string; rows: { key: string; label: string; runs: number }[] }) {
  return (
    <table className="mt-2 w-full text-sm">
      <caption className="text-left text-xs font-medium text-slate-600">{caption}</caption>
      <tbody>
        {rows.map((r) => (
          <tr key={r.key} className="border-b border-slate-100">
            <th scope="row" className="py-1 text-left font-normal">
              {r.label}
            </th>
            <td className="py-1 text-right tabular-nums">{r.runs}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** The section: label and signal splits, then over-compensation per tool, operator and day. */
export function OutcomeInsightsSection({ data }: { data: OutcomeInsights }) {
  const o = data.overCompensation;
  return (
    <section aria-labelledby="helped-h" className="mt-6 min-w-0 rounded-lg border border-slate-200 bg-white p-4" data-testid="edit-outcomes">
      <h2 id="helped-h" className="font-semibold">
        Did the edits help?
      </h2>
      <p className="text-sm text-slate-600">
        {data.edited} edited run{data.edited === 1 ? "" : "s"} executed. Labels are the supervisors&apos; (<a href="/outcomes/review" className="text-blue-700 underline">review queue</a>); signals are computed from what
        was written and the ticket events. Over-compensation: money out beyond both the agent&apos;s own plan and the task&apos;s ask (its compensation cap, where there is one).
      </p>
      <div className="mt-2 grid gap-6 md:grid-cols-2">
        <div data-testid="edits-by-label">
          <Counts caption="Edited runs by label" rows={data.byLabel.map((l) => ({ key: l.label, label: l.label[0].toUpperCase() + l.label.slice(1), runs: l.runs }))} />
        </div>
        <div data-testid="edits-by-signal">
          <Counts caption="Edited runs by computed signal" rows={data.bySignal.map((s) => ({ key: s.signal, label: SIGNAL_WORDS[s.signal] ?? s.signal, runs: s.runs }))} />
        </div>
      </div>
      <h3 className="mt-4 text-sm font-semibold">Over-compensation: {o.runs} run{o.runs === 1 ? "" : "s"}</h3>
      <div className="mt-1 grid gap-6 md:grid-cols-3">
        <table className="w-full text-sm" data-testid="over-by-tool">
          <caption className="text-left text-xs font-medium text-slate-600">Per tool (money beyond the agent&apos;s plan)</caption>
          <tbody>
            {o.byTool.length === 0 ? (
              <tr><td className="py-1 text-slate-500">None</td></tr>
            ) : (
              o.byTool.map((t) => (
                <tr key={t.tool} className="border-b border-slate-100">
                  <th scope="row" className="py-1 text-left font-normal"><code className="text-xs">{t.tool}</code></th>
                  <td className="py-1 text-right tabular-nums">{t.runs}</td>
                  <td className="py-1 pl-2 text-right tabular-nums text-xs">{t.excess.map((m) => formatMoney(m as Money)).join(", ")}</td>
                </tr>
              ))
            )}
          </tbody>
        </table>
        <table className="w-full text-sm" data-testid="over-by-operator">
          <caption className="text-left text-xs font-medium text-slate-600">Per operator (of their edited runs)</caption>
          <tbody>
            {o.byOperator.length === 0 ? (
              <tr><td className="py-1 text-slate-500">None</td></tr>
            ) : (
              o.byOperator.map((p) => (
                <tr key={p.editorId} className="border-b border-slate-100">
                  <th scope="row" className="py-1 text-left font-normal">{p.name}</th>
                  <td className="py-1 text-right tabular-nums">{p.runs} of {p.edited}</td>
                </tr>
              ))
            )}
          </tbody>
        </table>
        <table className="w-full text-sm" data-testid="over-by-day">
          <caption className="text-left text-xs font-medium text-slate-600">Per day executed (UTC)</caption>
          <tbody>
            {o.byDay.length === 0 ? (
              <tr><td className="py-1 text-slate-500">None</td></tr>
            ) : (
              o.byDay.slice(-14).map((d) => (
                <tr key={d.day} className="border-b border-slate-100">
                  <th scope="row" className="py-1 text-left font-normal tabular-nums">{d.day}</th>
                  <td className="py-1 text-right tabular-nums">{d.runs} of {d.edited}</td>
                </tr>
              ))
            )}
          </tbody>
        </table>
      </div>
    </section>
  );
}
