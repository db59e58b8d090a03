"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import dynamic from "next/dynamic";
import { useState } from "react";
import type { AccountSnapshot } from "@/lib/desk/snapshot";
import { ApiError, apiFetch } from "@/lib/client/api";
import type { Grant } from "@/lib/people/grants";
import { formatMoney, type Money } from "@/lib/money/format-money";
import type { RunOwnership } from "@/lib/api/endpoints/ownership-api";
import type { ImportedToolSpec } from "@/lib/tools/json-schema-tool";
import { toast } from "./toaster";

/** "Suggest a step" with its form and the tools' schemas, loaded when someone opens it (docs/design.md "Page weight"). */
const SuggestStepForm = dynamic(() => import("./suggest-step-form").then((m) => m.SuggestStepForm), {
  loading: () => <p className="mt-3 text-sm text-slate-600">Loading the form…</p>,
});

/** The run's ownership facts (`GET /api/runs/{runId}/ownership`), refreshed every 5 s; shared by the panel and "Who acts next". */
export function useRunOwnership(runId: string) {
  return useQuery({ queryKey: ["ownership", runId], queryFn: () => apiFetch<RunOwnership>(`/api/runs/${runId}/ownership`), refetchInterval: 5_000 });
}

const btn = "rounded-md border border-slate-300 bg-white px-3 py-1.5 text-sm font-medium hover:bg-slate-50 disabled:opacity-60";
const primary = "rounded-md bg-blue-700 px-3 py-1.5 text-sm font-medium text-white hover:bg-blue-800 disabled:opacity-60";
const input = "mt-1 w-full rounded-md border border-slate-300 bg-white px-2.5 py-1.5 text-sm";

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
  const fail = (e: unknown) => toast(e instanceof ApiError ? e.message : "Something went wrong; nothing was changed.", "error");
  const take = useMutation({ mutationFn: () => apiFetch(`/api/runs/${runId}/take`, { method: "POST" }), onSuccess: () => (toast("You have taken this run."), refresh()), onError: fail });
  const assign = useMutation({
    mutationFn: (assigneeId: string | null) => apiFetch(`/api/runs/${runId}/assignee`, { method: "PUT", body: { assigneeId } }),
    onSuccess: () => (toast("Assignment saved."), refresh()),
    onError: fail,
  });
  if (error) return <p role="alert" className="text-sm text-red-800">{(error as Error).message}</p>;
  if (!data) return null;
  const waiting = data.status === "pending_review" || data.status === "approved" || data.status === "needs_decision";
  const mine = data.assignee?.id === viewerId;
  const desks = viewerRole === "operator" || viewerRole === "supervisor";
  return (
    <section aria-labelledby="owner-h" className="rounded-lg border border-slate-200 bg-white p-4">
      <h2 id="owner-h" className="font-semibold">
        Ownership
      </h2>
      <p className="mt-1 text-sm" data-testid="assignee">
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
            <button type="button" className={primary} disabled={take.isPending} onClick={() => take.mutate()}>
              Take this run
            </button>
          )}
          <button type="button" className={btn} onClick={() => setDialog(dialog === "request" ? "none" : "request")} aria-expanded={dialog === "request"}>
            Request approval
          </button>
          <button type="button" className={btn} onClick={() => setDialog(dialog === "suggest" ? "none" : "suggest")} aria-expanded={dialog === "suggest"}>
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
        <SuggestStepForm runId={runId} planVersion={data.planVersion} grants={grants} desk={desk} ticketId={ticketId} ticketAccountId={ticketAccountId} imported={imported} catalogVersion={catalogVersion} onDone={() => (setDialog("none"), refresh())} />
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
      {data.suggestions.length > 0 && <Suggestions runId={runId} data={data} canDecide={waiting && desks} onChanged={refresh} />}
    </section>
  );
}

