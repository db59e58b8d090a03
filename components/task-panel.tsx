"use client";

import { zodResolver } from "@hookform/resolvers/zod";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useState } from "react";
import { useForm } from "react-hook-form";
import { ApiError, apiFetch } from "@/lib/client/api";
import { Instant } from "./instant";
import { reviseTaskBodySchema, type ReviseTaskBody, type ReviseTaskInput } from "@/lib/task-contract/task-revision";
import { toast } from "./toaster";
import { TaskContractSection, TaskTextParts, type TaskContractView } from "./task-contract-panel";

/**
 * The task the run serves: its text (as parts with their sources, instruction-like customer text
 * highlighted), its contract and revision. Supervisors can change it (a new body or a comment that
 * changes acceptance, or the contract), which bumps the revision: plans bound to the older
 * revision can no longer be approved, and executors are stopped with `stopped_stale_task`.
 */
export function TaskPanel({
  runId,
  task,
  canRevise,
}: {
  runId: string;
  task: { id: string; revision: number; body: string; updatedAt: string } & Partial<TaskContractView>;
  canRevise: boolean;
}) {
  const [open, setOpen] = useState(false);
  const qc = useQueryClient();
  const router = useRouter();
  const form = useForm<ReviseTaskInput, unknown, ReviseTaskBody>({ resolver: zodResolver(reviseTaskBodySchema), defaultValues: { comment: "" } });
  const revise = useMutation({
    mutationFn: (values: ReviseTaskBody) => apiFetch(`/api/tasks/${task.id}/revisions`, { method: "POST", body: values }),
    onSuccess: () => {
      toast("Task changed; its revision went up by one.");
      setOpen(false);
      form.reset({ comment: "" });
      qc.invalidateQueries({ queryKey: ["run", runId] });
      router.refresh();
    },
    onError: (e) => toast(e instanceof ApiError ? e.message : "The task could not be changed.", "error"),
  });
  const err = form.formState.errors;
  return (
    <section aria-labelledby="task-h" className="rounded-lg border border-slate-200 bg-white p-4">
      <h2 id="task-h" className="font-semibold">
        Task <span className="text-sm font-normal text-slate-600">revision {task.revision}</span>
      </h2>
      {task.parts && task.parts.length > 0 ? <TaskTextParts parts={task.parts} flags={task.instructionFlags ?? []} /> : <p className="mt-2 whitespace-pre-wrap text-sm">{task.body}</p>}
      <TaskContractSection runId={runId} task={task} canRevise={canRevise} />
      <p className="mt-2 text-xs text-slate-500">Last changed <Instant iso={task.updatedAt} /></p>
      {canRevise && !open && (
        <button type="button" onClick={() => setOpen(true)} className="mt-3 rounded-md border border-slate-400 px-2.5 py-1 text-sm">
          Change the task…
        </button>
      )}
      {open && (
        <form onSubmit={form.handleSubmit((v) => revise.mutate(v))} noValidate className="mt-3 space-y-2">
          <label htmlFor="task-comment" className="block text-sm font-medium">
            Comment that changes what done means
          </label>
          <textarea
            id="task-comment"
            rows={3}
            {...form.register("comment")}
            aria-invalid={!!err.comment || !!err.root}
            aria-describedby={err.comment || err.root ? "task-comment-error" : undefined}
            className="w-full rounded-md border border-slate-300 px-2 py-1.5 text-sm"
          />
          {(err.comment || err.root) && (
            <p id="task-comment-error" className="text-sm text-red-700">
              {err.comment?.message ?? err.root?.message}
            </p>
          )}
          <p className="text-xs text-slate-600">Pending plans bound to revision {task.revision} will need a new plan.</p>
          <div className="flex gap-2">
            <button type="submit" disabled={revise.isPending} className="rounded-md bg-slate-800 px-3 py-1.5 text-sm text-white disabled:opacity-60">
              {revise.isPending ? "Saving…" : "Save revision"}
            </button>
            <button type="button" onClick={() => setOpen(false)} className="rounded-md border border-slate-300 px-3 py-1.5 text-sm">
              Cancel
            </button>
          </div>
        </form>
      )}
    </section>
  );
}
