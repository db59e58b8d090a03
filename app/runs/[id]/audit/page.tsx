import { Instant } from "@/components/instant";
import type { Metadata } from "next";
import Link from "next/link";
import { EditDiff } from "@/components/edit-diff";
import { PlanSteps } from "@/components/plan-steps";
import { describeEvent, EVENT_LABELS, formatUtcSeconds } from "@/lib/audit/describe";
import { statusLabel } from "@/lib/text/format";
import { getRunAudit, type AuditEventView, type AuditPlanVersion, type RunAudit } from "@/lib/server/audit/run-audit";
import { pageRefusal, requirePageViewer } from "@/lib/server/auth/page-access";
import { EffectComparison, EffectLines } from "@/components/step-effects";
import { compareEffects } from "@/lib/effects/compare";
import { stepEffectSchema } from "@/lib/effects/schema";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Audit trail" };

const TYPE_STYLE: Record<string, string> = {
  submitted: "bg-slate-900 text-white",
  edited: "bg-fuchsia-700 text-white",
  edit_discarded: "bg-fuchsia-100 text-fuchsia-950",
  approved: "bg-emerald-700 text-white",
  rejected: "bg-red-700 text-white",
  invalidated: "bg-amber-100 text-amber-950",
  claimed: "bg-sky-700 text-white",
  outcome: "bg-sky-100 text-sky-950",
  expired: "bg-slate-500 text-white",
  escalated: "bg-orange-600 text-white",
  denied: "bg-red-100 text-red-900",
  claim_refused: "bg-red-100 text-red-900",
  edit_refused: "bg-red-100 text-red-900",
  stopped_stale: "bg-red-700 text-white",
  stopped_target_changed: "bg-red-700 text-white",
  needs_decision: "bg-red-100 text-red-900",
  approved_again: "bg-emerald-700 text-white",
};

function ActorLabel({ actor }: { actor: AuditEventView["actor"] }) {
  if (actor.kind === "agent") return <span>Agent · {actor.name ?? actor.id}</span>;
  if (actor.kind === "system") return <span className="text-slate-600">Plandesk (system)</span>;
  if (actor.kind === "integration") return <span>Ticketing integration · {actor.name ?? actor.id ?? "a revoked key"}</span>;
  if (actor.kind === "anonymous") return <span className="text-slate-600">Unidentified caller</span>;
  return <span className="font-medium">{actor.name ?? actor.id ?? "unknown person"}</span>;
}

/** Which plan version an event created, if it created one. */
function versionCreatedBy(e: AuditEventView): number | null {
  if (e.type === "submitted") return 1;
  if (e.type === "edited" || e.type === "edit_discarded") return typeof e.data.toVersion === "number" ? e.data.toVersion : null;
  return null;
}

function VersionDetails({ pv, audit, desk, open = false }: { pv: AuditPlanVersion; audit: RunAudit; desk: Parameters<typeof PlanSteps>[0]["desk"]; open?: boolean }) {
  return (
    <details id={`version-${pv.version}`} className="mt-2 rounded-md border border-slate-200 bg-slate-50" open={open}>
      <summary className="cursor-pointer px-3 py-2 text-sm font-medium">
        Plan version {pv.version} · {pv.steps.length} step{pv.steps.length === 1 ? "" : "s"} · by {pv.createdBy.kind === "agent" ? `the agent (${pv.createdBy.name})` : pv.createdBy.name}
        {pv.version === audit.run.approvedVersion && <span className="ml-2 rounded bg-emerald-100 px-1.5 py-0.5 text-xs text-emerald-900">approved version</span>}
        {pv.version === audit.run.planVersion && <span className="ml-2 rounded bg-slate-200 px-1.5 py-0.5 text-xs text-slate-800">current</span>}
      </summary>
      <div className="p-3">
        <PlanSteps steps={pv.steps} desk={desk} issues={pv.issues} users={audit.users} />
      </div>
    </details>
  );
}