/** "Request approval": a person or a role, an optional step, and a note. */
function RequestApprovalForm({ runId, data, viewerId, onDone }: { runId: string; data: RunOwnership; viewerId: string; onDone: () => void }) {
  const suggested = data.deciders.flatMap((d) => d.people).find((p) => p.id !== viewerId)?.id ?? "";
  const [to, setTo] = useState(suggested);
  const [stepId, setStepId] = useState("");
  const [note, setNote] = useState("");
  const send = useMutation({
    mutationFn: () =>
      apiFetch(`/api/runs/${runId}/approval-requests`, {
        method: "POST",
        body: { ...(to.startsWith("role:") ? { toRole: to.slice(5) } : { toUserId: to }), stepId: stepId || null, note },
      }),
    onSuccess: () => (toast("Approval requested."), onDone()),
  });
  return (
    <form
      aria-label="Request approval"
      className="mt-3 space-y-2 rounded-md border border-slate-200 bg-slate-50 p-3"
      onSubmit={(e) => {
        e.preventDefault();
        send.mutate();
      }}
    >
      <div>
        <label htmlFor="req-to" className="block text-sm font-medium">
          Ask
        </label>
        <select id="req-to" className={input} value={to} onChange={(e) => setTo(e.target.value)} required>
          <option value="">Choose a person or a role…</option>
          {data.people
            .filter((p) => p.id !== viewerId)
            .map((p) => (
              <option key={p.id} value={p.id}>
                {p.name} ({p.role})
              </option>
            ))}
          <option value="role:operator">Any operator of this desk</option>
          <option value="role:supervisor">Any supervisor</option>
        </select>
      </div>
      <div>
        <label htmlFor="req-step" className="block text-sm font-medium">
          For
        </label>
        <select id="req-step" className={input} value={stepId} onChange={(e) => setStepId(e.target.value)}>
          <option value="">The whole run</option>
          {data.deciders.map((d) => (
            <option key={d.stepId} value={d.stepId}>
              Step {d.position} ({d.tool})
            </option>
          ))}
        </select>
      </div>
      <div>
        <label htmlFor="req-note" className="block text-sm font-medium">
          Note
        </label>
        <textarea id="req-note" className={input} rows={2} maxLength={1000} value={note} onChange={(e) => setNote(e.target.value)} required />
      </div>
      {send.error && (
        <p role="alert" className="text-sm text-red-800">
          {(send.error as Error).message}
        </p>
      )}
      <button type="submit" className={primary} disabled={send.isPending || !to || !note.trim()}>
        Send request
      </button>
    </form>
  );
}

/** The run's suggestions with Accept / Decline for open ones. */
function Suggestions({ runId, data, canDecide, onChanged }: { runId: string; data: RunOwnership; canDecide: boolean; onChanged: () => void }) {
  const [declining, setDeclining] = useState<string | null>(null);
  const [reason, setReason] = useState("");
  const accept = useMutation({
    mutationFn: (id: string) => apiFetch<{ edit: { planVersion: { version: number } } }>(`/api/runs/${runId}/suggestions/${id}/accept`, { method: "POST" }),
    onSuccess: (r) => (toast(`Accepted as your edit: plan version ${r.edit.planVersion.version}.`), onChanged()),
    onError: (e) => toast(e instanceof ApiError ? e.message : "The suggestion was not accepted.", "error"),
  });
  const decline = useMutation({
    mutationFn: (id: string) => apiFetch(`/api/runs/${runId}/suggestions/${id}/decline`, { method: "POST", body: { reason } }),
    onSuccess: () => (toast("Suggestion declined."), setDeclining(null), setReason(""), onChanged()),
    onError: (e) => toast(e instanceof ApiError ? e.message : "The suggestion was not declined.", "error"),
  });
  return (
    <>
      <h3 className="mt-3 text-sm font-medium">Suggested steps</h3>
      <ul className="mt-1 space-y-2 text-sm" aria-label="Suggested steps">
        {data.suggestions.map((s) => (
          <li key={s.id} className="border-t border-slate-100 pt-1" data-testid="suggestion">
            <p>
              {s.byName} suggests <code>{s.step.tool}</code> on version {s.planVersion}
              {typeof (s.step.args as { amount?: { minor: number } }).amount?.minor === "number" && <> ({formatAmount(s.step.args)})</>}
              {s.note && <>: “{s.note}”</>}
            </p>
            <p className="text-xs text-slate-600">
              {s.state === "open" ? "Open" : s.state === "accepted" ? `Accepted by ${s.decidedByName} (plan version ${s.acceptedVersion})` : `Declined by ${s.decidedByName}: ${s.reason}`}
            </p>
            {s.state === "open" && canDecide && (
              <div className="mt-1 flex flex-wrap gap-2">
                <button type="button" className={primary} disabled={accept.isPending} onClick={() => accept.mutate(s.id)}>
                  Accept as my edit
                </button>
                <button type="button" className={btn} onClick={() => setDeclining(declining === s.id ? null : s.id)}>
                  Decline
                </button>
              </div>
            )}
            {declining === s.id && (
              <form
                className="mt-1 flex flex-wrap items-end gap-2"
                onSubmit={(e) => {
                  e.preventDefault();
                  decline.mutate(s.id);
                }}
              >
                <div className="grow">
                  <label htmlFor={`decline-${s.id}`} className="block text-xs font-medium">
                    Reason
                  </label>
                  <input id={`decline-${s.id}`} className={input} value={reason} maxLength={1000} onChange={(e) => setReason(e.target.value)} required />
                </div>
                <button type="submit" className={btn} disabled={!reason.trim() || decline.isPending}>
                  Decline suggestion
                </button>
              </form>
            )}
          </li>
        ))}
      </ul>
    </>
  );
}

function formatAmount(args: Record<string, unknown>): string {
  return formatMoney(args.amount as Money);
}
