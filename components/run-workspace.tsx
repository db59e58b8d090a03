"use client";

import { useQuery, useQueryClient } from "@tanstack/react-query";
import dynamic from "next/dynamic";
import { useRouter } from "next/navigation";
import { useEffect, useMemo, useRef, useState } from "react";
import { metaCatalogWith } from "@/lib/tools/meta-catalog";
import type { AccountSnapshot } from "@/lib/desk/snapshot";
import { apiFetch } from "@/lib/client/api";
import { formatInstant } from "@/lib/text/format";
import type { Grant } from "@/lib/people/grants";
import type { PlanFormValues } from "@/lib/plan/form-schema";
import type { Step } from "@/lib/plan/schema";
import type { RunDetails } from "@/lib/api/schemas";
import { getToolMeta } from "@/lib/tools/builtin-meta";
import { nextActions, runFacts } from "@/lib/lifecycle/run-state";
import { formatExpiry } from "@/lib/deadline/expiry-words";
import { ApprovalPanel, ConcurrentRunsNotice } from "./approval-panel";
import { useServerExpiry } from "./use-server-expiry";
import { focusHeading, useShortcut } from "./keyboard-shortcuts";
import { toast } from "./toaster";
import { NextActionsPanel } from "./next-actions";
import { StepArgList } from "./arg-value";
import { PlanSteps } from "./plan-steps";
import { ReadSteps } from "./read-steps";
import { PresenceBar, useLiveConnected } from "./live/presence-bar";
import { RiskCallout } from "./risk-callout";
import { EditSummaryPanel } from "./edit-summary";
import { DecisionBarSlot } from "./decision-bar";
import { planRisks } from "@/lib/queue/risk";
import { accountName } from "@/lib/desk/lookup";
import { carryOverEdits, type CarryOver } from "@/lib/plan/carry-over";

/**
 * The plan editor with react-hook-form and the tools' argument schemas, loaded when someone starts
 * editing, not with the page (docs/design.md "Page weight"); hovering or focusing "Edit plan"
 * fetches it ahead.
 */
const loadPlanForm = () => {
  void loadReviewChanges(); // what a saved edit shows next
  return import("./plan-form").then((m) => m.RunPlanForm);
};
const PlanForm = dynamic(loadPlanForm, { loading: () => <p className="text-sm text-slate-600">Loading the editor…</p> });
/** The review of a saved edit (the semantic diff with its word diff), loaded with the editor. */
const loadReviewChanges = () => import("./review-changes").then((m) => m.ReviewChanges);
const ReviewChanges = dynamic(loadReviewChanges, { loading: () => <p className="text-sm text-slate-600">Loading the changes…</p> });

/** Recording what happened to a step whose outcome is unknown (a form of its own), loaded only for a run that has such a step. */
const ReconcilePanel = dynamic(() => import("./reconcile-panel").then((m) => m.ReconcilePanel));

type Details = Omit<RunDetails, "desk">;
type Mode =
  | { kind: "view" }
  | { kind: "edit"; baseVersion: number; steps: Step[]; focusStep?: number; focusField?: string; carried?: CarryOver }
  | { kind: "review"; fromVersion: number }
  | { kind: "conflict"; baseVersion: number; base: Step[]; currentVersion: number; plan: { version: number; steps: Step[] }; mine: PlanFormValues; savedBy?: { name: string; at: string } | null };

/**
 * The argument of `step` the `e` shortcut puts focus on: the first field (in the tool's form
 * order) whose value the agent made or computed (provenance "model"/"computed", docs/design.md §3),
 * the likeliest to need a person's correction; values read from a record or quoted from the
 * customer come after. Undefined when every field was read (then the step's first field).
 */
function fieldToCheck(step: Pick<Step, "tool" | "provenance">, fieldNames: string[]): string | undefined {
  return fieldNames.find((name) => {
    const kind = step.provenance?.[name]?.kind;
    return kind === "model" || kind === "computed";
  });
}

/** Why approving is not possible right now, or null. */
function approvalBlock(d: Details): string | null {
  const { run, task } = d;
  if (run.status === "expired") return `This run expired at ${formatInstant(run.expiresAt)}; it can no longer be approved. The agent has been told.`;
  if (run.status !== "pending_review" && run.status !== "approved" && run.status !== "needs_decision") return `This run is ${run.status.replace(/_/g, " ")}; there is nothing to approve.`;
  if (run.boundTaskRevision !== task.revision)
    return `The task changed since this plan was made (plan bound to revision ${run.boundTaskRevision}, task now at revision ${task.revision}); it cannot be approved. Reject it so the agent plans again.`;
  return null;
}

