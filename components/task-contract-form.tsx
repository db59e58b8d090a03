"use client";

import { zodResolver } from "@hookform/resolvers/zod";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useForm } from "react-hook-form";
import { ApiError, apiFetch } from "@/lib/client/api";
import { contractFormSchema, toContractForm, type ContractFormBody, type ContractFormFields } from "@/lib/task-contract/form";
import type { Intent, TaskContract } from "@/lib/task-contract/schema";
import { SaveCancel } from "./form-actions";
import { toast } from "./toaster";

/**
 * Setting or correcting the task's contract (`POST /api/tasks/{taskId}/revisions` with the
 * contract): intent, delivery bounds, compensation cap (minor units in its currency), no refund,
 * accounts in scope and why it changes; starts from `contract` (null: none yet). Saving makes a
 * new task revision. `onClose` runs on Cancel and after a save.
 */
export function TaskContractForm({ runId, task, contract, intents, onClose }: { runId: string; task: { id: string; revision: number }; contract: TaskContract | null; intents: readonly Intent[]; onClose: () => void }) {
  const qc = useQueryClient();
  const router = useRouter();
  const form = useForm<ContractFormFields, unknown, ContractFormBody>({ resolver: zodResolver(contractFormSchema), defaultValues: toContractForm(contract) });
  const save = useMutation({
    mutationFn: (values: ContractFormBody) => apiFetch(`/api/tasks/${task.id}/revisions`, { method: "POST", body: values }),
    onSuccess: () => {
      toast("Task contract saved; the task's revision went up by one.");
      onClose();
      qc.invalidateQueries({ queryKey: ["run", runId] });
      router.refresh();
    },
    onError: (e) => toast(e instanceof ApiError ? e.message : "The contract could not be saved.", "error"),
  });
  const err = form.formState.errors;
  return (
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
      <SaveCancel pending={save.isPending} saveLabel="Save contract" onCancel={onClose} />
    </form>
  );
}
