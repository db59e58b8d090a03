import type { Metadata } from "next";
import Link from "next/link";
import { AutoRefresh } from "@/components/auto-refresh";
import { Countdown } from "@/components/countdown";
import { formatInstant } from "@/lib/text/format";
import { listEscalations, type EscalatedRunRow } from "@/lib/server/deadlines/list-escalations";
import { pageRefusal, requirePageViewer } from "@/lib/server/auth/page-access";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Escalations" };

export default async function EscalationsPage() {
  const viewer = await requirePageViewer("/escalations");
  const now = new Date();
  let rows: EscalatedRunRow[];
  try {
    ({ rows } = await listEscalations(viewer, now));
  } catch (e) {
    pageRefusal(e);
  }
  return (
    <>
      <main className="mx-auto max-w-7xl px-4 py-6 sm:px-6">
        <AutoRefresh seconds={30} />
        <h1 className="text-xl font-semibold">Escalations</h1>
        <p className="mt-1 text-sm text-slate-600">
          Plans nobody decided in time, and approved runs that need a new decision (the executor could not claim their next step). Each expires at its deadline and can then no longer be approved; the agent is told it expired. Soonest first.
        </p>
        {rows.length === 0 ? (
          <p className="mt-8 rounded-lg border border-dashed border-slate-300 p-8 text-center text-slate-600">Nothing is escalated. Every waiting plan is within its time.</p>
        ) : (
          <div className="relative max-w-full overflow-x-auto" data-scrolls-inside><table className="mt-4 w-full border-collapse text-sm" data-testid="escalations">
            <thead>
              <tr className="border-b border-slate-300 text-left text-slate-600">
                <th scope="col" className="px-3 py-2 font-medium">
                  Expires in
                </th>
                <th scope="col" className="px-3 py-2 font-medium">
                  Ticket
                </th>
                <th scope="col" className="px-3 py-2 font-medium">
                  Status
                </th>
                <th scope="col" className="px-3 py-2 font-medium">
                  Account
                </th>
                <th scope="col" className="px-3 py-2 font-medium">
                  Steps
                </th>
                <th scope="col" className="px-3 py-2 font-medium">
                  Escalated
                </th>
                <th scope="col" className="px-3 py-2 font-medium">
                  Expires at
                </th>
              </tr>
            </thead>
            <tbody>
              {rows.map((r) => (
                <tr key={r.id} className="border-b border-slate-100 bg-white hover:bg-slate-50">
                  <td className="px-3 py-2">
                    <Countdown until={r.expiresAt} serverNow={now.toISOString()} />
                  </td>
                  <td className="px-3 py-2">
                    <Link href={`/runs/${r.id}`} className="font-medium text-blue-700 underline">
                      #{r.ticketId} · {r.ticketSubject}
                    </Link>
                    <div className="text-xs text-slate-500">
                      {r.agentName} · plan version {r.planVersion}
                    </div>
                  </td>
                  <td className="px-3 py-2" data-testid="escalation-status">
                    {r.status === "needs_decision" ? (
                      <>
                        <span className="rounded bg-red-100 px-1.5 py-0.5 text-xs font-medium text-red-900">Needs decision</span>
                        {r.decisionReason && (
                          <p className="mt-1 max-w-md text-xs text-slate-700" data-testid="escalation-decision-reason">
                            {r.decisionReason.message}
                          </p>
                        )}
                      </>
                    ) : (
                      <span className="text-slate-700">Pending review</span>
                    )}
                  </td>
                  <td className="px-3 py-2">{r.accountName}</td>
                  <td className="px-3 py-2 tabular-nums">{r.stepCount}</td>
                  <td className="px-3 py-2 text-slate-700">{formatInstant(r.escalatedAt)}</td>
                  <td className="px-3 py-2 text-slate-700">{formatInstant(r.expiresAt)}</td>
                </tr>
              ))}
            </tbody>
          </table></div>
        )}
      </main>
    </>
  );
}
