"use client";

import { zodResolver } from "@hookform/resolvers/zod";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useForm } from "react-hook-form";
import { useState } from "react";
import { ApiError, apiFetch } from "@/lib/client/api";
import { reconcileBodySchema, type ReconcileBody } from "@/lib/api/reconcile-body";
import type { RunStepView } from "@/lib/api/schemas";
import { getToolMeta } from "@/lib/tools/builtin-meta";
import { toast } from "./toaster";

const reconcileFormSchema = reconcileBodySchema;
type ReconcileForm = ReconcileBody;

function ReconcileStep({ runId, step }: { runId: string; step: RunStepView }) {
  const qc = useQueryClient();
  const form = useForm<ReconcileForm>({ resolver: zodResolver(reconcileFormSchema) });
  const save = useMutation({
    mutationFn: (v: ReconcileForm) => apiFetch(`/api/runs/${runId}/steps/${step.id}/reconcile`, { method: "POST", body: v }),
    onSuccess: () => {
      toast("Recorded. The run continues from what you found.");
      qc.invalidateQueries({ queryKey: ["run", runId] });
    },
    onError: (e) => toast(e instanceof ApiError ? e.message : "Could not record the resolution.", "error"),
  });
  const err = form.formState.errors;
  const id = `rec-${step.id}`;
  return (
    <form onSubmit={form.handleSubmit((v) => save.mutate(v))} noValidate className="space-y-2 border-t border-slate-100 pt-2 text-sm">
      <p className="font-medium">
        Step {step.position} · {getToolMeta(step.tool)?.label ?? step.tool}: outcome {step.execution?.status === "unknown" ? "unknown" : "never reported"}
      </p>
      {step.execution?.detail && <p className="text-xs text-slate-600">Executor said: {step.execution.detail}</p>}
      <fieldset aria-describedby={err.resolution ? `${id}-res-error` : undefined}>
        <legend className="text-xs text-slate-700">What happened?</legend>
        <label className="mr-4">
          <input type="radio" value="succeeded" {...form.register("resolution")} /> It was written
        </label>
        <label>
          <input type="radio" value="failed" {...form.register("resolution")} /> It was not written
        </label>
      </fieldset>
      {err.resolution && (
        <p id={`${id}-res-error`} className="text-red-700">
          {err.resolution.message}
        </p>
      )}
      <label htmlFor={`${id}-note`} className="block text-xs text-slate-700">
        How you found out
      </label>
      <textarea
        id={`${id}-note`}
        rows={2}
        {...form.register("note")}
        aria-invalid={!!err.note}
        aria-describedby={err.note ? `${id}-note-error` : undefined}
        className="w-full rounded-md border border-slate-300 px-2 py-1"
      />
      {err.note && (
        <p id={`${id}-note-error`} className="text-red-700">
          {err.note.message}
        </p>
      )}
      <button type="submit" disabled={save.isPending} className="rounded-md bg-slate-800 px-3 py-1 text-white disabled:opacity-60">
        Record resolution
      </button>
    </form>
  );
}

/** A claim never reported for this long may be reconciled (STALE_CLAIM_SECONDS of lib/server/claims/execution-view.ts). */
const STALE_CLAIM_MS = 15 * 60 * 1000;

/**
 * Steps whose outcome is unknown wait for a person (docs/design.md §9: never replayed automatically).
 * Supervisors record what happened; others see who must act.
 */
export function ReconcilePanel({ runId, steps, canReconcile }: { runId: string; steps: RunStepView[]; canReconcile: boolean }) {
  const [renderedAt] = useState(() => Date.now());
  const staleBefore = renderedAt - STALE_CLAIM_MS;
  const open = steps.filter(
    (s) =>
      s.execution &&
      !s.execution.resolution &&
      (s.execution.status === "unknown" || (s.execution.status === "claimed" && new Date(s.execution.claimedAt).getTime() <= staleBefore)),
  );
  if (open.length === 0) return null;
  return (
    <section aria-labelledby="reconcile-h" className="rounded-lg border-2 border-amber-400 bg-amber-50 p-4">
      <h2 id="reconcile-h" className="font-semibold">
        Needs reconciliation
      </h2>
      <p className="text-sm">The executor could not tell whether these writes happened. Nothing is retried automatically.</p>
      {canReconcile ? (
        open.map((s) => <ReconcileStep key={s.id} runId={runId} step={s} />)
      ) : (
        <p className="mt-2 text-sm text-slate-700">A supervisor must record what happened for step {open.map((s) => s.position).join(", ")}.</p>
      )}
    </section>
  );
}
