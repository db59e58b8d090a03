import { describeChange } from "@/lib/effects/describe-change";
import type { EffectComparisonRow } from "@/lib/effects/compare";
import type { StepEffect } from "@/lib/effects/schema";
import { withVisibleMarkers } from "@/lib/text/hidden-characters";
import { VisibleText } from "./visible-text";

/**
 * The lines of one step's expected effect: each changed record before → after,
 * "Customer will have been told: “…”" for a reply, or why there is no preview. Hidden characters
 * (a direction override, a zero-width space) show as markers here too, never applied.
 */
export function EffectLines({ effect }: { effect: StepEffect }) {
  if (effect.status !== "previewed") return <p className="text-sm text-slate-700">{effect.reason}</p>;
  if (effect.changes.length === 0) return <p className="text-sm text-slate-700">Nothing in the account changes.</p>;
  return (
    <ul className="space-y-0.5 text-sm">
      {effect.changes.map((c, n) => (
        <li key={n} className="break-words">
          {c.kind === "customer_message" ? (
            <>
              <span className="font-medium">Customer will have been told</span> (ticket {c.ticketId}):{" "}
              <q className="line-clamp-3 whitespace-pre-line italic">
                <VisibleText text={c.text} />
              </q>
            </>
          ) : (
            withVisibleMarkers(describeChange(c))
          )}
        </li>
      ))}
    </ul>
  );
}

/** The compact "After this step" panel under a step on the run page and the review screen. */
export function AfterThisStep({ effect }: { effect: StepEffect | undefined }) {
  if (!effect) return null;
  return (
    <section
      aria-label={`After step ${effect.position}`}
      data-testid="after-step"
      className="mt-3 rounded-md border border-teal-200 bg-teal-50 px-3 py-2 text-teal-950"
    >
      <h4 className="text-xs font-semibold uppercase tracking-wide">After this step</h4>
      <EffectLines effect={effect} />
    </section>
  );
}

/**
 * The whole plan's expected effect, step by step (the review screen after an edit): one
 * "After step N" panel per step, in plan order.
 */
export function PlanEffects({ effects, version }: { effects: StepEffect[]; version: number }) {
  if (effects.length === 0) return null;
  return (
    <section aria-labelledby="effects-h" className="rounded-lg border border-slate-200 bg-white p-4">
      <h3 id="effects-h" className="font-semibold">
        The account after each step (plan version {version}, from live data)
      </h3>
      <ol className="mt-2 space-y-2">
        {effects.map((e) => (
          <li key={e.stepId} aria-label={`After step ${e.position}`} data-testid="review-after-step" className="rounded-md border border-teal-200 bg-teal-50 px-3 py-2 text-teal-950">
            <p className="text-xs font-semibold uppercase tracking-wide">
              After step {e.position} <code className="normal-case">{e.tool}</code>
            </p>
            <EffectLines effect={e} />
          </li>
        ))}
      </ol>
    </section>
  );
}

/** Expected vs actual effect of an executed step, side by side (audit trail). */
export function EffectComparison({ rows }: { rows: EffectComparisonRow[] }) {
  return (
    <div className="mt-2 overflow-x-auto">
      <table className="w-full min-w-[20rem] text-left text-sm" aria-label="Expected vs actual effect">
        <thead>
          <tr className="border-b border-slate-200 text-slate-700">
            <th scope="col" className="py-1 pr-3 font-medium">Record</th>
            <th scope="col" className="py-1 pr-3 font-medium">Expected at approval</th>
            <th scope="col" className="py-1 pr-3 font-medium">Actual</th>
            <th scope="col" className="py-1 font-medium">Same?</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((r, n) => (
            <tr key={n} className="border-b border-slate-100 align-top">
              <td className="py-1 pr-3">{r.what}</td>
              <td className="py-1 pr-3 break-words">{r.expected}</td>
              <td className="py-1 pr-3 break-words">{r.actual}</td>
              <td className={`py-1 font-medium ${r.matches === false ? "text-red-800" : ""}`}>{r.matches === null ? "—" : r.matches ? "yes" : "no"}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
