"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import dynamic from "next/dynamic";
import { useState } from "react";
import type { AccountSnapshot } from "@/lib/desk/snapshot";
import { ApiError, apiFetch } from "@/lib/client/api";
import type { Grant } from "@/lib/people/grants";
import type { RunOwnership } from "@/lib/api/endpoints/ownership-api";
import type { ImportedToolSpec } from "@/lib/tools/json-schema-tool";
import { btn, input, primary } from "./ownership-styles";
import { toast } from "./toaster";
import { focusHeading, useShortcut } from "./keyboard-shortcuts";

/** "Suggest a step" with its form and the tools' schemas, loaded when someone opens it (docs/design.md "Page weight"). */
const SuggestStepForm = dynamic(() => import("./suggest-step-form").then((m) => m.SuggestStepForm), {
  loading: () => <p className="mt-3 text-sm text-slate-600">Loading the form…</p>,
});
/** Statuses in which a run waits for a person's decision (it may be handed to someone). */
const isWaiting = (status: string) => status === "pending_review" || status === "approved" || status === "needs_decision";

/** "Request approval", loaded when someone opens it. */
const RequestApprovalForm = dynamic(() => import("./ownership-forms").then((m) => m.RequestApprovalForm), {
  loading: () => <p className="mt-3 text-sm text-slate-600">Loading the form…</p>,
});
/** The run's suggestions with Accept / Decline, loaded when the run has any. */
const Suggestions = dynamic(() => import("./ownership-forms").then((m) => m.Suggestions));

/** The run's ownership facts (`GET /api/runs/{runId}/ownership`), refreshed every 5 s; shared by the panel and "Who acts next". */
export function useRunOwnership(runId: string) {
  return useQuery({ queryKey: ["ownership", runId], queryFn: () => apiFetch<RunOwnership>(`/api/runs/${runId}/ownership`), refetchInterval: 5_000 });
}

/** The people who can decide each waiting step, by name ("Who acts next"). Renders nothing until loaded. */
export function NamedDeciders({ runId }: { runId: string }) {
  const { data } = useRunOwnership(runId);
  if (!data || data.deciders.length === 0) return null;
  return (
    <ul aria-label="Who can decide" className="mt-2 space-y-1 text-sm" data-testid="named-deciders">
      {data.deciders.map((d) => (
        <li key={d.stepId}>
          {d.sentence}.
          {d.beyondViewer && <span className="ml-1 rounded bg-amber-100 px-1.5 py-0.5 text-xs font-medium text-amber-950">beyond your limit</span>}
        </li>
      ))}
    </ul>
  );
}

/**
 * The run page's ownership panel: who has the run (Take; a supervisor reassigns),
 * Request approval from a person or a role with a note, and suggested steps — "Suggest a step"
 * for tools the viewer may not author, Accept (becomes the acceptor's own edit, through the
 * validator) or Decline with a reason.
 */
