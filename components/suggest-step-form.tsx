"use client";

import { zodResolver } from "@hookform/resolvers/zod";
import { useMutation } from "@tanstack/react-query";
import { useState } from "react";
import { FormProvider, useForm } from "react-hook-form";
import type { AccountSnapshot } from "@/lib/desk/snapshot";
import { apiFetch } from "@/lib/client/api";
import { authorBlock, type Grant } from "@/lib/people/grants";
import { stripMoneyInput } from "@/lib/money/money-input";
import { blankArgs, planFormSchemaFor, type PlanFormValues } from "@/lib/plan/form-schema";
import type { ImportedToolSpec } from "@/lib/tools/json-schema-tool";
import { catalogWith } from "@/lib/tools/versioned-catalog";
import { StepField } from "./step-fields";
import { toast } from "./toaster";

const primary = "rounded-md bg-blue-700 px-3 py-1.5 text-sm font-medium text-white hover:bg-blue-800 disabled:opacity-60";
const input = "mt-1 w-full rounded-md border border-slate-300 bg-white px-2.5 py-1.5 text-sm";

/** "Suggest a step": one step of a tool the viewer may not author, its arguments typed by the tool's schema. */
export function SuggestStepForm({
  runId,
  planVersion,
  grants,
  desk,
  ticketId,
  ticketAccountId,
  imported,
  catalogVersion,
  onDone,
}: {
  runId: string;
  planVersion: number;
  grants: Grant[];
  desk: AccountSnapshot;
  ticketId: string;
  ticketAccountId: string;
  imported: readonly ImportedToolSpec[];
  catalogVersion: number | null;
  onDone: () => void;
}) {
  const [catalog] = useState(() => catalogWith(imported, catalogVersion));
  const tools = catalog.names().filter((t) => authorBlock(grants, t));
  const [tool, setTool] = useState(tools[0] ?? "");
  const [note, setNote] = useState("");
  const [schema] = useState(() => planFormSchemaFor(catalog));
  const form = useForm<PlanFormValues>({ resolver: zodResolver(schema), defaultValues: { steps: [{ key: "s", id: "suggested", tool, args: blankArgs(tool, ticketId, "USD", catalog) }] } });
  const send = useMutation({
    mutationFn: (v: PlanFormValues) => apiFetch(`/api/runs/${runId}/suggestions`, { method: "POST", body: { planVersion, tool: v.steps[0].tool, args: stripMoneyInput(v.steps[0].args), note } }),
    onSuccess: () => (toast("Suggestion attached to the run."), onDone()),
  });
  const def = catalog.get(tool);
  if (tools.length === 0) return <p id="suggest-none" className="mt-3 text-sm text-slate-600">You may author every tool: edit the plan instead.</p>;
  return (
    <FormProvider {...form}>
      <form aria-label="Suggest a step" noValidate className="mt-3 space-y-2 rounded-md border border-slate-200 bg-slate-50 p-3" onSubmit={form.handleSubmit((v) => send.mutate(v))}>
        <div>
          <label htmlFor="sug-tool" className="block text-sm font-medium">
            Tool
          </label>
          <select
            id="sug-tool"
            className={input}
            value={tool}
            onChange={(e) => {
              setTool(e.target.value);
              form.reset({ steps: [{ key: "s", id: "suggested", tool: e.target.value, args: blankArgs(e.target.value, ticketId, "USD", catalog) }] });
            }}
          >
            {tools.map((t) => (
              <option key={t} value={t}>
                {catalog.get(t)?.label ?? t} ({t})
              </option>
            ))}
          </select>
        </div>
        {(def?.fields ?? []).map((field) => (
          <StepField key={`${tool}-${field.name}`} stepIndex={0} field={field} desk={desk} ticketAccountId={ticketAccountId} tool={def} runId={runId} />
        ))}
        <div>
          <label htmlFor="sug-note" className="block text-sm font-medium">
            Note for the person who decides (optional)
          </label>
          <input id="sug-note" className={input} maxLength={1000} value={note} onChange={(e) => setNote(e.target.value)} />
        </div>
        {send.error && (
          <p role="alert" className="text-sm text-red-800">
            {(send.error as Error).message}
          </p>
        )}
        <button type="submit" className={primary} disabled={send.isPending}>
          Attach suggestion
        </button>
      </form>
    </FormProvider>
  );
}