/**
 * The run page's interactive part: the plan (read-only, or as a form while editing), the
 * review-changes screen after an edit, the stale-version conflict view, and the decision panel.
 * Refreshes itself every 5 s and says so when someone else changed the plan meanwhile.
 */
export function RunWorkspace({
  initial,
  desk,
  viewerId,
  viewerRole,
  grants,
  serverNow,
}: {
  initial: Details;
  desk: AccountSnapshot;
  viewerId: string;
  viewerRole: string;
  grants: Grant[];
  /** The server's clock when the page was rendered (ISO-8601 UTC): the decision buttons disable at `expiresAt` on that clock. */
  serverNow?: string;
}) {
  const runId = initial.run.id;
  const liveUp = useLiveConnected(); // pushed changes refetch at once; poll only while the stream is down
  const { data } = useQuery({
    queryKey: ["run", runId],
    queryFn: () => apiFetch<Details>(`/api/runs/${runId}`),
    initialData: initial,
    refetchInterval: liveUp ? 30_000 : 5_000,
  });
  const d = data ?? initial;
  const catalog = useMemo(() => metaCatalogWith(initial.catalog?.imported ?? [], initial.catalog?.version ?? null), [initial.catalog]);
  const [mode, setMode] = useState<Mode>({ kind: "view" });
  const [seenVersion, setSeenVersion] = useState(initial.run.planVersion);
  const [externalChange, setExternalChange] = useState<number | null>(null);
  const router = useRouter();
  const qc = useQueryClient();
  const lastState = useRef(`${initial.run.status}:${initial.run.planVersion}:${initial.task.revision}`);

  // Keep the server-rendered header (status, task revision) in step with the live run.
  useEffect(() => {
    const now = `${d.run.status}:${d.run.planVersion}:${d.task.revision}`;
    if (now !== lastState.current) {
      lastState.current = now;
      router.refresh();
    }
  }, [d.run.status, d.run.planVersion, d.task.revision, router]);

  // A newer version that this person did not make: say so (never merge it into a form).
  // Adjusted while rendering (react.dev "You might not need an effect"), guarded so it settles.
  if (d.run.planVersion > seenVersion) {
    const mine = d.planVersions.at(-1)?.createdById === viewerId;
    if (!mine && externalChange !== d.run.planVersion) setExternalChange(d.run.planVersion);
    if (mode.kind === "view" || mine) setSeenVersion(d.run.planVersion);
  }

  // Exact in the browser: at expiresAt (on the server's clock) approving stops, before any sweep or refetch.
  const expiry = useServerExpiry(d.run.expiresAt, serverNow ?? new Date().toISOString());
  const waiting = d.run.status === "pending_review" || d.run.status === "approved" || d.run.status === "needs_decision";
  const block = approvalBlock(d) ?? (waiting && expiry.expired ? `This run ${formatExpiry(d.run.expiresAt, expiry.now)}; it can no longer be approved.` : null);
  const next = nextActions(d.run.status, runFacts(d.run, { now: new Date(), liveRevision: d.task.revision }));
  const editBlock =
    viewerRole !== "operator" && viewerRole !== "supervisor"
      ? "Only operators and supervisors of the desk edit plans; your role can look but not edit."
      : d.run.status === "pending_review" || d.run.status === "approved"
        ? null
        : d.run.status === "needs_decision" && d.run.steps.some((s) => s.execution)
          ? "Steps of this run were already claimed, and what was written stays written; approve the remaining steps again or reject the run."
          : block;
  const [barSlot, setBarSlot] = useState<HTMLElement | null>(null);
  const planIssues = d.validation.issues.filter((i) => !i.stepId);
  const risks = planRisks(d.run.steps, d.validation.issues, (name) => catalog.get(name), (id) => accountName(desk, id));
  const approvedSteps = Object.fromEntries(d.run.steps.map((s) => [s.id, s.approval?.state === "active"]));
  const startEdit = (focusStep?: number, focusField?: string) => {
    setExternalChange(null);
    setSeenVersion(d.run.planVersion);
    setMode({ kind: "edit", baseVersion: d.run.planVersion, steps: d.run.steps as Step[], focusStep, focusField });
  };
  // e: edit with focus in the step the person is on (focus inside a step card), else
  // in the first step still waiting for a person's approval, else the first step; inside it,
  // on the first value the agent made (fieldToCheck), else its first field.
  useShortcut(
    "edit",
    () => {
      if (editBlock) return toast(`Cannot edit: ${editBlock}`, "error");
      const onStep = document.activeElement?.closest("[data-step-position]")?.getAttribute("data-step-position");
      const waiting = d.run.steps.find((s) => s.gate === "approval_required" && s.approval?.state !== "active");
      const index = onStep ? Number(onStep) - 1 : waiting ? waiting.position - 1 : 0;
      const step = d.run.steps[index] as Step | undefined;
      startEdit(index, step ? fieldToCheck(step, (catalog.get(step.tool)?.fields ?? []).map((f) => f.name)) : undefined);
    },
    mode.kind === "view" || mode.kind === "review",
  );

  return (
    <DecisionBarSlot.Provider value={barSlot}>
    <div className="space-y-4">
      {mode.kind !== "edit" && <RiskCallout risks={risks} approved={approvedSteps} />}
      {/* a colleague's edit is read before the steps: on the first screen, under the risks it may have made */}
      {mode.kind === "view" && <EditSummaryPanel edits={d.edits ?? []} users={d.users} viewerId={viewerId} catalog={catalog} currentStepIds={new Set(d.run.steps.map((s) => s.id))} />}
      <PresenceBar runId={runId} editing={mode.kind === "edit"} />
      {externalChange !== null && (
        <div role="status" className="flex items-center gap-3 rounded-md border border-blue-300 bg-blue-50 px-3 py-2 text-sm text-blue-950">
          <span>
            Someone else changed this plan while you were looking; it is now at version {externalChange}.
            {mode.kind === "edit" && " Your unsaved changes are based on an older version: saving offers to start over from the newer one, keeping what you typed where it still applies."}
          </span>
          <button type="button" className="ml-auto underline" onClick={() => setExternalChange(null)}>
            Dismiss
          </button>
        </div>
      )}
      {/* a waiting run says it in its decision card, with the checkbox approving needs */}
      {!waiting && d.run.status !== "expired" && (d.concurrentRuns?.length ?? 0) > 0 && <ConcurrentRunsNotice runs={d.concurrentRuns} />}
      <NextActionsPanel next={next} runId={runId} />
      {d.run.steps.some((s) => s.execution && !s.execution.resolution) && <ReconcilePanel runId={runId} steps={d.run.steps} canReconcile={viewerRole === "supervisor"} />}
      {mode.kind === "view" && (
        <>
          <div className="flex items-center gap-3">
            <h2 id="plan-h" tabIndex={-1} className="text-lg font-semibold">
              Plan · version {d.run.planVersion} ({d.run.steps.length} step{d.run.steps.length === 1 ? "" : "s"})
            </h2>
            <button
              type="button"
              disabled={!!editBlock}
              title={editBlock ?? undefined}
              aria-describedby={editBlock ? "edit-block" : undefined}
              onClick={() => startEdit()}
              onPointerEnter={() => void loadPlanForm()}
              onFocus={() => void loadPlanForm()}
              aria-keyshortcuts="e"
              className="ml-auto rounded-md border border-blue-700 px-3 py-1.5 text-sm font-medium text-blue-800 hover:bg-blue-50 disabled:cursor-not-allowed disabled:border-slate-300 disabled:text-slate-500"
            >
              Edit plan
            </button>
          </div>
          {editBlock && (
            <p id="edit-block" className="-mt-2 text-right text-xs text-slate-600" data-testid="edit-block">
              Edit plan: {editBlock}
            </p>
          )}
          {planIssues.map((i, n) => (
            <p key={n} className="rounded-md bg-amber-50 px-3 py-1.5 text-sm text-amber-950">
              {i.message}
            </p>
          ))}
          <ReadSteps reads={d.run.reads ?? []} issues={d.validation.issues} desk={desk} />
          <PlanSteps steps={d.run.steps} desk={desk} issues={d.validation.issues} users={initial.users} catalog={catalog} effects={d.effects} reads={d.run.reads ?? []} taskText={d.task.body} />
          {(waiting || d.run.status === "expired") && (
            <ApprovalPanel runId={runId} planVersion={d.run.planVersion} steps={d.run.steps} issues={d.validation.issues} grants={grants} blockedReason={block} canReject={d.run.status !== "expired" && !(waiting && expiry.expired)} viewerId={viewerId} users={d.users} decideAgain={d.run.status === "needs_decision" ? (d.run.decisionReason?.stepId ?? null) : null} desk={desk} concurrentRuns={d.concurrentRuns ?? []} />
          )}
        </>
      )}
      {mode.kind === "edit" && (
        <>
          <h2 id="editing-h" tabIndex={-1} className="text-lg font-semibold">
            Editing plan version {mode.baseVersion}
          </h2>
          <PlanForm
            imported={initial.catalog?.imported ?? []}
            catalogVersion={initial.catalog?.version ?? null}
            key={`edit-${mode.baseVersion}`}
            runId={runId}
            baseVersion={mode.baseVersion}
            steps={mode.steps}
            desk={desk}
            ticketId={d.ticket.id}
            ticketAccountId={d.ticket.accountId}
            grants={grants}
            focusStep={mode.focusStep}
            focusField={mode.focusField}
            carried={mode.carried}
            defaultReason={`Ticket #${d.ticket.id}: ${d.ticket.subject}`}
            requiredFieldsByTool={d.requiredFieldsByTool}
            onCancel={() => {
              setMode({ kind: "view" });
              focusHeading("plan-h");
            }}
            onSaved={(result) => {
              setSeenVersion(result.planVersion.version);
              qc.invalidateQueries({ queryKey: ["run", runId] });
              qc.invalidateQueries({ queryKey: ["queue"] });
              setMode({ kind: "review", fromVersion: mode.baseVersion });
            }}
            onConflict={(currentVersion, plan, mine, savedBy) => {
              setMode({ kind: "conflict", baseVersion: mode.baseVersion, base: mode.steps, currentVersion, plan, mine, savedBy });
              // the refusal replaces the form focus was in: focus on what it says, not the body
              focusHeading("conflict-h");
            }}
          />
        </>
      )}
      {mode.kind === "review" && d.run.planVersion > mode.fromVersion && (
        <ReviewChanges
          runId={runId}
          fromVersion={mode.fromVersion}
          toVersion={d.run.planVersion}
          desk={desk}
          steps={d.run.steps}
          issues={d.validation.issues}
          grants={grants}
          blockedReason={block}
          status={d.run.status}
          users={initial.users}
          effects={d.effects}
          concurrentRuns={d.concurrentRuns ?? []}
          catalog={catalog}
          onDone={() => setMode({ kind: "view" })}
        />
      )}
      {mode.kind === "review" && (
        <button type="button" onClick={() => setMode({ kind: "view" })} className="text-sm text-blue-800 underline">
          Back to the plan
        </button>
      )}
      {mode.kind === "conflict" && (
        <section aria-labelledby="conflict-h" className="rounded-lg border-2 border-amber-500 bg-amber-50 p-4">
          <h2 id="conflict-h" tabIndex={-1} className="text-lg font-semibold">
            Someone else changed this plan first
          </h2>
          {mode.savedBy && (
            <p className="text-sm font-medium" data-testid="conflict-saved-by">
              {mode.savedBy.name} saved version {mode.currentVersion} at {formatInstant(mode.savedBy.at)}.
            </p>
          )}
          <p className="text-sm">
            You edited version {mode.baseVersion}; the plan is now at version {mode.currentVersion}. Nothing of yours was saved yet. Compare, then
            start over from the newer plan: what you typed is kept where it still applies, and the form says what no longer does.
          </p>
          <div className="mt-3 grid gap-4 lg:grid-cols-2">
            <div>
              <h3 className="font-medium">Newer plan (version {mode.currentVersion})</h3>
              <StepList steps={mode.plan.steps} desk={desk} />
            </div>
            <div>
              <h3 className="font-medium">Your changes (not saved)</h3>
              <StepList steps={mode.mine.steps as unknown as Step[]} desk={desk} />
            </div>
          </div>
          <button
            type="button"
            onClick={() => {
              // the form is now on the newer version: the notice of someone else's change is done
              setExternalChange(null);
              setSeenVersion(mode.currentVersion);
              setMode({ kind: "edit", baseVersion: mode.currentVersion, steps: mode.plan.steps, carried: carryOverEdits(mode.base, mode.mine.steps, mode.plan.steps) });
            }}
            className="mt-3 rounded-md bg-blue-700 px-3 py-2 text-sm font-medium text-white"
          >
            Start over from version {mode.currentVersion}
          </button>
        </section>
      )}
      {/* the decision bar's slot: sticky at the bottom of the viewport while the plan is on screen */}
      <div ref={setBarSlot} className="sticky bottom-0 z-20 -mx-4 sm:mx-0 print:hidden" />
    </div>
    </DecisionBarSlot.Provider>
  );
}

function StepList({ steps, desk }: { steps: Pick<Step, "id" | "tool" | "args">[]; desk: AccountSnapshot }) {
  return (
    <ol className="mt-1 space-y-2">
      {steps.map((s, i) => {
        const tool = getToolMeta(s.tool);
        return (
          <li key={`${s.id}-${i}`} className="rounded border border-slate-200 bg-white p-2 text-sm">
            <p className="font-medium">
              Step {i + 1} · {tool?.label ?? s.tool}
            </p>
            <StepArgList tool={s.tool} args={s.args} desk={desk} className="grid grid-cols-[8rem_1fr] gap-y-0.5" />
          </li>
        );
      })}
    </ol>
  );
}
