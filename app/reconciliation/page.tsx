import type { Metadata } from "next";
import Link from "next/link";
import { AutoRefresh } from "@/components/auto-refresh";
import { formatInstant } from "@/lib/text/format";
import { listNeedsReconciliation } from "@/lib/server/claims/list-reconciliation";
import { pageRefusal, requirePageViewer } from "@/lib/server/auth/page-access";
import { reconciliationReasonText } from "@/lib/audit/reconciliation-reason";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Needs reconciliation" };

/** Supervisors: every step whose outcome is unknown (or never reported), oldest first. */
export default async function ReconciliationPage() {
  const viewer = await requirePageViewer("/reconciliation");
  const { items } = await listNeedsReconciliation(viewer).catch(pageRefusal);
  return (
    <>
      <main className="mx-auto max-w-7xl px-4 py-6 sm:px-6">
        <AutoRefresh seconds={30} />
        <h1 className="text-xl font-semibold">Needs reconciliation</h1>
        <p className="mt-1 text-sm text-slate-600">
          Writes whose outcome the executor could not report. Nothing is retried automatically: open the run, find out what happened, and record it.
        </p>
        {items.length === 0 ? (
          <p className="mt-8 rounded-lg border border-dashed border-slate-300 p-8 text-center text-slate-600">Nothing waits for reconciliation.</p>
        ) : (
          <div className="relative max-w-full overflow-x-auto" data-scrolls-inside><table className="mt-4 w-full text-sm">
            <thead>
              <tr className="border-b border-slate-300 text-left text-slate-600">
                <th scope="col" className="px-3 py-2 font-medium">Ticket</th>
                <th scope="col" className="px-3 py-2 font-medium">Step</th>
                <th scope="col" className="px-3 py-2 font-medium">Why</th>
                <th scope="col" className="px-3 py-2 font-medium">Claimed</th>
              </tr>
            </thead>
            <tbody>
              {items.map((i) => (
                <tr key={`${i.runId}:${i.stepId}`} className="border-b border-slate-100">
                  <td className="px-3 py-2">
                    <Link href={`/runs/${i.runId}`} className="text-blue-800 underline">
                      #{i.ticketId}
                    </Link>
                  </td>
                  <td className="px-3 py-2 font-mono text-xs">{i.tool}</td>
                  <td className="px-3 py-2" data-testid="reconciliation-reason">{reconciliationReasonText(i)}</td>
                  <td className="px-3 py-2">{formatInstant(i.claimedAt)}</td>
                </tr>
              ))}
            </tbody>
          </table></div>
        )}
      </main>
    </>
  );
}
