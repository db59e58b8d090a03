import type { Metadata } from "next";
import { DriftChart, EditSizeChart } from "@/components/insights-charts";
import { formatInstant } from "@/lib/text/format";
import { loadInsights, type InsightsPage } from "@/lib/server/audit/insights";
import { editRefParam } from "@/lib/desk-rules/prefill";
import { RuleEffectText } from "@/components/rule-effect";
import { listDeskRules, type ListedDeskRule } from "@/lib/server/desk-rules/list-desk-rules";
import { pageRefusal, requirePageViewer } from "@/lib/server/auth/page-access";
import { loadOutcomeInsights, type OutcomeInsights } from "@/lib/server/outcomes/outcome-insights";
import { OutcomeInsightsSection } from "@/components/outcome-insights";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Insights" };

const pct = (v: number) => `${Math.round(v * 100)}%`;
const pct1 = (v: number) => `${(v * 100).toFixed(1)}%`;

function Stat({ label, value, note }: { label: string; value: string; note: string }) {
  return (
    <div className="min-w-0 rounded-lg border border-slate-200 bg-white p-4">
      <dt className="text-sm text-slate-600">{label}</dt>
      <dd className="mt-1 text-2xl font-semibold tabular-nums">{value}</dd>
      <dd className="mt-1 text-xs text-slate-500">{note}</dd>
    </div>
  );
}

const RANGES = [
  { key: "7", label: "7 days" },
  { key: "30", label: "30 days" },
  { key: "90", label: "90 days" },
  { key: "all", label: "All time" },
] as const;

