"use client";

import { zodResolver } from "@hookform/resolvers/zod";
import { useMutation } from "@tanstack/react-query";
import { useEffect, useRef, useState } from "react";
import { FormProvider, useFieldArray, useForm } from "react-hook-form";
import type { AccountSnapshot } from "@/lib/desk/snapshot";
import { ApiError, apiFetch } from "@/lib/client/api";
import { authorBlock, type Grant } from "@/lib/people/grants";
import { addedStepReasons, blankArgs, derivedTitle, planFormSchemaFor, sendReasons, type PlanFormValues } from "@/lib/plan/form-schema";
import { canonicalJson } from "@/lib/plan/canonical-json";
import { STEP_REASON_KEYS, type Step, type StepReasonKey, type StepReasons } from "@/lib/plan/schema";
import type { EditResult } from "@/lib/api/schemas";
import { builtinCatalog, catalogWith, type ToolCatalog } from "@/lib/tools/versioned-catalog";
import type { ImportedToolSpec } from "@/lib/tools/json-schema-tool";
import type { ValidationIssue } from "@/lib/validation/types";
import { EffectBadge } from "./badges";
import { stripMoneyInput } from "@/lib/money/money-input";
import { StepField } from "./step-fields";
import { StepWhyFields } from "./step-why-fields";
import { ArgValue } from "./arg-value";
import type { CarryOver } from "@/lib/plan/carry-over";
import { useShortcut } from "./keyboard-shortcuts";
import { toast } from "./toaster";

/** A step as the form starts from it: the stored step's id, tool, arguments and reasons, and what the gate policy requires of it. */
type FormBaseStep = Pick<Step, "id" | "tool" | "args"> & StepReasons & { requiredFields?: StepReasonKey[]; titleAuto?: boolean };

/** True when the form holds exactly the stored steps (same ids, tools, arguments and reasons, in order). */
function sameSteps(a: FormBaseStep[], b: FormBaseStep[]): boolean {
  const baseById = new Map(b.map((s) => [s.id, s] as const));
  const norm = (xs: FormBaseStep[]) => {
    try {
      return canonicalJson(xs.map((s) => ({ id: s.id, tool: s.tool, args: stripMoneyInput(s.args), ...sendReasons(s, baseById.get(s.id)) })));
    } catch {
      return null; // e.g. NaN from a malformed amount: not the stored plan
    }
  };
  const na = norm(a);
  return na !== null && na === norm(b);
}

/**
 * Focuses a field of step `index` (0-based) of the edit form inside `root`: the first input of
 * argument `argName` when given and present (a date window's first day), else the step's first
 * field; false when the step has none.
 */
function focusStepField(root: HTMLElement | null, index: number, argName?: string): boolean {
  const step = root?.querySelector(`[data-step-index="${index}"]`);
  const base = `steps.${index}.args.${argName}`;
  const named = argName ? step?.querySelector<HTMLElement>(`:is(input, select, textarea):not([disabled]):is([id="${base}"], [id^="${base}."])`) : null;
  const field = named ?? step?.querySelector<HTMLElement>(":is(input, select, textarea):not([disabled])");
  field?.focus();
  return !!field;
}

let keySeq = 0;
const newKey = () => `k${Date.now().toString(36)}${(keySeq++).toString(36)}`;

/** Form values for a stored plan (deep copies, so editing never touches the cached run): each step's arguments and its five reasons (absent ones empty). */
export function toFormValues(steps: FormBaseStep[]): PlanFormValues {
  return {
    steps: steps.map((s) => ({
      key: newKey(),
      id: s.id,
      tool: s.tool,
      args: structuredClone(s.args),
      title: s.title ?? "",
      rationale: s.rationale ?? "",
      evidence: structuredClone(s.evidence ?? []),
      risk: s.risk ?? "",
      stopCondition: s.stopCondition ?? "",
      ...(s.titleAuto ? { titleAuto: true } : {}),
    })),
  };
}

/**
 * The plan card as a form (docs/design.md §6): each step's arguments as typed fields from its tool's
 * schema, steps removable, new steps only through "Add step" listing the tools this person may
 * author. Submits `{baseVersion, steps}`; an unchanged form submits nothing. Server refusals
 * map back onto their fields and the form stays exactly as the person left it.
 */
