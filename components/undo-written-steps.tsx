"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useEffect, useRef, useState } from "react";
import { ApiError, apiFetch } from "@/lib/client/api";
import type { RunDetails, RunStepView, RunView } from "@/lib/api/schemas";
import type { UndoPreview } from "@/lib/server/gateway/undo-written-steps";
import { statusLabel } from "@/lib/text/format";
import { trapTab } from "./keyboard-shortcuts";

/** One compensating call as a line of code: `cancel_collection(shipmentId: "sh_7000", date: "2027-01-04")`, the values as JSON. */
function CallLine({ tool, args }: { tool: string; args: Record<string, unknown> }) {
  return (
    <code className="block rounded bg-slate-100 px-2 py-1 font-mono text-xs [overflow-wrap:anywhere]">
      {tool}(
      {Object.entries(args).map(([k, v], i) => (
        <span key={k}>
          {i > 0 && ", "}
          {k}: {JSON.stringify(v)}
        </span>
      ))}
      )
    </code>
  );
}

/** Where one step of the undo run stands, in words, from its execution and approval (the API's run). */
function stepOutcome(step: RunStepView, runStatus: RunView["status"]): { text: string; tone: "done" | "bad" | "wait" } {
  const e = step.execution;
  if (e?.status === "succeeded") return { text: "Undone: the compensating call succeeded", tone: "done" };
  if (e?.status === "failed") return { text: `Failed: nothing was undone${e.detail ? ` (${e.detail})` : ""}`, tone: "bad" };
  if (e?.status === "unknown") return { text: `Outcome unknown: waits for a supervisor on Reconciliation${e.detail ? ` (${e.detail})` : ""}`, tone: "bad" };
  if (e) return { text: "Being executed by Plandesk", tone: "wait" };
  if (runStatus === "pending_review" || runStatus === "needs_decision") return { text: "Waits for a person's approval of the undo plan", tone: "wait" };
  if (runStatus === "approved" || runStatus === "executing") return { text: step.approval?.state === "active" ? "Approved: Plandesk makes the call next" : "Waits for approval", tone: "wait" };
  return { text: `Not made: the undo plan is ${statusLabel(runStatus).toLowerCase()}`, tone: "bad" };
}

/** The undo run's steps and where each stands, refreshed while any still waits. */
function UndoProgress({ undoRunId }: { undoRunId: string }) {
  const { data, error } = useQuery({
    queryKey: ["run", undoRunId],
    queryFn: () => apiFetch<Pick<RunDetails, "run">>(`/api/runs/${undoRunId}`),
    refetchInterval: (q) => (q.state.data && q.state.data.run.steps.every((s) => s.execution && s.execution.status !== "claimed") ? false : 3_000),
  });
  if (error) {
    return (
      <p role="alert" className="mt-2 text-sm text-red-800">
        Could not read the undo plan: {error instanceof ApiError ? error.message : "the server did not answer"}.
      </p>
    );
  }
  if (!data) return <p className="mt-2 text-sm text-slate-600">Reading the undo plan…</p>;
  const { run } = data;
  return (
    <div className="mt-2 text-sm" data-testid="undo-progress">
      <p>
        Undo plan{" "}
        <a href={`/runs/${run.id}`} className="font-mono text-blue-700 underline">
          {run.id}
        </a>{" "}
        · <span data-testid="undo-run-status">{statusLabel(run.status)}</span>
        {run.status === "pending_review" && " — review and approve it on its page; nothing is undone before that."}
      </p>
      <ol className="mt-2 space-y-2">
        {run.steps.map((s) => {
          const o = stepOutcome(s, run.status);
          return (
            <li key={s.id} className="rounded border border-slate-200 bg-white p-2" data-testid="undo-step">
              <p className="font-medium">
                Step {s.position} · {s.title ?? s.tool}
              </p>
              <CallLine tool={s.tool} args={s.args} />
              <p className={`mt-1 ${o.tone === "done" ? "text-emerald-800" : o.tone === "bad" ? "text-red-800" : "text-slate-700"}`} data-testid="undo-step-outcome">
                {o.text}
              </p>
            </li>
          );
        })}
      </ol>
    </div>
  );
}

/**
 * "Undo the written steps" after a partial stop of a gateway run (docs/design.md "Staged runs";
 * `POST /api/runs/{runId}/undo`): the compensating calls an undo would propose, a button for whoever
 * the endpoint lets ask (`canAsk`; everyone else reads `whyNot`), a confirm step listing every call
 * with its arguments, then the proposed undo run and each of its steps' outcome. The undo is a plan
 * for the run's agent: nothing is written until a person approves it.
 */
