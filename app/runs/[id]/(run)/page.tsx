import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { RunWorkspace } from "@/components/run-workspace";
import { TaskPanel } from "@/components/task-panel";
import { RunExpiry } from "@/components/run-expiry";
import { OwnershipPanel } from "@/components/ownership-panel";
import { isDomainError } from "@/lib/errors/domain-error";
import { formatIsoDate, formatInstant, statusLabel } from "@/lib/text/format";
import { hasDeadline } from "@/lib/lifecycle/run-state";
import { formatMoney } from "@/lib/money/format-money";
import { requirePageViewer } from "@/lib/server/auth/page-access";
import { getViewer } from "@/lib/server/auth/session";
import { cache } from "react";
import { runTabTitle } from "@/lib/text/format";
import { getRunDetails, type RunDetails } from "@/lib/server/runs/get-run-details";
import { getRunOutcome } from "@/lib/server/outcomes/run-outcomes";
import { OutcomeSection } from "@/components/outcome-section";
import type { RecordSync } from "@/lib/desk/snapshot";
import { describeSync, syncOfRecord } from "@/lib/records/record-age";
import { undoWrittenStepsEndpoint } from "@/lib/api/endpoints";
import { previewUndo } from "@/lib/server/gateway/undo-written-steps";
import { UndoWrittenSteps } from "@/components/undo-written-steps";

export const dynamic = "force-dynamic";

/**
 * The tab's title: "#74991 · Nordkapp Logistics · 3 steps" (ticket, account, steps of the current
 * plan), so tabs of several runs tell apart; "Run" when the run cannot be read by this viewer.
 */
export async function generateMetadata({ params }: { params: Promise<{ id: string }> }): Promise<Metadata> {
  const { id } = await params;
  const loaded = await loadRun(id);
  if (!loaded.ok) return { title: "Run" };
  const { ticket, run } = loaded.details;
  return { title: { absolute: runTabTitle(ticket.id, ticket.accountName, run.steps.length) } };
}

/** One read of the run per request, shared by the title and the page (a refusal is audited once). */
const loadRun = cache(async (id: string): Promise<{ ok: true; details: RunDetails } | { ok: false; error: unknown }> => {
  try {
    const viewer = await getViewer();
    if (!viewer) return { ok: false, error: null };
    return { ok: true, details: await getRunDetails(id, viewer) };
  } catch (error) {
    return { ok: false, error };
  }
});