export function PlanForm({
  runId,
  baseVersion,
  steps,
  desk,
  ticketId,
  ticketAccountId,
  grants,
  onSaved,
  onCancel,
  onConflict,
  catalog = builtinCatalog,
  focusStep,
  focusField,
  defaultReason,
  carried,
  requiredFieldsByTool = {},
}: {
  runId: string;
  baseVersion: number;
  steps: FormBaseStep[];
  desk: AccountSnapshot;
  ticketId: string;
  ticketAccountId: string;
  grants: Grant[];
  onSaved: (result: EditResult) => void;
  onCancel: () => void;
  onConflict: (currentVersion: number, plan: { version: number; steps: Step[] }, mine: PlanFormValues, savedBy?: { name: string; at: string } | null) => void;
  /** The run's tool catalog (built-in plus the imported tools of its catalog version). */
  catalog?: ToolCatalog;
  /** The step (0-based) whose first field has focus when the form opens (the `e` shortcut); default the first. */
  focusStep?: number;
  /** The argument of `focusStep` that has focus instead of its first field (e.g. "window"), when it has one. */
  focusField?: string;
  /** The text a new step's empty "reason" starts with (the run page passes the ticket's subject); edited freely. */
  defaultReason?: string;
  /**
   * After "Start over from version N" (a stale-edit refusal): the person's typed values carried
   * over to `steps` (lib/plan/carry-over.ts). The form starts with them, marks them as the
   * person's changes, and says which changes no longer apply.
   */
  carried?: CarryOver;
  /** The fields the gate policy requires of a step a person adds, by tool (the run details' `requiredFieldsByTool`). */
  requiredFieldsByTool?: Record<string, StepReasonKey[]>;
}) {
  const [formSchema] = useState(() => planFormSchemaFor(catalog));
  const form = useForm<PlanFormValues>({ resolver: zodResolver(formSchema), defaultValues: toFormValues(carried?.steps ?? steps), mode: "onSubmit" });
  const toolNames = catalog.names();
  const getTool = catalog.get;
  const { fields, append, remove, move } = useFieldArray({ control: form.control, name: "steps", keyName: "fieldKey" });
  const [serverIssues, setServerIssues] = useState<ValidationIssue[]>([]);
  const [adding, setAdding] = useState("");
  const authorable = toolNames.filter((t) => !authorBlock(grants, t));

  const save = useMutation({
    mutationFn: (values: PlanFormValues) =>
      apiFetch<EditResult>(`/api/runs/${runId}/edits`, {
        method: "POST",
        body: { baseVersion, steps: values.steps.map((s) => ({ id: s.id, tool: s.tool, args: stripMoneyInput(s.args), ...sendReasons(s, steps.find((b) => b.id === s.id)) })) },
      }),
    onSuccess: (result) => {
      if (result.unchanged) {
        toast("Nothing changed; no edit was saved.");
        return;
      }
      toast(`Saved as plan version ${result.planVersion.version}.`);
      onSaved(result);
    },
    onError: (err, values) => {
      if (!(err instanceof ApiError)) return;
      if (err.code === "stale_plan_version") {
        const by = err.details.savedBy as { name?: string } | null | undefined;
        const savedBy = by?.name && typeof err.details.savedAt === "string" ? { name: by.name, at: err.details.savedAt } : null;
        onConflict(err.details.currentVersion as number, err.details.plan as { version: number; steps: Step[] }, values, savedBy);
        return;
      }
      const issues = (err.details.issues as ValidationIssue[] | undefined) ?? [];
      setServerIssues(issues);
      for (const i of issues) {
        if (i.severity === "error" && i.path?.startsWith("steps.")) {
          // an evidence reference's problem marks the step's evidence as a whole
          const path = i.path.replace(/^(steps\.\d+\.evidence)\.\d+.*$/, "$1");
          form.setError(path as "steps", { type: "server", message: i.message });
        }
      }
      toast(err.message, "error");
    },
  });

  const onSubmit = form.handleSubmit((values) => {
    setServerIssues([]);
    if (sameSteps(values.steps, steps)) {
      toast("Nothing changed; no edit was saved.");
      return;
    }
    save.mutate(values);
  });

  const errorIssues = serverIssues.filter((i) => i.severity === "error");
  /**
   * The fields the gate policy requires of step `index`: the stored requirement of a step kept with
   * its tool, the policy's requirement of the tool for a step the person added, and any field the
   * server said is missing.
   */
  const requiredOf = (id: string, tool: string, index: number): StepReasonKey[] => {
    const stored = steps.find((s) => s.id === id && s.tool === tool);
    const out = new Set<StepReasonKey>(stored ? (stored.requiredFields ?? []) : (requiredFieldsByTool[tool] ?? []));
    for (const i of serverIssues) {
      const m = i.path?.match(/^steps\.(\d+)\.(\w+)/);
      if (m && Number(m[1]) === index && (i.code === "missing_required_field" || i.code === "evidence_missing")) {
        const key = m[2] as StepReasonKey;
        if ((STEP_REASON_KEYS as readonly string[]).includes(key)) out.add(key);
      }
    }
    return STEP_REASON_KEYS.filter((k) => out.has(k));
  };

  // ── keyboard: focus in a step's first field when the form opens and after a step
  // is added; Ctrl/⌘+Enter saves; Alt+J / Alt+K go to the next / previous step's first field;
  // Alt+N goes to the tool picker, where Enter adds the chosen tool.
  const formRef = useRef<HTMLFormElement>(null);
  const [initialFocus] = useState({ step: focusStep ?? 0, field: focusField });
  useEffect(() => {
    // after Start over, focus on what was kept and what was not (read first), else in a step's field
    if (carried && (carried.kept.length || carried.added.length || carried.lost.length)) document.getElementById("carried-h")?.focus();
    else focusStepField(formRef.current, initialFocus.step, initialFocus.field);
  }, [initialFocus, carried]);
  const focusAfterAdd = useRef<number | null>(null);
  useEffect(() => {
    if (focusAfterAdd.current !== null && focusStepField(formRef.current, focusAfterAdd.current)) focusAfterAdd.current = null;
  }, [fields.length]);
  // After Move, focus on the moved step's handle (its Move button the same way, else the other
  // way); after Remove, the first field of the step that took its place, else the one above, else
  // "Add step" — never the body the removed or re-inserted card took focus away to.
  const focusAfterChange = useRef<{ kind: "move"; to: number; up: boolean } | { kind: "remove"; at: number } | null>(null);
  useEffect(() => {
    const want = focusAfterChange.current;
    if (!want) return;
    focusAfterChange.current = null;
    const root = formRef.current;
    if (want.kind === "move") {
      const step = root?.querySelector(`[data-step-index="${want.to}"]`);
      const same = step?.querySelector<HTMLButtonElement>(`[data-move="${want.up ? "up" : "down"}"]:not([disabled])`);
      (same ?? step?.querySelector<HTMLButtonElement>("[data-move]:not([disabled])"))?.focus();
    } else if (!focusStepField(root, want.at) && !focusStepField(root, want.at - 1)) document.getElementById("add-step-tool")?.focus();
  });
  const moveStep = (from: number, to: number) => {
    focusAfterChange.current = { kind: "move", to, up: to < from };
    move(from, to);
  };
  const removeStep = (index: number) => {
    focusAfterChange.current = { kind: "remove", at: index };
    remove(index);
  };
  const addStep = (tool = adding) => {
    if (!tool) return;
    focusAfterAdd.current = fields.length;
    const args = blankArgs(tool, ticketId, "USD", catalog);
    const reason = getTool(tool)?.fields.find((f) => f.name === "reason" && f.kind === "text");
    if (reason && defaultReason && args.reason === "") args.reason = defaultReason;
    append({ key: newKey(), id: `new-${newKey()}`, tool, args, ...addedStepReasons(derivedTitle(tool, args, desk, catalog), ticketId) });
    setAdding("");
  };
  /** The one tool this person may author whose label starts with `letter`, or null when none or several do. */
  const toolByLetter = (letter: string): string | null => {
    const hits = authorable.filter((t) => (getTool(t)?.label ?? t).toLowerCase().startsWith(letter.toLowerCase()));
    return hits.length === 1 ? hits[0] : null;
  };
  const currentStep = () => {
    const at = document.activeElement?.closest("[data-step-index]")?.getAttribute("data-step-index");
    return at == null ? -1 : Number(at);
  };
  useShortcut("save", () => void onSubmit());
  useShortcut("nextStep", () => {
    const i = currentStep();
    if (!focusStepField(formRef.current, i + 1)) document.getElementById("add-step-tool")?.focus();
  });
  useShortcut("previousStep", () => {
    const i = currentStep();
    focusStepField(formRef.current, i < 0 ? fields.length - 1 : Math.max(0, i - 1));
  });
  useShortcut("addStep", () => document.getElementById("add-step-tool")?.focus());
  /** The step focus is in, or null (with a note saying how to get into one) when focus is in none. */
  const stepInFocus = (): number | null => {
    const i = currentStep();
    if (i >= 0) return i;
    toast("Put focus in a step first (Alt+J goes to the next step), then move or remove it.", "error");
    return null;
  };
  useShortcut("moveStepUp", () => {
    const i = stepInFocus();
    if (i !== null && i > 0) moveStep(i, i - 1);
  });
  useShortcut("moveStepDown", () => {
    const i = stepInFocus();
    if (i !== null && i < fields.length - 1) moveStep(i, i + 1);
  });
  useShortcut("removeStep", () => {
    const i = stepInFocus();
    if (i !== null) removeStep(i);
  });

  return (
    <FormProvider {...form}>
      <form ref={formRef} onSubmit={onSubmit} noValidate aria-label="Edit plan" aria-keyshortcuts="Control+Enter" className="space-y-4">
        {(save.error || errorIssues.length > 0) && (
          <div role="alert" className="rounded-md border border-red-300 bg-red-50 p-3 text-sm text-red-900">
            <p className="font-medium">{save.error instanceof ApiError ? save.error.message : "The edit was not saved."}</p>
            {errorIssues.length > 0 && (
              <ul className="mt-1 list-disc pl-5">
                {errorIssues.map((i, n) => (
                  <li key={n}>{i.message}</li>
                ))}
              </ul>
            )}
            <p className="mt-1 text-xs">Your changes are still here; correct them and save again.</p>
          </div>
        )}
        {carried && <CarriedNotice carried={carried} baseVersion={baseVersion} steps={steps} getTool={getTool} desk={desk} />}
        <ol className="space-y-4" aria-label="Plan steps (editing)">
          {fields.map((f, index) => {
            const tool = getTool(f.tool);
            return (
              <li key={f.fieldKey} data-step-index={index} className="rounded-lg border border-blue-200 bg-white p-4 shadow-sm" aria-labelledby={`edit-${f.fieldKey}-title`}>
                <div className="flex flex-wrap items-center gap-2">
                  <span className="rounded-full bg-blue-800 px-2 py-0.5 text-xs font-semibold text-white">Step {index + 1}</span>
                  <h3 id={`edit-${f.fieldKey}-title`} className="font-semibold">
                    {tool?.label ?? f.tool} <code className="ml-1 text-xs font-normal text-slate-500">{f.tool}</code>
                  </h3>
                  {tool && <EffectBadge effect={tool.effect} />}
                  {!steps.some((s) => s.id === f.id) && <span className="rounded bg-fuchsia-100 px-1.5 py-0.5 text-xs font-semibold text-fuchsia-900">New step</span>}
                  <div className="ml-auto flex gap-1">
                    <button type="button" data-move="up" aria-keyshortcuts="Alt+Shift+K" onClick={() => moveStep(index, index - 1)} disabled={index === 0} className="rounded border border-slate-300 px-2 py-0.5 text-xs disabled:opacity-40" aria-label={`Move step ${index + 1} up`}>
                      ↑
                    </button>
                    <button type="button" data-move="down" aria-keyshortcuts="Alt+Shift+J" onClick={() => moveStep(index, index + 1)} disabled={index === fields.length - 1} className="rounded border border-slate-300 px-2 py-0.5 text-xs disabled:opacity-40" aria-label={`Move step ${index + 1} down`}>
                      ↓
                    </button>
                    <button type="button" aria-keyshortcuts="Alt+Shift+X" onClick={() => removeStep(index)} className="rounded border border-red-300 px-2 py-0.5 text-xs text-red-800 hover:bg-red-50">
                      Remove step {index + 1}
                    </button>
                  </div>
                </div>
                {(() => {
                  const mine = carried?.kept.filter((k) => k.stepId === f.id) ?? [];
                  if (!mine.length) return null;
                  return (
                    <p className="mt-2 rounded bg-violet-50 px-2 py-1 text-sm text-violet-950" data-testid="kept-change">
                      <span className="font-semibold">Your change, kept:</span>{" "}
                      {mine.map((k, n) => (
                        <span key={k.arg}>
                          {n > 0 && ", "}
                          {tool?.fields.find((x) => x.name === k.arg)?.label ?? k.arg}
                          {k.overridesNewer && ` (replaces the value saved in version ${baseVersion})`}
                        </span>
                      ))}
                    </p>
                  );
                })()}
                <div className="mt-3 grid gap-3 sm:grid-cols-2">
                  {(tool?.fields ?? []).map((field) => (
                    <div key={field.name} className={field.kind === "textarea" ? "sm:col-span-2" : ""}>
                      <StepField stepIndex={index} field={field} desk={desk} ticketAccountId={ticketAccountId} tool={tool} grants={grants} runId={runId} />
                    </div>
                  ))}
                </div>
                <StepWhyFields index={index} required={requiredOf(f.id, f.tool, index)} desk={desk} catalog={catalog} />
                {serverIssues
                  .filter((i) => i.severity === "warning" && i.path?.startsWith(`steps.${index}.`))
                  .map((i, n) => (
                    <p key={n} className="mt-2 rounded bg-amber-50 px-2 py-1 text-sm text-amber-950">
                      Warning: {i.message}
                    </p>
                  ))}
              </li>
            );
          })}
        </ol>
        <div className="rounded-lg border border-dashed border-slate-300 bg-white p-4">
          <label htmlFor="add-step-tool" className="block text-sm font-medium">
            Add step
          </label>
          <div className="mt-1 flex flex-wrap items-center gap-2">
            <select
              id="add-step-tool"
              value={adding}
              onChange={(e) => setAdding(e.target.value)}
              onKeyDown={(e) => {
                if (e.key === "Enter" && !e.ctrlKey && !e.metaKey && adding) {
                  e.preventDefault();
                  addStep();
                  return;
                }
                // a letter that only one tool you may author starts with adds it at once (a menu's
                // access key); a shared letter (Add…, Apply…) only chooses, and Enter adds
                const only = /^[a-z]$/i.test(e.key) && !e.ctrlKey && !e.metaKey && !e.altKey && !e.repeat ? toolByLetter(e.key) : null;
                if (only) {
                  e.preventDefault();
                  addStep(only);
                }
              }}
              aria-describedby="add-step-keys"
              aria-keyshortcuts="Alt+N"
              // a select is as wide as its longest option ("— not available: needs a grant…"): capped to the screen
              className="w-full min-w-0 max-w-full rounded-md border border-slate-300 bg-white px-2 py-1.5 text-sm sm:w-auto"
            >
              <option value="">Choose a tool…</option>
              {toolNames.map((t) => {
                const block = authorBlock(grants, t);
                return (
                  <option key={t} value={t} disabled={!!block}>
                    {getTool(t)!.label} ({t}){block ? ` — not available: ${block}` : ""}
                  </option>
                );
              })}
            </select>
            <button
              type="button"
              disabled={!adding}
              onClick={() => addStep()}
              className="rounded-md border border-slate-400 px-3 py-1.5 text-sm disabled:opacity-50"
            >
              Add step
            </button>
          </div>
          <p className="mt-1 text-xs text-slate-600">
            You may add: {authorable.length ? authorable.join(", ") : "no tools"}. Tools you may not author are listed but disabled.
          </p>
          <p id="add-step-keys" className="mt-1 text-xs text-slate-600">
            Keys: <kbd className="font-mono">Alt+N</kbd> here, then a tool&apos;s first letter adds it (<kbd className="font-mono">Enter</kbd> when two tools share it) ·{" "}
            <kbd className="font-mono">Alt+J</kbd>/<kbd className="font-mono">Alt+K</kbd> next/previous step · <kbd className="font-mono">Ctrl+Enter</kbd> saves
          </p>
        </div>
        <div className="flex gap-2">
          <button type="submit" disabled={save.isPending} className="rounded-md bg-blue-700 px-4 py-2 text-sm font-medium text-white hover:bg-blue-800 disabled:opacity-60">
            {save.isPending ? "Saving…" : "Save edit"}
          </button>
          <button type="button" onClick={onCancel} disabled={save.isPending} className="rounded-md border border-slate-300 px-4 py-2 text-sm">
            Cancel
          </button>
        </div>
      </form>
    </FormProvider>
  );
}

