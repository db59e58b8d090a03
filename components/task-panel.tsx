"use client";

import dynamic from "next/dynamic";
import { useState } from "react";
import { Instant } from "./instant";
import { TaskContractSection, TaskTextParts, type TaskContractView } from "./task-contract-panel";

/** The form that changes the task (react-hook-form and its schema), loaded when a supervisor opens it (docs/design.md "Page weight"). */
const TaskRevisionForm = dynamic(() => import("./task-revision-form").then((m) => m.TaskRevisionForm), {
  loading: () => <p className="mt-3 text-sm text-slate-600">Loading the form…</p>,
});

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
      {open && <TaskRevisionForm runId={runId} task={task} onClose={() => setOpen(false)} />}
    </section>
  );
}