export default async function InsightsPageView({ searchParams }: { searchParams: Promise<{ days?: string }> }) {
  const viewer = await requirePageViewer("/insights");
  const { days: rawDays } = await searchParams;
  const range = RANGES.find((r) => r.key === rawDays) ?? RANGES[3];
  const now = new Date();
  const since = range.key === "all" ? undefined : new Date(now.getTime() - Number(range.key) * 86_400_000);
  let data: InsightsPage;
  let rules: ListedDeskRule[];
  let helped: OutcomeInsights;
  try {
    data = await loadInsights(viewer, now, { since });
    rules = (await listDeskRules(viewer, { onlyFromEdits: true, limit: 20 }, now)).rules;
    helped = await loadOutcomeInsights(viewer, { since });
  } catch (e) {
    pageRefusal(e);
  }
  const { editRate, edits, editSizeBins, drift, outcomes, completionRate, recurring, runs, users, plansOverHalf } = data;
  const recent = drift.points.slice(-7).filter((p) => p.share !== null);
  const alerting = recent.filter((p) => p.share! > drift.threshold);
  const name = (id: string) => users[id] ?? id;

  return (
    <>
      <main className="mx-auto max-w-7xl px-4 py-6 sm:px-6">
        <div className="flex flex-wrap items-baseline gap-3">
          <h1 className="text-xl font-semibold">Insights · how much people change the agent’s plans</h1>
          <a
            href="/api/audit/diffs.jsonl"
            download
            className="ml-auto rounded-md border border-blue-700 px-3 py-1.5 text-sm font-medium text-blue-800 hover:bg-blue-50"
          >
            Download diff corpus (JSONL)
          </a>
        </div>
        <nav aria-label="Period" className="mt-2 flex gap-2 text-sm">
          {RANGES.map((r) => (
            <a
              key={r.key}
              href={r.key === "all" ? "/insights" : `/insights?days=${r.key}`}
              aria-current={r.key === range.key ? "page" : undefined}
              className={`rounded-full border px-3 py-0.5 ${r.key === range.key ? "border-slate-900 bg-slate-900 text-white" : "border-slate-300 text-slate-700 hover:bg-slate-50"}`}
            >
              {r.label}
            </a>
          ))}
        </nav>
        <p className="mt-2 text-sm text-slate-600">
          Runs submitted {range.key === "all" ? "at any time" : `in the last ${range.label}`}: {runs.total} runs · {runs.decided} decided · {runs.pending} waiting · {runs.expired} expired · computed {formatInstant(data.generatedAt)}. The
          corpus has one line per edit — pre-edit plan, post-edit plan, diff, editor and the run’s outcome — for evaluating the agent.
        </p>

        {alerting.length > 0 && (
          <p role="alert" className="mt-4 rounded-md border border-red-300 bg-red-50 px-3 py-2 text-sm text-red-900">
            Possible agent drift: on {alerting.map((p) => p.day).join(", ")} more than {pct(drift.threshold)} of decided plans had more than half of their steps
            touched by people.
          </p>
        )}

        <dl className="mt-4 grid gap-3 sm:grid-cols-2 lg:grid-cols-4">
          <Stat
            label="Edit rate: decided runs a person edited"
            value={pct1(editRate.rate)}
            note={`${editRate.edited} of ${editRate.decided} decided run${editRate.decided === 1 ? "" : "s"} (approved or rejected) had their plan edited`}
          />
          <Stat
            label="Edits on those decided runs"
            value={String(edits.onDecidedRuns)}
            note={`${edits.count} edit${edits.count === 1 ? "" : "s"} stored in all${
              edits.count > edits.onDecidedRuns ? `, ${edits.count - edits.onDecidedRuns} on runs waiting for review or expired (counted once decided)` : ""
            }; median size ${pct(edits.medianSize)} of steps, mean ${pct(edits.meanSize)}`}
          />
          <Stat
            label="Plans with more than half their steps touched"
            value={String(plansOverHalf.plans)}
            note={`of ${plansOverHalf.decided} decided plan${plansOverHalf.decided === 1 ? "" : "s"}, counting every edit of a plan together (the drift chart’s definition)`}
          />
          <Stat
            label="Completion after execution"
            value={completionRate.edited === null ? "–" : pct(completionRate.edited)}
            note={`edited plans; unedited ${completionRate.unedited === null ? "–" : pct(completionRate.unedited)} (completed of completed + failed + stopped)`}
          />
        </dl>

        <div className="mt-6 grid gap-6 lg:grid-cols-2">
          <section aria-labelledby="size-h" className="min-w-0 rounded-lg border border-slate-200 bg-white p-4">
            <h2 id="size-h" className="font-semibold">
              Edit size
            </h2>
            <p className="text-sm text-slate-600">
              Fraction of a plan’s steps each edit added, changed, moved or removed; discarded edits are left out. Each bar includes its upper bound; orange bars are edits that alone touched more than half.
            </p>
            <EditSizeChart bins={editSizeBins} />
            <details className="text-sm">
              <summary className="cursor-pointer text-slate-600">Data</summary>
              <div className="relative max-w-full overflow-x-auto" data-scrolls-inside><table className="mt-1">
                <tbody>
                  {editSizeBins.map((b) => (
                    <tr key={b.label}>
                      <th scope="row" className="pr-4 text-left font-normal">
                        {b.label}
                      </th>
                      <td className="tabular-nums">{b.edits}</td>
                    </tr>
                  ))}
                </tbody>
              </table></div>
            </details>
          </section>

          <section aria-labelledby="drift-h" className="min-w-0 rounded-lg border border-slate-200 bg-white p-4">
            <h2 id="drift-h" className="font-semibold">
              Plans with more than half their steps touched, per day
            </h2>
            <p className="text-sm text-slate-600">
              Share of decided plans (by the day the agent submitted them) whose edits touched more than half of their steps. A rise signals agent drift; the
              red line is the alert at {pct(drift.threshold)}.
            </p>
            {drift.points.length === 0 ? <p className="py-8 text-center text-sm text-slate-500">No decided plans yet.</p> : <DriftChart points={drift.points} threshold={drift.threshold} />}
            <details className="text-sm">
              <summary className="cursor-pointer text-slate-600">Data</summary>
              <div className="relative max-w-full overflow-x-auto" data-scrolls-inside><table className="mt-1">
                <thead>
                  <tr className="text-left text-slate-600">
                    <th className="pr-4 font-normal">Day</th>
                    <th className="pr-4 font-normal">Decided plans</th>
                    <th className="pr-4 font-normal">Over half touched</th>
                    <th className="font-normal">Share</th>
                  </tr>
                </thead>
                <tbody>
                  {drift.points.map((p) => (
                    <tr key={p.day}>
                      <td className="pr-4">{p.day}</td>
                      <td className="pr-4 tabular-nums">{p.plans}</td>
                      <td className="pr-4 tabular-nums">{p.overHalf}</td>
                      <td className="tabular-nums">{p.share === null ? "–" : pct1(p.share)}</td>
                    </tr>
                  ))}
                </tbody>
              </table></div>
            </details>
          </section>
        </div>

        <div className="mt-6 grid gap-6 lg:grid-cols-[2fr_3fr]">
          <section aria-labelledby="outcomes-h" className="min-w-0 rounded-lg border border-slate-200 bg-white p-4">
            <h2 id="outcomes-h" className="font-semibold">
              Outcomes: edited vs unedited plans
            </h2>
            <div className="relative max-w-full overflow-x-auto" data-scrolls-inside><table className="mt-2 w-full text-sm" data-testid="outcomes">
              <thead>
                <tr className="border-b border-slate-200 text-left text-slate-600">
                  <th scope="col" className="py-1 font-medium">
                    Outcome
                  </th>
                  <th scope="col" className="py-1 text-right font-medium">
                    Edited
                  </th>
                  <th scope="col" className="py-1 text-right font-medium">
                    Unedited
                  </th>
                </tr>
              </thead>
              <tbody>
                {outcomes.map((o) => (
                  <tr key={o.key} className="border-b border-slate-100">
                    <th scope="row" className="py-1 text-left font-normal">
                      {o.label}
                    </th>
                    <td className="py-1 text-right tabular-nums">{o.edited}</td>
                    <td className="py-1 text-right tabular-nums">{o.unedited}</td>
                  </tr>
                ))}
              </tbody>
            </table></div>
            <p className="mt-2 text-xs text-slate-500">Runs still waiting for review are not counted. Edit rate = edited decided runs / decided runs (approved or rejected, whatever happened after).</p>
          </section>

          <section aria-labelledby="rules-h" className="min-w-0 rounded-lg border border-slate-200 bg-white p-4">
            <h2 id="rules-h" className="font-semibold">
              Recurring edits — candidate rules for the agent
            </h2>
            <p className="text-sm text-slate-600">The same tool and field changed the same way (or at all) on at least two runs by at least two people; discarded edits are left out.</p>
            {recurring.length === 0 ? (
              <p className="py-6 text-center text-sm text-slate-500">No edit has recurred yet.</p>
            ) : (
              <div className="relative max-w-full overflow-x-auto" data-scrolls-inside><table className="mt-2 w-full text-sm" data-testid="recurring">
                <thead>
                  <tr className="border-b border-slate-200 text-left text-slate-600">
                    <th scope="col" className="py-1 font-medium">
                      Tool
                    </th>
                    <th scope="col" className="py-1 font-medium">
                      What people did
                    </th>
                    <th scope="col" className="px-2 py-1 text-right font-medium">
                      Edits
                    </th>
                    <th scope="col" className="px-2 py-1 text-right font-medium">
                      Runs
                    </th>
                    <th scope="col" className="py-1 pl-3 font-medium">
                      By
                    </th>
                    <th scope="col" className="py-1 pl-3 font-medium">
                      <span className="sr-only">Make a rule</span>
                    </th>
                  </tr>
                </thead>
                <tbody>
                  {recurring.map((r) => (
                    <tr key={`${r.kind}|${r.tool}|${r.pattern}`} className="border-b border-slate-100 align-top">
                      <td className="py-1 pr-2">
                        <code className="text-xs">{r.tool}</code>
                      </td>
                      <td className="py-1 pr-2">
                        {r.pattern}
                        {r.kind === "field" && <span className="ml-1 text-xs text-slate-500">(any way)</span>}
                      </td>
                      <td className="px-2 py-1 text-right tabular-nums">{r.count}</td>
                      <td className="px-2 py-1 text-right tabular-nums">{r.runs}</td>
                      <td className="py-1 pl-3 text-xs text-slate-600">{r.editors.map(name).join(", ")}</td>
                      <td className="py-1 pl-3">
                        <a
                          className="whitespace-nowrap text-xs font-medium text-blue-800 underline"
                          href={`/desk-rules/new?${new URLSearchParams({ edit: editRefParam(r) })}`}
                          aria-label={`Make a rule from ${r.tool}: ${r.pattern}`}
                        >
                          Make a rule…
                        </a>
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table></div>
            )}
            <h3 className="mt-4 text-sm font-semibold">Rules made from edits — does the edit still happen?</h3>
            {rules.length === 0 ? (
              <p className="text-sm text-slate-500">No rule was made from an edit yet.</p>
            ) : (
              <ul className="mt-1 space-y-1 text-sm" data-testid="rules-from-edits">
                {rules.map((r) => (
                  <li key={r.id}>
                    <a className="font-medium text-blue-800 underline" href={`/desk-rules/${r.id}`}>
                      {r.description}
                    </a>{" "}
                    <span className="text-xs text-slate-600">
                      ({r.desk}, {r.severity}
                      {r.enabled ? "" : ", disabled"}) · <RuleEffectText effect={r.effect} />
                    </span>
                  </li>
                ))}
              </ul>
            )}
          </section>
        </div>
        <OutcomeInsightsSection data={helped} />
      </main>
    </>
  );
}
