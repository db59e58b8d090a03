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
export function Suggestions({ runId, data, canDecide, onChanged, ticketId }: { runId: string; data: RunOwnership; canDecide: boolean; onChanged: () => void; ticketId?: string }) {
  const [declining, setDeclining] = useState<string | null>(null);
  const [reason, setReason] = useState("");
  const [accepting, setAccepting] = useState<string | null>(null);
  return (
    <>
      <h3 className="mt-3 text-sm font-medium">Suggested steps</h3>
      <SuggestionList runId={runId} data={data} canDecide={canDecide} onChanged={onChanged} ticketId={ticketId} declining={declining} setDeclining={setDeclining} reason={reason} setReason={setReason} accepting={accepting} setAccepting={setAccepting} />
    </>
  );
}

/** A suggested step's title as the acceptor's form starts it: what it does and its main target ("Issue refund on in_74119"). */
function suggestedTitle(step: { tool: string; args: Record<string, unknown> }): string {
  const label = step.tool.replace(/_/g, " ").replace(/^./, (c) => c.toUpperCase());
  const target = Object.entries(step.args).find(([k, v]) => /Id$/.test(k) && k !== "ticketId" && typeof v === "string" && v)?.[1];
  return target ? `${label} on ${String(target)}` : label;
}

type ReasonText = "title" | "risk" | "stopCondition" | "rationale";
const REASON_LABEL: Record<ReasonText, string> = { title: "Title", risk: "Risk", stopCondition: "Stop condition", rationale: "Rationale (optional unless the gate policy asks)" };

/**
 * "Accept as my edit" for one suggestion: the step becomes the acceptor's own, so it needs the
 * reasons the gate policy requires of a step a person adds. The form starts with a title from what
 * the step does and the task's ticket as evidence; the acceptor types the risk and the stop
 * condition. A refusal marks its fields (`steps.N.<field>`) and keeps everything typed.
 */
function AcceptForm({ runId, suggestion, ticketId, onDone, onCancel }: { runId: string; suggestion: RunOwnership["suggestions"][number]; ticketId?: string; onDone: () => void; onCancel: () => void }) {
  const [values, setValues] = useState<Record<ReasonText, string>>({ title: suggestedTitle(suggestion.step), risk: "", stopCondition: "", rationale: "" });
  const [evidence, setEvidence] = useState<{ recordType: string; recordId: string }[]>(ticketId ? [{ recordType: "ticket", recordId: ticketId }] : []);
  const [errors, setErrors] = useState<Partial<Record<ReasonText | "evidence", string>>>({});
  const accept = useMutation({
    mutationFn: () =>
      apiFetch<{ edit: { planVersion: { version: number } } }>(`/api/runs/${runId}/suggestions/${suggestion.id}/accept`, {
        method: "POST",
        body: { reasons: { ...Object.fromEntries(Object.entries(values).filter(([, v]) => v.trim())), ...(evidence.length ? { evidence } : {}) } },
      }),
    onSuccess: (r) => (toast(`Accepted as your edit: plan version ${r.edit.planVersion.version}.`), onDone()),
    onError: (e) => {
      const found: Partial<Record<ReasonText | "evidence", string>> = {};
      const issues = e instanceof ApiError ? ((e.details.issues as { path?: string; message: string; severity: string; code: string }[] | undefined) ?? []) : [];
      for (const i of issues) {
        const m = i.severity === "error" ? i.path?.match(/^steps\.\d+\.(title|risk|stopCondition|rationale|evidence)/) : null;
        if (m) found[m[1] as ReasonText] ??= i.message;
      }
      setErrors(found);
      if (Object.keys(found).length === 0) toast(e instanceof ApiError ? e.message : "The suggestion was not accepted.", "error");
    },
  });
  const idOf = (k: string) => `accept-${suggestion.id}-${k}`;
  return (
    <form
      aria-label="Accept as my edit"
      className="mt-2 space-y-2 rounded-md border border-slate-200 bg-slate-50 p-3"
      noValidate
      onSubmit={(e) => {
        e.preventDefault();
        accept.mutate();
      }}
    >
      <p className="text-sm">The step becomes yours: say why. The gate policy may require a title, evidence, a risk and a stop condition of it.</p>
      {Object.keys(errors).length > 0 && (
        <p role="alert" className="text-sm text-red-800">
          Not accepted: fill the marked fields; what you typed is kept.
        </p>
      )}
      {(["title", "risk", "stopCondition", "rationale"] as const).map((k) => (
        <div key={k}>
          <label htmlFor={idOf(k)} className="block text-xs font-medium">
            {REASON_LABEL[k]}
          </label>
          <input
            id={idOf(k)}
            className={input}
            value={values[k]}
            maxLength={k === "title" ? 200 : 2000}
            aria-invalid={errors[k] ? true : undefined}
            aria-describedby={errors[k] ? `${idOf(k)}-error` : undefined}
            onChange={(e) => {
              setValues({ ...values, [k]: e.target.value });
              if (errors[k]) setErrors({ ...errors, [k]: undefined });
            }}
          />
          {errors[k] && (
            <p id={`${idOf(k)}-error`} className="mt-0.5 text-xs text-red-800">
              {errors[k]}
            </p>
          )}
        </div>
      ))}
      <div>
        <p className="text-xs font-medium">Evidence</p>
        {evidence.length ? (
          <ul className="mt-0.5 flex flex-wrap gap-2 text-sm">
            {evidence.map((ev, n) => (
              <li key={n} className="rounded border border-slate-300 bg-white px-2">
                {ev.recordType} <code>{ev.recordId}</code>{" "}
                <button type="button" className="text-xs text-red-800" aria-label={`Remove evidence ${ev.recordType} ${ev.recordId}`} onClick={() => setEvidence(evidence.filter((_, i) => i !== n))}>
                  ✕
                </button>
              </li>
            ))}
          </ul>
        ) : (
          <p className="text-xs text-slate-600">No records named.</p>
        )}
        {errors.evidence && <p className="mt-0.5 text-xs text-red-800">{errors.evidence}</p>}
      </div>
      <div className="flex gap-2">
        <button type="submit" className={primary} disabled={accept.isPending}>
          Accept with these reasons
        </button>
        <button type="button" className={btn} onClick={onCancel}>
          Cancel
        </button>
      </div>
    </form>
  );
}

function SuggestionList({
  runId, data, canDecide, onChanged, ticketId, declining, setDeclining, reason, setReason, accepting, setAccepting,
}: {
  runId: string; data: RunOwnership; canDecide: boolean; onChanged: () => void; ticketId?: string;
  declining: string | null; setDeclining: (v: string | null) => void; reason: string; setReason: (v: string) => void; accepting: string | null; setAccepting: (v: string | null) => void;
}) {
  const decline = useMutation({
    mutationFn: (id: string) => apiFetch(`/api/runs/${runId}/suggestions/${id}/decline`, { method: "POST", body: { reason } }),
    onSuccess: () => (toast("Suggestion declined."), setDeclining(null), setReason(""), onChanged()),
    onError: (e) => toast(e instanceof ApiError ? e.message : "The suggestion was not declined.", "error"),
  });
  return (
    <>
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
                  <button type="button" className={primary} disabled={s.acceptBlocked !== null} aria-expanded={accepting === s.id} aria-describedby={s.acceptBlocked ? `accept-why-${s.id}` : undefined} onClick={() => setAccepting(accepting === s.id ? null : s.id)}>
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
            {accepting === s.id && <AcceptForm runId={runId} suggestion={s} ticketId={ticketId} onCancel={() => setAccepting(null)} onDone={() => (setAccepting(null), onChanged())} />}
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
