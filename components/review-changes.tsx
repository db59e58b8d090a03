"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useEffect } from "react";
import type { AccountSnapshot } from "@/lib/desk/snapshot";
import type { PlanDiff } from "@/lib/diff/plan-diff";
import { ApiError, apiFetch } from "@/lib/client/api";
import type { Grant } from "@/lib/people/grants";
import type { ToolMetaCatalog } from "@/lib/tools/meta-catalog";
import type { Plan } from "@/lib/plan/schema";
import type { ConcurrentRun, RunStepView } from "@/lib/api/schemas";
import type { ValidationIssue } from "@/lib/validation/types";
import { ApprovalPanel } from "./approval-panel";
import { StepArgList } from "./arg-value";
import { FieldChanges } from "./edit-diff";
import { focusHeading } from "./keyboard-shortcuts";
import { toast } from "./toaster";
import { PlanEffects } from "./step-effects";
import type { StepEffect } from "@/lib/effects/schema";
import { isUnkeptPromise } from "@/lib/queue/risk";
import { withVisibleMarkers } from "@/lib/text/hidden-characters";

/**
 * The review-changes screen after a valid edit (docs/design.md §7): "Your edit changed N things",
 * added steps set apart and marked, every changed field before → after, annotations from our
 * own account data, what the edited plan now says but does not do (a reply promising an amount or
 * a date no step moves), which steps need re-approval — and the three ways on: approve all changes,
 * remove an added step (keeping the rest, revalidated), or discard my edits.
 */
