"use client";

import { zodResolver } from "@hookform/resolvers/zod";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useState } from "react";
import { useForm } from "react-hook-form";
import { ApiError, apiFetch } from "@/lib/client/api";
import { formatMoney } from "@/lib/money/format-money";
import { contractFormSchema, describeConstraints, toContractForm, type ContractFormBody, type ContractFormFields } from "@/lib/task-contract/form";
import { INSTRUCTION_KIND_LABELS, type InstructionFlag } from "@/lib/task-contract/instruction-scan";
import { TEXT_SOURCE_LABELS, isUntrustedSource, type Intent, type TaskContract, type TaskTextPart } from "@/lib/task-contract/schema";
import { toast } from "./toaster";

/** What the task panel knows of the contract: the contract, the text parts, the flags and the desk's intents. */
export interface TaskContractView {
  contract: TaskContract | null;
  parts: TaskTextPart[];
  instructionFlags: InstructionFlag[];
  intents: Intent[];
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
 * "checked against the account only" when the task has none; supervisors can set or correct it
 * with a form (a new task revision, audited).
 */
export function TaskContractSection({ runId, task, canRevise }: { runId: string; task: { id: string; revision: number } & Partial<TaskContractView>; canRevise: boolean }) {
  const [open, setOpen] = useState(false);
  const qc = useQueryClient();
  const router = useRouter();
  const contract = task.contract ?? null;
  const intents = task.intents ?? [];
  const intent = contract ? intents.find((i) => i.name === contract.intent) : undefined;
  const form = useForm<ContractFormFields, unknown, ContractFormBody>({ resolver: zodResolver(contractFormSchema), defaultValues: toContractForm(contract) });
  const save = useMutation({
    mutationFn: (values: ContractFormBody) => apiFetch(`/api/tasks/${task.id}/revisions`, { method: "POST", body: values }),
    onSuccess: () => {
      toast("Task contract saved; the task's revision went up by one.");
      setOpen(false);
      qc.invalidateQueries({ queryKey: ["run", runId] });
      router.refresh();
    },
    onError: (e) => toast(e instanceof ApiError ? e.message : "The contract could not be saved.", "error"),
  });
  const err = form.formState.errors;
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
        <p className="text-slate-700">No task contract: this plan is checked against the account only.</p>
      )}
      {canRevise && !open && (
        <button
          type="button"
          onClick={() => {
            form.reset(toContractForm(contract));
            setOpen(true);
          }}
          className="mt-2 rounded-md border border-slate-400 px-2.5 py-1 text-sm"
        >
          {contract ? "Correct the contract…" : "Set the contract…"}
        </button>
      )}
      {open && (
        <form onSubmit={form.handleSubmit((v) => save.mutate(v))} noValidate className="mt-2 space-y-2" aria-label="Task contract">
          <label className="block">
            <span className="block text-xs font-medium">What the task is for</span>
            <select {...form.register("intent")} aria-invalid={!!err.intent} className="w-full rounded-md border border-slate-300 px-2 py-1">
              <option value="">Choose…</option>
              {intents.map((i) => (
                <option key={i.name} value={i.name}>
                  {i.label}
                </option>
              ))}
            </select>
            {err.intent && <span className="text-xs text-red-700">{err.intent.message}</span>}
          </label>
          <div className="grid grid-cols-2 gap-2">
            <label className="block">
              <span className="block text-xs font-medium">Deliver not before</span>
              <input type="date" {...form.register("deliveryNotBefore")} className="w-full rounded-md border border-slate-300 px-2 py-1" />
            </label>
            <label className="block">
              <span className="block text-xs font-medium">Deliver not after</span>
              <input type="date" {...form.register("deliveryNotAfter")} aria-invalid={!!err.deliveryNotAfter} className="w-full rounded-md border border-slate-300 px-2 py-1" />
              {err.deliveryNotAfter && <span className="text-xs text-red-700">{err.deliveryNotAfter.message}</span>}
            </label>
          </div>
          <div className="grid grid-cols-[1fr_6rem] gap-2">
            <label className="block">
              <span className="block text-xs font-medium">Compensation cap</span>
              <input inputMode="decimal" placeholder="none" {...form.register("capAmount")} aria-invalid={!!err.capAmount} className="w-full rounded-md border border-slate-300 px-2 py-1" />
              {err.capAmount && <span className="text-xs text-red-700">{err.capAmount.message}</span>}
            </label>
            <label className="block">
              <span className="block text-xs font-medium">Currency</span>
              <select {...form.register("capCurrency")} className="w-full rounded-md border border-slate-300 px-2 py-1">
                {["USD", "EUR", "GBP", "NOK", "SEK", "DKK"].map((c) => (
                  <option key={c}>{c}</option>
                ))}
              </select>
            </label>
          </div>
          <label className="flex items-center gap-2">
            <input type="checkbox" {...form.register("noRefund")} /> No refund
          </label>
          <label className="block">
            <span className="block text-xs font-medium">Accounts in scope (ids, comma-separated; empty: the ticket&apos;s account)</span>
            <input {...form.register("accountsInScope")} aria-invalid={!!err.accountsInScope} className="w-full rounded-md border border-slate-300 px-2 py-1" />
            {err.accountsInScope && <span className="text-xs text-red-700">{err.accountsInScope.message}</span>}
          </label>
          <label className="block">
            <span className="block text-xs font-medium">Why the contract changes</span>
            <input {...form.register("note")} aria-invalid={!!err.note} className="w-full rounded-md border border-slate-300 px-2 py-1" />
            {err.note && <span className="text-xs text-red-700">{err.note.message}</span>}
          </label>
          <p className="text-xs text-slate-600">Saving makes a new task revision; plans bound to revision {task.revision} will need a new plan.</p>
          <div className="flex gap-2">
            <button type="submit" disabled={save.isPending} className="rounded-md bg-slate-800 px-3 py-1.5 text-sm text-white disabled:opacity-60">
              {save.isPending ? "Saving…" : "Save contract"}
            </button>
            <button type="button" onClick={() => setOpen(false)} className="rounded-md border border-slate-300 px-3 py-1.5 text-sm">
              Cancel
            </button>
          </div>
        </form>
      )}
    </div>
  );
}