/**
 * What "Start over from version N" did with the person's typed values: which were kept (each
 * step card marks them too), which steps they added, and each change that no longer applies to
 * the newer version — a removed step's values shown so they can be typed again, never dropped
 * without a word.
 */
function CarriedNotice({ carried, baseVersion, steps, getTool, desk }: { carried: CarryOver; baseVersion: number; steps: Pick<Step, "id" | "tool">[]; getTool: ToolCatalog["get"]; desk: AccountSnapshot }) {
  const toolLabel = (tool: string) => getTool(tool)?.label ?? tool;
  const fieldOf = (tool: string, arg: string) => getTool(tool)?.fields.find((f) => f.name === arg) ?? { name: arg, label: arg, kind: "text" as const };
  const stepNo = (id: string) => steps.findIndex((s) => s.id === id) + 1;
  return (
    <section aria-labelledby="carried-h" className="rounded-md border border-violet-300 bg-violet-50 p-3 text-sm text-violet-950" data-testid="carried-notice">
      <h3 id="carried-h" tabIndex={-1} className="font-semibold">
        Started over from version {baseVersion} with what you typed
      </h3>
      {carried.kept.length + carried.added.length === 0 ? (
        <p className="mt-1">None of your changes could be kept.</p>
      ) : (
        <p className="mt-1">
          Kept: {carried.kept.length} value{carried.kept.length === 1 ? "" : "s"} you changed
          {carried.added.length > 0 && ` and ${carried.added.length} step${carried.added.length === 1 ? "" : "s"} you added`} (marked in the steps below). Check them against version {baseVersion}, then save.
        </p>
      )}
      {carried.lost.length > 0 && (
        <>
          <p className="mt-2 font-semibold">No longer applies (not in the form):</p>
          <ul className="mt-1 list-disc space-y-1 pl-5" data-testid="carried-lost">
            {carried.lost.map((l, n) => (
              <li key={n}>
                {l.kind === "step_removed" && (
                  <>
                    The {toolLabel(l.tool)} step was removed in version {baseVersion}; what you had typed there:
                    <dl className="mt-0.5 grid grid-cols-[minmax(0,9rem)_1fr] gap-x-2">
                      {Object.entries(l.args).map(([arg, value]) => (
                        <div key={arg} className="contents">
                          <dt className="text-violet-900">{fieldOf(l.tool, arg).label}</dt>
                          <dd className="min-w-0 break-words">
                            <ArgValue field={fieldOf(l.tool, arg)} value={value} desk={desk} />
                          </dd>
                        </div>
                      ))}
                    </dl>
                  </>
                )}
                {l.kind === "arg_gone" && (
                  <>
                    Step {stepNo(l.stepId)} is no longer a {toolLabel(l.tool)} step in version {baseVersion}; your {fieldOf(l.tool, l.arg).label} (
                    <ArgValue field={fieldOf(l.tool, l.arg)} value={l.value} desk={desk} />) does not apply to it.
                  </>
                )}
                {l.kind === "removal_not_applied" && (
                  <>
                    You removed the {toolLabel(l.tool)} step; version {baseVersion} still has it (step {stepNo(l.stepId)}). Remove it again if you still mean to.
                  </>
                )}
              </li>
            ))}
          </ul>
        </>
      )}
    </section>
  );
}

/**
 * {@link PlanForm} over a run's catalog rebuilt in the browser from the imported tools' specs of
 * its catalog version (`imported`, as the server sends them; `catalogVersion` null when built-in
 * only). What the run page loads when someone starts editing (docs/design.md "Page weight").
 */
export function RunPlanForm({ imported, catalogVersion, ...props }: Omit<React.ComponentProps<typeof PlanForm>, "catalog"> & { imported: readonly ImportedToolSpec[]; catalogVersion: number | null }) {
  const [catalog] = useState(() => catalogWith(imported, catalogVersion));
  return <PlanForm {...props} catalog={catalog} />;
}