export function ReviewChanges({
  runId,
  fromVersion,
  toVersion,
  desk,
  steps,
  issues,
  grants,
  blockedReason,
  status,
  users = {},
  effects,
  concurrentRuns = [],
  catalog,
  onDone,
}: {
  /** The run's tool catalog, so an imported tool's added step shows its labels and typed values (default: built-in tools). */
  catalog?: ToolMetaCatalog;
  /** The effects preview of version `toVersion`, shown before the approval panel. */
  effects?: StepEffect[];
  runId: string;
  fromVersion: number;
  toVersion: number;
  desk: AccountSnapshot;
  steps: RunStepView[];
  issues: ValidationIssue[];
  grants: Grant[];
  blockedReason: string | null;
  /** The run's status: once it is `approved`, the review collapses to a read-only summary. */
  status?: string;
  /** Display names by user id, for the confirmation that names whose approvals a change withdraws. */
  users?: Record<string, string>;
  /** Other runs of the task being executed (run details' `concurrentRuns`): the approval panel asks to acknowledge them. */
  concurrentRuns?: ConcurrentRun[];
  onDone: () => void;
}) {
  // Steps a person approved on this version: removing a step or discarding the edit withdraws
  // those approvals (a new version), so those actions ask first and say whose.
  const personApproved = steps.filter((s) => s.approval?.state === "active" && s.approval.approverId);
  const withdrawNotice = (action: string) =>
    `${action} makes a new plan version and withdraws ${personApproved.length === 1 ? "the approval" : "the approvals"} of ${personApproved
      .map((s) => `step ${s.position} (approved by ${users[s.approval!.approverId!] ?? s.approval!.approverId})`)
      .join(", ")}; the run goes back to review. Continue?`;
  const confirmWithdraw = (action: string) => personApproved.length === 0 || window.confirm(withdrawNotice(action));
  const readOnly = status === "approved";
  const qc = useQueryClient();
  const diffQuery = useQuery({
    queryKey: ["diff", runId, fromVersion, toVersion],
    queryFn: () => apiFetch<{ diff: PlanDiff; reapproval: string; from: Plan; to: Plan }>(`/api/runs/${runId}/diff?from=${fromVersion}&to=${toVersion}`),
  });
  const refresh = () => {
    qc.invalidateQueries({ queryKey: ["run", runId] });
    qc.invalidateQueries({ queryKey: ["queue"] });
  };
  const removeStep = useMutation({
    mutationFn: (stepId: string) =>
      apiFetch(`/api/runs/${runId}/edits`, {
        method: "POST",
        body: { baseVersion: toVersion, steps: steps.filter((s) => s.id !== stepId).map((s) => ({ id: s.id, tool: s.tool, args: s.args })) },
      }),
    onSuccess: () => {
      toast("Step removed; the rest of your edit is kept.");
      refresh();
      // the removed step's card (and its button, where focus was) is gone: focus on the summary
      focusHeading("review-h");
    },
    onError: (e) => toast(e instanceof ApiError ? e.message : "The step could not be removed.", "error"),
  });
  const discard = useMutation({
    mutationFn: () => apiFetch(`/api/runs/${runId}/edits/${fromVersion + 1}/discard`, { method: "POST" }),
    onSuccess: () => {
      toast(personApproved.length > 0 ? "Your edits were discarded; the plan is as before and waits for approval again." : "Your edits were discarded; the plan is as before.");
      refresh();
      onDone();
    },
    onError: (e) => toast(e instanceof ApiError ? e.message : "Your edits could not be discarded.", "error"),
  });

  // After a save, focus goes to "Your edit changed N things" as soon as it is there.
  const diffReady = diffQuery.isSuccess;
  useEffect(() => {
    if (diffReady) focusHeading("review-h");
  }, [diffReady]);

  if (diffQuery.isPending) return <p className="text-sm text-slate-600">Computing the changes…</p>;
  if (diffQuery.isError) return <p role="alert" className="text-sm text-red-800">{(diffQuery.error as Error).message}</p>;
  const { diff, reapproval, to } = diffQuery.data;
  const position = (id: string) => to.steps.findIndex((s) => s.id === id) + 1;
  const notes = (id: string) => diff.annotations.filter((a) => a.stepId === id);
  const busy = removeStep.isPending || discard.isPending;
  // What the edit leaves inconsistent: a reply still promising an amount or a date no step moves.
  const promises = issues.filter((i) => isUnkeptPromise(i) && i.stepId && position(i.stepId) > 0);

  return (
    <section aria-labelledby="review-h" className="space-y-4">
      <div className="rounded-lg border-2 border-blue-700 bg-white p-4">
        <h2 id="review-h" tabIndex={-1} className="text-lg font-bold uppercase tracking-wide">
          Your edit changed {diff.changeCount} {diff.changeCount === 1 ? "thing" : "things"}
        </h2>
        <p className="text-sm text-slate-600">
          Plan version {fromVersion} → {toVersion}
        </p>
        {promises.length > 0 && (
          <div data-testid="review-inconsistencies" role="note" className="mt-3 rounded-md border-2 border-red-700 bg-red-50 p-3 text-sm text-red-950">
            <p className="font-semibold">
              The plan now tells the customer what no step does: fix the text or the step, or acknowledge it
            </p>
            <ul className="mt-1 list-disc space-y-1 pl-5">
              {promises.map((i, n) => (
                <li key={n}>
                  <span className="font-medium">Step {position(i.stepId!)}:</span> {withVisibleMarkers(i.message)}
                </li>
              ))}
            </ul>
          </div>
        )}
        <ol className="mt-3 space-y-3">
          {diff.changed.map((c) => (
            <li key={c.stepId} className="rounded-md border border-slate-200 p-3">
              <p className="font-medium">
                step {c.position} <code>{c.tool}</code> <span className="ml-1 rounded bg-sky-100 px-1.5 py-0.5 text-xs text-sky-900">changed</span>
              </p>
              <FieldChanges fields={c.fields} tool={c.tool} specs={catalog?.get(c.tool)?.fields} />
              {notes(c.stepId).map((a, n) => (
                <p key={n} className={`mt-1 text-sm ${a.severity !== "info" ? "text-amber-900" : "text-slate-600"}`}>
                  note: {a.message}
                </p>
              ))}
            </li>
          ))}
          {diff.added.map((s) => {
            return (
              <li key={s.id} className="rounded-md border-2 border-fuchsia-600 bg-fuchsia-50 p-3" aria-label={`Step ${position(s.id)} added`}>
                <p className="font-semibold">
                  + step {position(s.id)} <code>{s.tool}</code>
                  <span className="ml-2 rounded bg-fuchsia-700 px-1.5 py-0.5 text-xs font-bold uppercase text-white">step added</span>
                </p>
                <StepArgList tool={s.tool} args={s.args} desk={desk} catalog={catalog} className="mt-1 grid grid-cols-[9rem_1fr] gap-y-1 text-sm" />
                {notes(s.id).map((a, n) => (
                  <p key={n} className={`mt-1 text-sm ${a.severity !== "info" ? "font-medium text-amber-900" : "text-slate-600"}`}>
                    note: {a.message}
                  </p>
                ))}
                {!readOnly && <button
                  type="button"
                  disabled={busy || !!blockedReason}
                  onClick={() => confirmWithdraw(`Removing step ${position(s.id)}`) && removeStep.mutate(s.id)}
                  className="mt-2 rounded-md border border-fuchsia-700 px-2.5 py-1 text-xs font-medium text-fuchsia-900 hover:bg-white disabled:opacity-50"
                >
                  Remove step {position(s.id)}
                </button>}
              </li>
            );
          })}
          {diff.removed.map((s) => (
            <li key={s.id} className="rounded-md border border-dashed border-red-400 bg-red-50 p-3">
              <p className="font-semibold text-red-900">
                − <code>{s.tool}</code> <span className="ml-1 rounded bg-red-700 px-1.5 py-0.5 text-xs font-bold uppercase text-white">step removed</span>
              </p>
            </li>
          ))}
          {diff.moved.map((m) => (
            <li key={m.stepId} className="rounded-md border border-slate-200 p-3 text-sm">
              <code>{m.tool}</code> moved from position {m.from} to {m.to}
            </li>
          ))}
        </ol>
        {readOnly ? (
          <p className="mt-3 rounded bg-emerald-50 px-3 py-2 text-sm font-medium text-emerald-950 ring-1 ring-emerald-200" data-testid="review-approved">
            Approved: every step of plan version {toVersion} is approved, so this review is read-only. Editing the plan again withdraws the approvals it touches.
          </p>
        ) : (
          <p className="mt-3 rounded bg-amber-100 px-3 py-2 text-sm font-medium text-amber-950">{reapproval.charAt(0).toUpperCase() + reapproval.slice(1)}</p>
        )}
        {!readOnly && <div className="mt-3">
          <button
            type="button"
            disabled={busy || !!blockedReason}
            onClick={() => confirmWithdraw("Discarding your edits") && discard.mutate()}
            className="rounded-md border border-slate-400 px-3 py-2 text-sm font-medium text-slate-800 hover:bg-slate-50 disabled:opacity-50"
          >
            {discard.isPending ? "Discarding…" : "Discard my edits"}
          </button>
        </div>}
      </div>
      {effects && <PlanEffects effects={effects} version={toVersion} />}
      {!readOnly && <ApprovalPanel
        runId={runId}
        planVersion={toVersion}
        steps={steps}
        issues={issues}
        grants={grants}
        blockedReason={blockedReason}
        canReject={!blockedReason}
        concurrentRuns={concurrentRuns}
      />}
    </section>
  );
}