export default async function RunPage({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  const viewer = await requirePageViewer(`/runs/${id}`);
  const loaded = await loadRun(id);
  if (!loaded.ok) {
    if (isDomainError(loaded.error) && loaded.error.code === "not_found") notFound();
    throw loaded.error;
  }
  const details = loaded.details;
  const { desk, ...rest } = details;
  const { run, task, ticket, agent, accountContext } = details;
  const now = new Date();
  const outcome = await getRunOutcome(viewer, run.id);
  // after a partial stop: what undoing the written steps would propose, and whether this person may ask (the endpoint's own rule)
  const undo = run.status === "stopped" || run.status === "failed" ? await previewUndo(viewer, run.id) : null;
  const undoRoles: readonly string[] = undoWrittenStepsEndpoint.caller.roles;
  const canUndo = undoRoles.includes(viewer.role);
  return (
    <>
      {/* What an agent or a customer wrote (a 300-character token, a long URL) breaks anywhere on this
          page — the card, the task, the diff, the review, the decision panel and its dialogs — rather
          than widen it; it counts so in the min-content width the grid and flex columns size by. */}
      <main className="mx-auto max-w-7xl px-4 py-6 [overflow-wrap:anywhere] sm:px-6">
        <div className="flex flex-wrap items-baseline gap-3">
          <h1 className="text-xl font-semibold">
            Ticket #{ticket.id} · {ticket.subject}
          </h1>
          <span role="status" aria-label="Run status" className="rounded bg-slate-900 px-2 py-0.5 text-xs font-medium text-white" data-testid="run-status">
            {statusLabel(run.status)}
          </span>
          {viewer.role !== "admin" && (
            <a href={`/runs/${run.id}/audit`} className="ml-auto text-sm text-blue-700 underline">
              Audit trail
            </a>
          )}
        </div>
        <p className="mt-1 text-sm text-slate-600">
          {ticket.accountName} · proposed by {agent.name} · plan version {run.planVersion} · bound to task revision{" "}
          {run.boundTaskRevision}
          {hasDeadline(run.status) && (
            <>
              {" "}
              · <RunExpiry run={run} serverNow={now.toISOString()} />
            </>
          )}
        </p>
        {run.boundTaskRevision !== task.revision && (
          <p role="alert" className="mt-3 rounded-md border border-amber-300 bg-amber-50 px-3 py-2 text-sm text-amber-950">
            The task changed since this plan was made (plan bound to revision {run.boundTaskRevision}, task now at revision {task.revision}).
          </p>
        )}
        {run.status === "needs_decision" && <NeedsDecision run={run} steps={run.steps} now={now} />}
        {run.rejectionReason && (
          <p className="mt-3 rounded-md border border-slate-300 bg-slate-100 px-3 py-2 text-sm">Rejected: {run.rejectionReason}</p>
        )}
        {undo && (
          <UndoWrittenSteps
            runId={run.id}
            offer={undo}
            canAsk={canUndo}
            whyNot={canUndo ? null : `Only ${undoRoles.map((r) => `${r}s`).join(" and ")} ask for an undo; you are signed in as ${viewer.role} and can look, not ask.`}
          />
        )}
        <div className="mt-6 grid gap-6 lg:grid-cols-[1fr_22rem]">
          <RunWorkspace initial={rest} desk={desk} viewerId={viewer.id} viewerRole={viewer.role} grants={viewer.grants} serverNow={now.toISOString()} />
          <aside className="space-y-6">
            {outcome && <OutcomeSection record={outcome.record} label={outcome.label} canLabel={viewer.role === "supervisor"} />}
            <OwnershipPanel runId={run.id} viewerId={viewer.id} viewerRole={viewer.role} grants={viewer.grants} desk={desk} ticketId={ticket.id} ticketAccountId={ticket.accountId} imported={details.catalog.imported} catalogVersion={details.catalog.version} />
            <TaskPanel runId={run.id} task={task} canRevise={viewer.role === "supervisor"} />
            {/* our own short identifiers and statuses (in_74310, open) stay whole: the table gives them room */}
            <section aria-labelledby="acct-h" className="rounded-lg border border-slate-200 bg-white p-4 [overflow-wrap:normal]">
              <h2 id="acct-h" className="font-semibold">{accountContext.account.name}</h2>
              <p className="text-xs text-slate-500">
                Account <code>{accountContext.account.id}</code>
              </p>
              <h3 className="mt-3 text-sm font-medium">Invoices</h3>
              <table className="mt-1 w-full text-sm">
                <thead className="sr-only">
                  <tr>
                    <th>Invoice</th>
                    <th>Status</th>
                    <th>Open balance</th>
                  </tr>
                </thead>
                <tbody>
                  {accountContext.invoices.map((i) => (
                    <tr key={i.id} className="border-t border-slate-100">
                      <td className="py-1 font-mono text-xs">{i.id}</td>
                      <td className="py-1 text-xs">{i.status}</td>
                      <td className="py-1 text-right tabular-nums">
                        {formatMoney(i.openBalance as Parameters<typeof formatMoney>[0])}
                        <RecordAgeLine sync={syncOfRecord(desk, "invoice", i.id)} what="balance" now={now} />
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
              <h3 className="mt-3 text-sm font-medium">Shipments</h3>
              <ul className="mt-1 space-y-1 text-sm">
                {accountContext.shipments.map((s) => (
                  <li key={s.id} className="border-t border-slate-100 pt-1">
                    <span className="font-mono text-xs">{s.id}</span> · {s.destination} · {s.status}
                    <div className="text-xs text-slate-600">
                      {formatIsoDate(s.window.from)}
                      {s.window.to !== s.window.from && <> – {formatIsoDate(s.window.to)}</>}
                    </div>
                    <RecordAgeLine sync={syncOfRecord(desk, "shipment", s.id)} what="window" now={now} />
                  </li>
                ))}
              </ul>
            </section>
          </aside>
        </div>
      </main>
    </>
  );
}

/** "balance as of 14:02 UTC, synced 2 min ago" under a record of the account panel, on the server's clock (nothing for a record never synced). */
function RecordAgeLine({ sync, what, now }: { sync: RecordSync | undefined; what: string; now: Date }) {
  const text = describeSync(sync, now, what);
  return text ? (
    <div className="text-xs font-normal text-slate-500" data-testid="record-age">
      {text}
    </div>
  ) : null;
}

/**
 * What a run that needs a new decision asks of a person (status `needs_decision`): who owns it
 * (an operator of the desk; supervisors once it escalated), why the executor could not go on, and
 * the choices — approve the blocked step again (checked against live data), edit, or reject.
 */
function NeedsDecision({ run, steps, now }: { run: RunDetails["run"]; steps: RunDetails["run"]["steps"]; now: Date }) {
  const reason = run.decisionReason;
  const step = steps.find((s) => s.id === reason?.stepId);
  const escalated = new Date(run.escalateAt).getTime() <= now.getTime();
  const written = steps.some((s) => s.execution);
  return (
    <section aria-labelledby="needs-decision-h" className="mt-3 rounded-md border-2 border-red-400 bg-red-50 px-3 py-2 text-sm text-red-950" data-testid="needs-decision">
      <h2 id="needs-decision-h" className="font-semibold">
        Needs a new decision · owner: {escalated ? "a supervisor (escalated)" : "an operator of this desk"}
      </h2>
      <p className="mt-1" data-testid="needs-decision-reason">
        {reason?.message ?? "Needs a new decision: the approved plan can no longer run as approved."}
      </p>
      <p className="mt-1">
        The executor was refused{reason ? <> (<code>{reason.code}</code>)</> : null}
        {step ? ` at step ${step.position}` : ""} and cannot go on until a person decides. Decide: approve {step ? `step ${step.position}` : "it"} again (checked against live
        account data now), {written ? "" : "edit the plan, "}or reject the run with a reason for the agent.
        {!escalated && ` It escalates to supervisors at ${formatInstant(run.escalateAt)}`}
        {!escalated ? "; it" : " It"} expires at {formatInstant(run.expiresAt)}.
      </p>
    </section>
  );
}
