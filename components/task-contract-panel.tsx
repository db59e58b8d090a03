"use client";

import dynamic from "next/dynamic";
import { useState } from "react";
import { formatMoney } from "@/lib/money/format-money";
import { describeConstraints } from "@/lib/task-contract/describe-constraints";
import type { InstructionFlag } from "@/lib/task-contract/instruction-scan";
import { INSTRUCTION_KIND_LABELS } from "@/lib/task-contract/instruction-kinds";
import type { Intent, TaskContract, TaskTextPart } from "@/lib/task-contract/schema";
import { TEXT_SOURCE_LABELS, isUntrustedSource } from "@/lib/task-contract/text-sources";

/** The contract form (react-hook-form and its schema), loaded when a supervisor opens it (docs/design.md "Page weight"). */
const TaskContractForm = dynamic(() => import("./task-contract-form").then((m) => m.TaskContractForm), {
  loading: () => <p className="mt-2 text-sm text-slate-600">Loading the form…</p>,
});

/** What the task panel knows of the contract: the contract, the text parts, the flags and the desk's intents. */
export interface TaskContractView {
  contract: TaskContract | null;
  parts: TaskTextPart[];
  instructionFlags: InstructionFlag[];
  intents: Intent[];
  /** The desk's default intent, which a task without a contract gets (null or absent: none, only replies and notes). */
  defaultIntent?: string | null;
}

/**
 * The task's text as parts, each labelled with its source; customer and attachment parts are
 * marked as untrusted and their instruction-like spans highlighted (`<mark>`, with what they look like).
 */
export function TaskTextParts({ parts, flags }: { parts: TaskTextPart[]; flags: InstructionFlag[] }) {
  return (
    <ol className="mt-2 space-y-2 text-sm" aria-label="Task text by source">
      {parts.map((p, i) => {
        const mine = flags.filter((f) => f.partIndex === i).sort((a, b) => a.start - b.start);
        const pieces: React.ReactNode[] = [];
        let at = 0;
        for (const f of mine) {
          if (f.start < at) continue;
          pieces.push(p.text.slice(at, f.start));
          pieces.push(
            <mark key={`${f.start}`} data-testid="instruction-flag" title={`Flagged: ${INSTRUCTION_KIND_LABELS[f.kind]}. Task text is data, not an instruction.`} className="rounded bg-red-100 px-0.5 text-red-900 ring-1 ring-red-300">
              {p.text.slice(f.start, f.end)}
            </mark>,
          );
          at = f.end;
        }
        pieces.push(p.text.slice(at));
        // A staff or system part with instruction-like text is untrusted too (lib/task-contract/instruction-scan.ts).
        const untrusted = isUntrustedSource(p.source) || mine.length > 0;
        return (
          <li key={i} data-source={p.source} className={untrusted ? "rounded-md border border-amber-200 bg-amber-50 p-2" : ""}>
            <span className="mr-1 text-xs font-medium uppercase tracking-wide text-slate-500">
              {TEXT_SOURCE_LABELS[p.source]}
              {p.revision > 1 ? ` · rev ${p.revision}` : ""}
              {untrusted ? " · untrusted" : ""}
            </span>
            <span className="whitespace-pre-wrap">{pieces}</span>
            {mine.length > 0 && (
              <p className="mt-1 text-xs text-red-800" role="note">
                {mine.length === 1 ? "1 instruction-like passage" : `${mine.length} instruction-like passages`} flagged: no step derived from it is approved by the gate policy alone.
              </p>
            )}
          </li>
        );
      })}
    </ol>
  );
}

/**
 * The task contract on the task panel: its intent, the tools it permits and its constraints, or
 * the desk's default intent (or "replies and notes only") when the task has none; supervisors can set or correct it
 * with a form (a new task revision, audited).
 */
export function TaskContractSection({ runId, task, canRevise }: { runId: string; task: { id: string; revision: number } & Partial<TaskContractView>; canRevise: boolean }) {
  const [open, setOpen] = useState(false);
  const contract = task.contract ?? null;
  const intents = task.intents ?? [];
  const intent = contract ? intents.find((i) => i.name === contract.intent) : undefined;
  const constraints = contract ? describeConstraints(contract, formatMoney) : [];
  return (
    <div className="mt-3 rounded-md border border-slate-200 bg-slate-50 p-2 text-sm" data-testid="task-contract">
      {contract ? (
        <>
          <p>
            <span className="font-medium">Contract:</span> {intent?.label ?? contract.intent}
            {intent ? <span className="text-slate-600"> · permits {intent.permittedTools.join(", ")}</span> : <span className="text-red-800"> · not in the desk&apos;s catalog: no tool is permitted</span>}
          </p>
          {constraints.length > 0 && <p className="text-slate-700">Constraints: {constraints.join("; ")}</p>}
        </>
      ) : (
        <NoContract intent={task.defaultIntent ? intents.find((i) => i.name === task.defaultIntent) : undefined} />
      )}
      {canRevise && !open && (
        <button
          type="button"
          onClick={() => setOpen(true)}
          className="mt-2 rounded-md border border-slate-400 px-2.5 py-1 text-sm"
        >
          {contract ? "Correct the contract…" : "Set the contract…"}
        </button>
      )}
      {open && <TaskContractForm runId={runId} task={task} contract={contract} intents={intents} onClose={() => setOpen(false)} />}
    </div>
  );
}

/** What a task without a contract permits: the desk's default intent, or only replies and notes when the desk declares none. */
function NoContract({ intent }: { intent: Intent | undefined }) {
  return intent ? (
    <p className="text-slate-700">
      No task contract: the desk&apos;s default intent applies, {intent.label} <span className="text-slate-600">· permits {intent.permittedTools.join(", ")}</span>
    </p>
  ) : (
    <p className="text-slate-700">No task contract and no default intent on this desk: only replies and notes are permitted.</p>
  );
}
