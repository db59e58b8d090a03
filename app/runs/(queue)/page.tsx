import type { Metadata } from "next";
import { QueueTable } from "@/components/queue-table";
import { parseQueueFilters } from "@/lib/queue/queue-views";
import { toolNames } from "@/lib/tools/builtin-tools";
import { sweepDeadlinesSoon } from "@/lib/server/deadlines/sweep-deadlines";
import { requirePageViewer } from "@/lib/server/auth/page-access";
import { deskScope } from "@/lib/server/auth/session";
import { countNeedsDecision, listQueue } from "@/lib/server/runs/list-queue";
import Link from "next/link";
import { RUN_STATUSES, type RunStatus } from "@/lib/lifecycle/run-state";

export const metadata: Metadata = { title: "Queue" };
export const dynamic = "force-dynamic";

export default async function QueuePage({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const viewer = await requirePageViewer("/runs");
  const sp = await searchParams;
  const raw = typeof sp.status === "string" ? sp.status : undefined;
  const filters = parseQueueFilters(sp); // view and filters from the URL
  const status = raw === "all" ? "all" : RUN_STATUSES.includes(raw as RunStatus) ? (raw as RunStatus) : "pending_review";
  await sweepDeadlinesSoon(); // opportunistic: persist escalations and expiries before listing
  const page = await listQueue({ status: status === "all" ? undefined : status, scope: deskScope(viewer), viewer, ...filters });
  const needsDecision = status === "needs_decision" ? 0 : await countNeedsDecision(deskScope(viewer));
  return (
    <>
      <main className="mx-auto max-w-7xl px-4 py-6 sm:px-6">
        <h1 className="text-xl font-semibold">Queue</h1>
        <p className="mt-1 text-sm text-slate-600">Plans agents want to execute, waiting for a person.</p>
        {needsDecision > 0 && (
          <p role="status" className="mt-3 rounded-md border border-red-300 bg-red-50 px-3 py-2 text-sm text-red-950" data-testid="needs-decision-notice">
            {needsDecision === 1 ? "1 approved run needs" : `${needsDecision.toLocaleString("en-US")} approved runs need`} a new decision: the executor could not go on.{" "}
            <Link href="/runs?status=needs_decision" className="font-medium underline">
              Show {needsDecision === 1 ? "it" : "them"}
            </Link>
          </p>
        )}
        <QueueTable initialPage={page} initialStatus={status} initialNow={page.serverNow} initialFilters={filters} tools={toolNames} />
      </main>
    </>
  );
}
