import type { Metadata } from "next";
import Link from "next/link";
import { AuditPageNav, beforeCursor } from "@/components/audit-page-nav";
import { formatInstant } from "@/lib/text/format";
import { listDenials } from "@/lib/server/audit/list-denials";
import { listRefusalCounts } from "@/lib/server/audit-log/refusal-counts";
import { requirePageViewer } from "@/lib/server/auth/page-access";
import { requirePageRole } from "@/lib/server/auth/page-access";

export const metadata: Metadata = { title: "Denials" };
export const dynamic = "force-dynamic";

/** Supervisors' view of every refused authorisation (docs/design.md §11). */
export default async function DenialsPage({ searchParams }: { searchParams: Promise<{ before?: string }> }) {
  const viewer = await requirePageViewer("/denials");
  await requirePageRole(viewer, ["supervisor", "admin"], "view /denials");
  const { before: rawBefore } = await searchParams;
  const before = beforeCursor(rawBefore);
  const { rows, nextBefore } = await listDenials(viewer, { before, limit: 100 });
  const counted = before ? null : await listRefusalCounts({ limit: 50 });
  return (
    <>
      <main className="mx-auto max-w-7xl px-4 py-6 sm:px-6">
        <h1 className="text-xl font-semibold">Denials</h1>
        <p className="mt-1 text-sm text-slate-600">
          Every refused authorisation, newest first: who tried, what, when, and which grant or role was missing. A signed-out read (a browser tab after its session
          ended) is refused without a record.
        </p>
        {rows.length === 0 ? (
          <p className="mt-6 text-sm text-slate-600">{before ? "No older denials." : "No denials on record."}</p>
        ) : (
          <div className="mt-4 overflow-x-auto rounded-lg border border-slate-200 bg-white">
            <div className="relative max-w-full overflow-x-auto" data-scrolls-inside tabIndex={0} role="region" aria-label="Denials (scrolls sideways)"><table className="w-full text-sm">
              <caption className="sr-only">Refused authorisations</caption>
              <thead className="bg-slate-50 text-left text-slate-600">
                <tr>
                  <th scope="col" className="px-3 py-2 font-medium">
                    When
                  </th>
                  <th scope="col" className="px-3 py-2 font-medium">
                    Who
                  </th>
                  <th scope="col" className="px-3 py-2 font-medium">
                    What
                  </th>
                  <th scope="col" className="px-3 py-2 font-medium">
                    Missing
                  </th>
                  <th scope="col" className="px-3 py-2 font-medium">
                    Refusal
                  </th>
                </tr>
              </thead>
              <tbody>
                {rows.map((r) => (
                  <tr key={r.seq} className="border-t border-slate-100 align-top">
                    <td className="whitespace-nowrap px-3 py-2 text-xs tabular-nums">{formatInstant(r.at)}</td>
                    <td className="px-3 py-2">
                      {r.actor.name}
                      <div className="text-xs text-slate-500">{r.actor.kind}</div>
                    </td>
                    <td className="px-3 py-2">
                      <div>{r.action}</div>
                      {r.endpoint && r.endpoint !== r.action && <div className="font-mono text-xs text-slate-500">{r.endpoint}</div>}
                      {r.runId && (
                        <div className="text-xs">
                          <Link href={`/runs/${r.runId}`} className="text-blue-700 underline-offset-2 hover:underline">
                            run {r.runId}
                          </Link>
                          {r.stepId && <> · step {r.stepId}</>}
                        </div>
                      )}
                    </td>
                    <td className="px-3 py-2">{r.missing}</td>
                    <td className="px-3 py-2 text-xs text-slate-700">
                      {r.code && <code className="rounded bg-slate-100 px-1">{r.code}</code>} {r.reason}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table></div>
          </div>
        )}
        {counted && (
          <section aria-labelledby="counted-refusals" className="mt-8">
            <h2 id="counted-refusals" className="text-base font-semibold">
              Counted refusals
            </h2>
            <p className="mt-1 text-sm text-slate-600">
              Refusals of callers with no session or key are counted per address, route and minute instead of being recorded one by one; so are refusals of a key or
              person beyond their rate limit, per key or person (the first of each minute is also a denial above).
            </p>
            {counted.rows.length === 0 ? (
              <p className="mt-3 text-sm text-slate-600">No counted refusals.</p>
            ) : (
              <div className="relative mt-3 max-w-full overflow-x-auto rounded-lg border border-slate-200 bg-white" data-scrolls-inside tabIndex={0} role="region" aria-label="Counted refusals (scrolls sideways)">
                <table className="w-full text-sm">
                  <caption className="sr-only">Counted refusals, per address (or key or person), route and minute</caption>
                  <thead className="bg-slate-50 text-left text-slate-600">
                    <tr>
                      <th scope="col" className="px-3 py-2 font-medium">Minute</th>
                      <th scope="col" className="px-3 py-2 font-medium">Address or key</th>
                      <th scope="col" className="px-3 py-2 font-medium">Route</th>
                      <th scope="col" className="px-3 py-2 font-medium">Refusal</th>
                      <th scope="col" className="px-3 py-2 text-right font-medium">Count</th>
                    </tr>
                  </thead>
                  <tbody>
                    {counted.rows.map((r) => (
                      <tr key={`${r.minute}|${r.address}|${r.route}|${r.code}`} className="border-t border-slate-100 align-top" data-testid="refusal-count">
                        <td className="whitespace-nowrap px-3 py-2 text-xs tabular-nums">{formatInstant(r.minute)}</td>
                        <td className="px-3 py-2 font-mono text-xs">{r.address}</td>
                        <td className="px-3 py-2 font-mono text-xs">{r.route}</td>
                        <td className="px-3 py-2 text-xs">
                          <code className="rounded bg-slate-100 px-1">{r.code}</code> {r.missing === "rate" ? "beyond the rate limit" : `${r.missing.replace(/_/g, " ")} missing`}
                          {r.origin && <div className="break-all text-slate-500">Origin {r.origin}</div>}
                        </td>
                        <td className="px-3 py-2 text-right tabular-nums">{r.count.toLocaleString("en-US")}</td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
            )}
          </section>
        )}
        <AuditPageNav path="/denials" before={before} nextBefore={nextBefore} olderLabel="Older denials" />
      </main>
    </>
  );
}
