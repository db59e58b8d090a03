"use client";

import { useMutation } from "@tanstack/react-query";
import { useCallback, useState } from "react";
import { ApiError, apiFetch } from "@/lib/client/api";
import type { RunOwnership } from "@/lib/api/endpoints/ownership-api";
import { formatMoney, type Money } from "@/lib/money/format-money";
import { btn, input, primary } from "./ownership-styles";
import { toast } from "./toaster";
import { useOpenNext } from "./use-open-next";

/*
 * The ownership panel's forms that are not on screen when a run opens (components/ownership-panel.tsx
 * loads this module on demand; docs/design.md "Page weight").
 */

/** "Request approval": a person or a role, an optional step, and a note. */
export function RequestApprovalForm({ runId, data, viewerId, onDone }: { runId: string; data: RunOwnership; viewerId: string; onDone: () => void }) {
  const suggested = data.deciders.flatMap((d) => d.people).find((p) => p.id !== viewerId)?.id ?? "";
  const [to, setTo] = useState(suggested);
  const [stepId, setStepId] = useState("");
  const [note, setNote] = useState("");
  const openNext = useOpenNext(runId, "owner-h");
  const send = useMutation({
    mutationFn: (_vars: { thenNext: boolean }) =>
      apiFetch(`/api/runs/${runId}/approval-requests`, {
        method: "POST",
        body: { ...(to.startsWith("role:") ? { toRole: to.slice(5) } : { toUserId: to }), stepId: stepId || null, note },
      }),
    onSuccess: async (_data, vars) => {
      toast("Approval requested.");
      onDone();
      if (vars.thenNext) await openNext();
    },
  });
  const ready = !!to && !!note.trim() && !send.isPending;
  // Opened (by h or the button): the suggested person is chosen, so the focus goes to the note;
  // with nobody to suggest, to the choice of person.
  const focusFirst = useCallback((form: HTMLFormElement | null) => {
    form?.querySelector<HTMLElement>(suggested ? "#req-note" : "#req-to")?.focus();
  }, [suggested]);
  return (
    <form
      ref={focusFirst}
      aria-label="Request approval"
      className="mt-3 space-y-2 rounded-md border border-slate-200 bg-slate-50 p-3"
      onSubmit={(e) => {
        e.preventDefault();
        const submitter = (e.nativeEvent as SubmitEvent).submitter as HTMLButtonElement | null;
        if (ready) send.mutate({ thenNext: submitter?.value === "next" });
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
        <textarea
          id="req-note"
          className={input}
          rows={2}
          maxLength={1000}
          value={note}
          onChange={(e) => setNote(e.target.value)}
          onKeyDown={(e) => {
            // Ctrl+Enter (⌘+Enter): send, then open the next waiting run
            if (e.key === "Enter" && (e.ctrlKey || e.metaKey) && !e.nativeEvent.isComposing) {
              e.preventDefault();
              if (ready) send.mutate({ thenNext: true });
            }
          }}
          aria-describedby="req-keys"
          required
        />
        <p id="req-keys" className="mt-1 text-xs text-slate-600">
          <kbd className="font-mono">Ctrl+Enter</kbd> sends and opens the next waiting run.
        </p>
      </div>
      {send.error && (
        <p role="alert" className="text-sm text-red-800">
          {(send.error as Error).message}
        </p>
      )}
      <div className="flex flex-wrap gap-2">
        <button type="submit" value="this" className={primary} disabled={!ready}>
          Send request
        </button>
        <button type="submit" value="next" className={btn} disabled={!ready}>
          Send &amp; next
        </button>
      </div>
    </form>
  );
}

/** The run's suggestions with Accept / Decline for open ones (Accept disabled, with the reason, when the viewer may not author the step; absent when the plan moved on). */
export function Suggestions({ runId, data, canDecide, onChanged }: { runId: string; data: RunOwnership; canDecide: boolean; onChanged: () => void }) {
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
              {s.state === "open"
                ? s.stale
                  ? `Out of date: made on plan version ${s.planVersion}, the plan is now at version ${data.planVersion}`
                  : "Open"
                : s.state === "accepted"
                  ? `Accepted by ${s.decidedByName} (plan version ${s.acceptedVersion})`
                  : `Declined by ${s.decidedByName}: ${s.reason}`}
            </p>
            {s.state === "open" && canDecide && (
              <div className="mt-1 flex flex-wrap items-center gap-2">
                {!s.stale && (
                  <button type="button" className={primary} disabled={accept.isPending || s.acceptBlocked !== null} aria-describedby={s.acceptBlocked ? `accept-why-${s.id}` : undefined} onClick={() => accept.mutate(s.id)}>
                    Accept as my edit
                  </button>
                )}
                <button type="button" className={btn} onClick={() => setDeclining(declining === s.id ? null : s.id)}>
                  Decline
                </button>
                {!s.stale && s.acceptBlocked && (
                  <span id={`accept-why-${s.id}`} className="text-xs text-slate-600">
                    You cannot accept it: {s.acceptBlocked}.
                  </span>
                )}
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