/**
 * The effect an event recorded: on an approval, the expected effect the approver saw;
 * on a succeeded outcome, expected (stored with the approval) vs actual (the reference executor's write).
 */
function EventEffect({ e, comparisons }: { e: AuditEventView; comparisons: RunAudit["effectComparisons"] }) {
  if (e.type === "approved") {
    const expected = stepEffectSchema.safeParse(e.data.expectedEffect);
    if (!expected.success) return null;
    return (
      <div className="mt-2 rounded-md border border-teal-200 bg-teal-50 px-3 py-2 text-teal-950" data-testid="approved-effect">
        <p className="text-xs font-semibold uppercase tracking-wide">Approved with this expected effect</p>
        <EffectLines effect={expected.data} />
      </div>
    );
  }
  if (e.type === "outcome" && e.data.status === "succeeded") {
    const c = comparisons.find((x) => x.stepId === e.data.stepId);
    if (!c) return null;
    return (
      <div className="mt-2 rounded-md border border-sky-200 px-3 py-2" data-testid="effect-comparison">
        <p className="text-xs font-semibold uppercase tracking-wide">Expected vs actual effect</p>
        <EffectComparison rows={compareEffects(c.expected, c.actual)} />
      </div>
    );
  }
  return null;
}

export default async function RunAuditPage({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  const viewer = await requirePageViewer(`/runs/${id}/audit`);
  let data: Awaited<ReturnType<typeof getRunAudit>>;
  try {
    data = await getRunAudit(viewer, id);
  } catch (e) {
    pageRefusal(e);
  }
  const { desk, ...audit } = data;
  const { run, events, planVersions, edits } = audit;
  const latest = planVersions.find((p) => p.version === run.planVersion) ?? planVersions.at(-1);
  const stepLabels = new Map<string, string>();
  for (const pv of planVersions) for (const s of pv.steps) stepLabels.set(s.id, `step ${s.position} ${s.tool}`);
  if (latest) for (const s of latest.steps) stepLabels.set(s.id, `step ${s.position} ${s.tool}`);
  const ctx = { users: audit.users, stepLabel: (sid: string) => stepLabels.get(sid) };
  const editByTo = new Map(edits.map((e) => [e.toVersion, e]));
  const versionByNo = new Map(planVersions.map((p) => [p.version, p]));
  const shown = new Set<number>();
  const people = [...new Set(events.filter((e) => e.actor.kind === "user").map((e) => e.actor.name ?? e.actor.id))];

  return (
    <>
      <main className="mx-auto max-w-5xl px-4 py-6 sm:px-6">
        <nav aria-label="Breadcrumb" className="text-sm">
          <Link href={`/runs/${run.id}`} className="text-blue-700 underline">
            ← Back to the run
          </Link>
        </nav>
        <div className="mt-2 flex flex-wrap items-baseline gap-3">
          <h1 className="text-xl font-semibold">
            Audit trail · Ticket #{run.ticketId} · {run.ticketSubject}
          </h1>
          <span role="status" aria-label="Run status" className="rounded bg-slate-900 px-2 py-0.5 text-xs font-medium text-white" data-testid="run-status">
            {statusLabel(run.status)}
          </span>
        </div>
        <p className="mt-1 text-sm text-slate-600">
          {run.accountName} · run <code>{run.id}</code> · proposed by {run.agent.name} on {formatUtcSeconds(run.createdAt)} · bound to task revision{" "}
          {run.boundTaskRevision}
        </p>
        <dl className="mt-4 grid grid-cols-2 gap-3 text-sm sm:grid-cols-4">
          <div className="rounded-md border border-slate-200 bg-white p-3">
            <dt className="text-slate-600">Events</dt>
            <dd className="text-lg font-semibold tabular-nums">{events.length}</dd>
          </div>
          <div className="rounded-md border border-slate-200 bg-white p-3">
            <dt className="text-slate-600">Plan versions</dt>
            <dd className="text-lg font-semibold tabular-nums">{planVersions.length}</dd>
          </div>
          <div className="rounded-md border border-slate-200 bg-white p-3">
            <dt className="text-slate-600">Edits by people</dt>
            <dd className="text-lg font-semibold tabular-nums">{edits.length}</dd>
          </div>
          <div className="rounded-md border border-slate-200 bg-white p-3">
            <dt className="text-slate-600">People involved</dt>
            <dd className="font-medium">{people.length ? people.join(", ") : "none"}</dd>
          </div>
        </dl>
        <p className="mt-3 text-xs text-slate-500">
          Times are UTC (and your time zone), when each event was written. Deadlines: escalates <Instant iso={run.escalateAt} seconds />
          {run.escalatedAt && <> (escalated <Instant iso={run.escalatedAt} seconds />)</>}, expires <Instant iso={run.expiresAt} seconds />. The log is append-only.
        </p>

        <h2 className="mt-6 text-lg font-semibold">Timeline</h2>
        <ol className="mt-2 space-y-3" aria-label="Audit events" data-testid="timeline">
          {events.map((e) => {
            const created = versionCreatedBy(e);
            const pv = created !== null ? versionByNo.get(created) : undefined;
            if (pv) shown.add(pv.version);
            const edit = e.type === "edited" && created !== null ? editByTo.get(created) : undefined;
            return (
              <li key={e.seq} className="rounded-lg border border-slate-200 bg-white p-3 shadow-sm" data-testid="audit-event" data-type={e.type}>
                <div className="flex flex-wrap items-center gap-x-3 gap-y-1 text-sm">
                  <span className="font-mono text-xs text-slate-500">#{e.seq}</span>
                  <time dateTime={e.at} className="tabular-nums text-slate-700">
                    <Instant iso={e.at} seconds />
                  </time>
                  <span className={`rounded px-1.5 py-0.5 text-xs font-semibold ${TYPE_STYLE[e.type] ?? "bg-slate-100 text-slate-800"}`}>{EVENT_LABELS[e.type] ?? e.type}</span>
                  <ActorLabel actor={e.actor} />
                </div>
                <p className="mt-1 text-sm">{describeEvent(e.type, e.data, ctx)}</p>
                <EventEffect e={e} comparisons={audit.effectComparisons} />
                {edit && (
                  <div className="mt-2 rounded-md border border-fuchsia-200 p-3">
                    <EditDiff diff={edit.diff} desk={desk} editorName={edit.editorName} />
                    <p className="mt-2 flex flex-wrap gap-3 text-sm" aria-label={`Downloads for the edit to version ${edit.toVersion}`}>
                      <span className="text-slate-600">Download as JSON:</span>
                      <a className="text-blue-700 underline" href={`/api/runs/${run.id}/edits/${edit.toVersion}?part=before&download=1`} download>
                        pre-edit plan (v{edit.fromVersion})
                      </a>
                      <a className="text-blue-700 underline" href={`/api/runs/${run.id}/edits/${edit.toVersion}?part=after&download=1`} download>
                        post-edit plan (v{edit.toVersion})
                      </a>
                      <a className="text-blue-700 underline" href={`/api/runs/${run.id}/edits/${edit.toVersion}?part=diff&download=1`} download>
                        diff
                      </a>
                    </p>
                  </div>
                )}
                {pv && <VersionDetails pv={pv} audit={audit} desk={desk} />}
              </li>
            );
          })}
        </ol>
        {planVersions.some((p) => !shown.has(p.version)) && (
          <section className="mt-6" aria-labelledby="other-versions-h">
            <h2 id="other-versions-h" className="text-lg font-semibold">
              Other plan versions
            </h2>
            {planVersions
              .filter((p) => !shown.has(p.version))
              .map((p) => (
                <VersionDetails key={p.version} pv={p} audit={audit} desk={desk} />
              ))}
          </section>
        )}
      </main>
    </>
  );
}
