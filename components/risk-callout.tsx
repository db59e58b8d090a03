import { RISK_LABELS, type StepRisk } from "@/lib/queue/risk";

/**
 * The red callout at the top of the run page and the review: one line per step that reaches
 * another account, moves money or cannot be undone ("Refund to another customer's invoice ·
 * $1,489.00 · Halvorsen Freight"; "Credit · amount from untrusted text · $1,200.00"), with the
 * validator's words under it. Loud (dark border) when a step reaches another customer or takes an
 * argument from untrusted text. Nothing when no step is risky. `risks` come from `planRisks` (lib/queue/risk.ts); nothing is checked here.
 */
export function RiskCallout({ risks, approved = {} }: { risks: StepRisk[]; approved?: Record<string, boolean> }) {
  if (risks.length === 0) return null;
  const otherAccount = risks.some((r) => r.kinds.includes("other_account"));
  const untrusted = risks.filter((r) => r.kinds.includes("untrusted_text")).length;
  const loud = otherAccount || untrusted > 0;
  const heading = otherAccount
    ? "Check before approving: this plan reaches another customer"
    : untrusted > 0
      ? `Check before approving: untrusted text stands behind ${untrusted === 1 ? "a step" : `${untrusted} steps`}`
      : `Check before approving: ${risks.length} step${risks.length === 1 ? "" : "s"} with money or no way back`;
  return (
    <section
      aria-labelledby="risk-h"
      data-testid="risk-callout"
      className={`rounded-lg border-2 px-4 py-3 ${loud ? "border-red-700 bg-red-50 text-red-950" : "border-red-300 bg-red-50 text-red-950"}`}
    >
      <h2 id="risk-h" className="flex items-center gap-2 font-semibold">
        <svg aria-hidden="true" viewBox="0 0 20 20" className="h-5 w-5 shrink-0 fill-current">
          <path d="M10 1.5 19 18H1L10 1.5Zm-1 6v5h2v-5H9Zm0 6.5v2h2v-2H9Z" />
        </svg>
        {heading}
      </h2>
      <ul className="mt-2 space-y-1.5 text-sm">
        {risks.map((r) => (
          <li key={r.stepId} data-testid="risk-line" className="break-words">
            <span className="font-semibold">Step {r.position}:</span> {r.headline}
            {approved[r.stepId] && <span className="ml-1 text-xs">(approved)</span>}
            <span className="ml-1 inline-flex flex-wrap gap-1 align-middle">
              {r.kinds.map((k) => (
                <span key={k} className={`rounded px-1.5 py-0.5 text-xs font-medium ${k === "other_account" || k === "untrusted_text" ? "bg-red-800 text-red-50" : "bg-red-100 text-red-900"}`}>
                  {RISK_LABELS[k]}
                </span>
              ))}
            </span>
            {r.detail && <p className="text-xs text-red-900">{r.detail}</p>}
          </li>
        ))}
      </ul>
    </section>
  );
}