export function UndoWrittenSteps({ runId, offer, canAsk, whyNot }: { runId: string; offer: UndoPreview; canAsk: boolean; whyNot: string | null }) {
  const qc = useQueryClient();
  const router = useRouter();
  const [confirming, setConfirming] = useState(false);
  const [proposed, setProposed] = useState<string | null>(offer.kind === "offer" ? offer.proposedRunId : null);
  const dialogRef = useRef<HTMLDialogElement>(null);
  const openerRef = useRef<HTMLButtonElement>(null);
  const cancelRef = useRef<HTMLButtonElement>(null);
  const undo = useMutation({
    mutationFn: () => apiFetch<{ run: RunView }>(`/api/runs/${runId}/undo`, { method: "POST" }),
    onSuccess: ({ run }) => {
      setProposed(run.id);
      qc.invalidateQueries({ queryKey: ["run", run.id] });
      qc.invalidateQueries({ queryKey: ["queue"] });
      router.refresh();
    },
  });

  useEffect(() => {
    if (confirming && dialogRef.current && !dialogRef.current.open) {
      dialogRef.current.showModal();
      cancelRef.current?.focus(); // the safe choice has the focus
    }
  }, [confirming]);

  if (offer.kind === "unavailable") {
    return (
      <section aria-labelledby="undo-h" className="mt-3 rounded-md border border-slate-300 bg-slate-50 px-3 py-2 text-sm" data-testid="undo-written-steps">
        <h2 id="undo-h" className="font-semibold">
          The written steps stay
        </h2>
        <p className="mt-1">{offer.message}</p>
      </section>
    );
  }

  const n = offer.calls.length;
  const error = undo.error;
  return (
    <section aria-labelledby="undo-h" className="mt-3 rounded-md border-2 border-amber-400 bg-amber-50 px-3 py-2 text-sm text-amber-950" data-testid="undo-written-steps">
      <h2 id="undo-h" className="font-semibold">
        Undo the written steps
      </h2>
      <p className="mt-1">
        This run stopped part-way after writing {n === 1 ? "one step" : `${n} steps`}, and {n === 1 ? "its tool declares" : "their tools declare"} a compensating tool.
        Undoing proposes a new plan for the agent — one compensating call per written step, last written first — that is reviewed and approved like any plan; nothing
        is undone before a person approves it.
      </p>
      {proposed ? (
        <UndoProgress undoRunId={proposed} />
      ) : (
        <>
          <ol className="mt-2 space-y-1" aria-label="Compensating calls">
            {offer.calls.map((c) => (
              <li key={c.undoes.stepId}>
                <span>
                  Undoes step {c.undoes.position ?? "?"} · {c.undoes.title}:
                </span>
                <CallLine tool={c.tool} args={c.args} />
              </li>
            ))}
          </ol>
          <button
            ref={openerRef}
            type="button"
            disabled={!canAsk || undo.isPending}
            aria-describedby={!canAsk ? "undo-why-not" : undefined}
            onClick={() => {
              undo.reset();
              setConfirming(true);
            }}
            className="mt-3 rounded-md bg-amber-700 px-3 py-2 text-sm font-medium text-white hover:bg-amber-800 disabled:cursor-not-allowed disabled:bg-slate-400"
          >
            Undo the written steps…
          </button>
          {!canAsk && whyNot && (
            <p id="undo-why-not" className="mt-1 text-xs text-slate-700" data-testid="undo-why-not">
              {whyNot}
            </p>
          )}
          {undo.isPending && (
            <p role="status" className="mt-2">
              Proposing the undo plan…
            </p>
          )}
          {error && (
            <div role="alert" className="mt-2 rounded border border-red-300 bg-red-50 px-2 py-1 text-red-900" data-testid="undo-error">
              <p className="font-medium">The undo was not proposed; nothing was written.</p>
              <p>
                {error instanceof ApiError ? error.message : "Something went wrong; try again."}
                {error instanceof ApiError && error.code !== "network" && (
                  <>
                    {" "}
                    (<code>{typeof error.details.reason === "string" ? `${error.code}: ${error.details.reason}` : error.code}</code>)
                  </>
                )}
              </p>
            </div>
          )}
        </>
      )}
      {confirming && (
        <dialog
          ref={dialogRef}
          aria-labelledby="confirm-undo-h"
          onKeyDown={trapTab}
          onClose={() => {
            setConfirming(false);
            openerRef.current?.focus();
          }}
          className="m-auto w-[min(36rem,calc(100vw-2rem))] rounded-lg border border-slate-200 bg-white p-5 text-slate-900 shadow-xl backdrop:bg-black/60"
        >
          <form
            method="dialog"
            onSubmit={(e) => {
              e.preventDefault();
              dialogRef.current?.close();
              undo.mutate();
            }}
          >
            <h2 id="confirm-undo-h" className="text-lg font-semibold">
              Propose undoing {n === 1 ? "the written step" : `the ${n} written steps`}?
            </h2>
            <p className="mt-2 text-sm">These compensating calls will be proposed, in this order, each with exactly these arguments:</p>
            <ol className="mt-2 list-decimal space-y-2 pl-5 text-sm" data-testid="confirm-undo-calls">
              {offer.calls.map((c) => (
                <li key={c.undoes.stepId}>
                  <CallLine tool={c.tool} args={c.args} />
                  <span className="text-xs text-slate-600">
                    undoes step {c.undoes.position ?? "?"} · {c.undoes.title} ({c.undoes.tool})
                  </span>
                </li>
              ))}
            </ol>
            <p className="mt-3 text-sm">They form a new plan for the run&apos;s agent; Plandesk makes the calls only after a person approves that plan.</p>
            <div className="mt-3 flex flex-wrap gap-2">
              <button type="submit" className="rounded-md bg-amber-700 px-3 py-2 text-sm font-medium text-white hover:bg-amber-800">
                Propose the undo plan
              </button>
              {/* opens focused on Cancel: one Enter never proposes anything */}
              <button ref={cancelRef} type="button" onClick={() => dialogRef.current?.close()} className="rounded-md border border-slate-300 px-3 py-2 text-sm">
                Cancel
              </button>
            </div>
          </form>
        </dialog>
      )}
    </section>
  );
}