export function OwnershipPanel({
  runId,
  viewerId,
  viewerRole,
  grants,
  desk,
  ticketId,
  ticketAccountId,
  imported,
  catalogVersion,
}: {
  runId: string;
  viewerId: string;
  viewerRole: string;
  grants: Grant[];
  desk: AccountSnapshot;
  ticketId: string;
  ticketAccountId: string;
  imported: ImportedToolSpec[];
  catalogVersion: number | null;
}) {
  const { data, error } = useRunOwnership(runId);
  const qc = useQueryClient();
  const [dialog, setDialog] = useState<"none" | "request" | "suggest">("none");
  const refresh = () => {
    void qc.invalidateQueries({ queryKey: ["ownership", runId] });
    void qc.invalidateQueries({ queryKey: ["run", runId] });
    void qc.invalidateQueries({ queryKey: ["queue"] });
  };
  const canAct = !!data && isWaiting(data.status) && (viewerRole === "operator" || viewerRole === "supervisor");
  // h: the hand-off form, focus in its note (Ctrl+Enter there sends and opens the next run)
  useShortcut("handOff", () => setDialog("request"), canAct);
  /** Opens "Suggest a step" with focus in its first field (or on the line saying there is nothing to suggest). */
  const openSuggest = () => {
    setDialog("suggest");
    focusHeading("sug-tool", "suggest-none");
  };
  useShortcut("suggestStep", openSuggest, canAct);
  const fail = (e: unknown) => toast(e instanceof ApiError ? e.message : "Something went wrong; nothing was changed.", "error");
  // The Take button goes away once the run is the viewer's: the focus moves to the line that now
  // says so, never to <body> (held there while the refetch re-renders the panel).
  const take = useMutation({
    mutationFn: () => apiFetch(`/api/runs/${runId}/take`, { method: "POST" }),
    onSuccess: () => {
      toast("You have taken this run.");
      refresh();
      focusHeading("run-assignee");
    },
    onError: fail,
  });
  const assign = useMutation({
    mutationFn: (assigneeId: string | null) => apiFetch(`/api/runs/${runId}/assignee`, { method: "PUT", body: { assigneeId } }),
    onSuccess: () => (toast("Assignment saved."), refresh()),
    onError: fail,
  });
  const canTake = canAct && data!.assignee?.id !== viewerId && (!data!.assignee || viewerRole === "supervisor");
  useShortcut("take", () => take.mutate(), canTake && !take.isPending);
  if (error) return <p role="alert" className="text-sm text-red-800">{(error as Error).message}</p>;
  if (!data) return null;
  const waiting = isWaiting(data.status);
  const mine = data.assignee?.id === viewerId;
  const desks = viewerRole === "operator" || viewerRole === "supervisor";
  return (
    <section aria-labelledby="owner-h" className="rounded-lg border border-slate-200 bg-white p-4">
      <h2 id="owner-h" className="font-semibold">
        Ownership
      </h2>
      <p id="run-assignee" className="mt-1 text-sm" data-testid="assignee">
        {data.assignee ? (
          <>
            Assigned to <span className="font-medium">{mine ? `you (${data.assignee.name})` : data.assignee.name}</span>
          </>
        ) : (
          "Unassigned"
        )}
      </p>
      {waiting && desks && (
        <div className="mt-2 flex flex-wrap gap-2">
          {!mine && (!data.assignee || viewerRole === "supervisor") && (
            <button type="button" className={primary} disabled={take.isPending} onClick={() => take.mutate()} aria-keyshortcuts="t">
              Take this run
            </button>
          )}
          <button type="button" className={btn} onClick={() => setDialog(dialog === "request" ? "none" : "request")} aria-expanded={dialog === "request"} aria-keyshortcuts="h">
            Request approval
          </button>
          <button type="button" className={btn} onClick={() => (dialog === "suggest" ? setDialog("none") : openSuggest())} aria-expanded={dialog === "suggest"} aria-keyshortcuts="Shift+S">
            Suggest a step
          </button>
        </div>
      )}
      {waiting && viewerRole === "supervisor" && (
        <div className="mt-2">
          <label htmlFor="reassign" className="block text-sm font-medium">
            Reassign to
          </label>
          <select
            id="reassign"
            className={input}
            value={data.assignee?.id ?? ""}
            disabled={assign.isPending}
            onChange={(e) => assign.mutate(e.target.value || null)}
          >
            <option value="">Nobody (unassigned)</option>
            {data.people.map((p) => (
              <option key={p.id} value={p.id}>
                {p.name} ({p.role})
              </option>
            ))}
          </select>
        </div>
      )}
      {dialog === "request" && <RequestApprovalForm runId={runId} data={data} viewerId={viewerId} onDone={() => (setDialog("none"), refresh())} />}
      {dialog === "suggest" && (
        <SuggestStepForm runId={runId} planVersion={data.planVersion} grants={grants} desk={desk} ticketId={ticketId} ticketAccountId={ticketAccountId} imported={imported} catalogVersion={catalogVersion} onDone={() => (setDialog("none"), refresh(), focusHeading("owner-h"))} />
      )}
      {data.requests.length > 0 && (
        <>
          <h3 className="mt-3 text-sm font-medium">Approval requested</h3>
          <ul className="mt-1 space-y-1 text-sm">
            {data.requests.map((r) => (
              <li key={r.id} className="border-t border-slate-100 pt-1">
                {r.byName} asked {r.toName ?? `any ${r.toRole}`}: “{r.note}”
              </li>
            ))}
          </ul>
        </>
      )}
      {data.suggestions.length > 0 && <Suggestions runId={runId} data={data} canDecide={waiting && desks} onChanged={refresh} ticketId={ticketId} />}
    </section>
  );
}
