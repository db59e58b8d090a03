"use client";

import { zodResolver } from "@hookform/resolvers/zod";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useForm } from "react-hook-form";
import { ApiError, apiFetch } from "@/lib/client/api";
import { reviseTaskBodySchema, type ReviseTaskBody, type ReviseTaskInput } from "@/lib/task-contract/task-revision";
import { SaveCancel } from "./form-actions";
import { toast } from "./toaster";

/**
 * Changing the task (`POST /api/tasks/{taskId}/revisions`): a comment that changes what done
 * means; saving bumps the revision by one, so plans bound to the older one need a new plan.
 * `onClose` runs on Cancel and after a saved revision.
 */
export function TaskRevisionForm({ runId, task, onClose }: { runId: string; task: { id: string; revision: number }; onClose: () => void }) {
  const qc = useQueryClient();
  const router = useRouter();
  const form = useForm<ReviseTaskInput, unknown, ReviseTaskBody>({ resolver: zodResolver(reviseTaskBodySchema), defaultValues: { comment: "" } });
  const revise = useMutation({
    mutationFn: (values: ReviseTaskBody) => apiFetch(`/api/tasks/${task.id}/revisions`, { method: "POST", body: values }),
    onSuccess: () => {
      toast("Task changed; its revision went up by one.");
      onClose();
      form.reset({ comment: "" });
      qc.invalidateQueries({ queryKey: ["run", runId] });
      router.refresh();
    },
    onError: (e) => toast(e instanceof ApiError ? e.message : "The task could not be changed.", "error"),
  });
  const err = form.formState.errors;
  return (
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
      <SaveCancel pending={revise.isPending} saveLabel="Save revision" onCancel={onClose} />
    </form>
  );
}
