"use client";

import { zodResolver } from "@hookform/resolvers/zod";
import { useMutation } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useState } from "react";
import { useFieldArray, useForm, useWatch, type FieldErrors } from "react-hook-form";
import { ApiError, apiFetch } from "@/lib/client/api";
import { intentCatalogFormSchema, MAX_INTENTS, type IntentCatalogDraft, type IntentCatalogForm } from "@/lib/task-contract/intent-catalog";
import type { IntentCatalogView } from "@/lib/api/desk-endpoints";
import { buttonClass, FormError, inputClass, quietButtonClass } from "./form-bits";
import { toast } from "../toaster";

/** The first error message of intent `i`, if any (name, label, description or a tool). */
function intentError(errors: FieldErrors<IntentCatalogForm>, i: number): string | null {
  const row = errors.intents?.[i] as Record<string, { message?: string } | { message?: string }[]> | undefined;
  if (!row) return null;
  for (const e of Object.values(row)) {
    if (Array.isArray(e)) {
      const first = e.find((x) => x?.message);
      if (first?.message) return first.message;
    } else if (e?.message) return e.message;
  }
  return null;
}

const toForm = (v: IntentCatalogView): IntentCatalogForm => ({
  baseDigest: v.digest,
  note: "",
  defaultIntent: v.defaultIntent ?? "",
  intents: v.intents.map((i) => ({ name: i.name, label: i.label, description: i.description, permittedTools: [...i.permittedTools] })),
});

/**
 * The intent catalog editor of one desk: one card per intent (name, label, description and the
 * tools it permits, as checkboxes over the current catalog's tools), add and remove, and a save
 * that replaces the catalog whole with a note (audited). The form is validated with the draft
 * schema the server uses (lib/task-contract/intent-catalog.ts); a save that lost a race answers
 * 409 and the editor offers the current catalog. A select sets the desk's default intent, the
 * intent a task gets when the integration posts no contract ("" = none: replies and notes only).
 */
export function IntentCatalogAdmin({ catalog }: { catalog: IntentCatalogView }) {
  const router = useRouter();
  const [formError, setFormError] = useState<string | null>(null);
  const form = useForm<IntentCatalogForm, unknown, IntentCatalogDraft>({ resolver: zodResolver(intentCatalogFormSchema), defaultValues: toForm(catalog) });
  const { register, control, handleSubmit, formState } = form;
  const { errors } = formState;
  const intents = useFieldArray({ control, name: "intents" });
  const saved = new Set(catalog.intents.map((i) => i.name));
  const named = (useWatch({ control, name: "intents" }) ?? []).map((i) => i.name).filter((n) => n.length > 0);

  const save = useMutation({
    mutationFn: (draft: IntentCatalogDraft) => apiFetch<IntentCatalogView>(`/api/admin/desks/${catalog.desk.id}/intents`, { method: "PUT", body: draft }),
    onSuccess: (v) => {
      setFormError(null);
      toast(`Saved the intent catalog of ${v.desk.name}: ${v.intents.length} intents.`);
      form.reset(toForm(v));
      router.refresh();
    },
    onError: (e) => {
      if (e instanceof ApiError && e.code === "stale_intent_catalog") {
        setFormError(`${e.message} Nothing was saved; reload the page to see the current catalog.`);
        return;
      }
      if (e instanceof ApiError && Array.isArray(e.details?.issues)) {
        for (const issue of e.details.issues as { path?: string; message?: string }[]) {
          if (issue.path === "defaultIntent") form.setError("defaultIntent", { type: "server", message: issue.message });
          const m = /^intents\.(\d+)\.(name|label|description|permittedTools)/.exec(issue.path ?? "");
          if (m) form.setError(`intents.${Number(m[1])}.${m[2] as "name"}`, { type: "server", message: issue.message });
        }
      }
      setFormError(e instanceof ApiError ? `${e.message} Nothing was saved.` : "Saving failed; nothing changed.");
    },
  });

  return (
    <form noValidate className="mt-4 space-y-4" onSubmit={handleSubmit((d) => save.mutate(d))} aria-labelledby="intents-h">
      <h2 id="intents-h" className="font-semibold">
        Intents of {catalog.desk.name} <span className="text-sm font-normal text-slate-600">({intents.fields.length})</span>
      </h2>
      <p className="text-sm text-slate-600">
        A task&apos;s contract names one of these intents; a step whose tool the intent does not permit is refused (<code>outside_task_intent</code>) unless a gate-policy rule lets a supervisor decide it. Removing an intent leaves the tasks that name it permitting no tool until a supervisor sets another.
      </p>
      <FormError message={formError} />
      {intents.fields.length === 0 && <p className="rounded-lg border border-dashed border-slate-300 p-4 text-sm text-slate-600">No intents yet: this desk&apos;s task contracts cannot name one, and its tasks without a contract permit only replies and notes. Add the first intent.</p>}
      <ol className="space-y-3">
        {intents.fields.map((f, i) => {
          const err = intentError(errors, i);
          const label = (what: string) => `Intent ${i + 1} ${what}`;
          return (
            <li key={f.id} className="rounded-lg border border-slate-200 bg-white p-3" data-testid={`intent-${i}`}>
              <div className="grid grid-cols-1 gap-3 sm:grid-cols-[minmax(0,14rem)_minmax(0,14rem)_minmax(0,1fr)]">
                <label className="block text-sm font-medium">
                  Name
                  <input aria-label={label("name")} autoComplete="off" readOnly={saved.has(f.name)} {...register(`intents.${i}.name`)} aria-invalid={!!errors.intents?.[i]?.name} className={`${inputClass} font-mono read-only:bg-slate-50`} />
                </label>
                <label className="block text-sm font-medium">
                  Label
                  <input aria-label={label("label")} autoComplete="off" {...register(`intents.${i}.label`)} aria-invalid={!!errors.intents?.[i]?.label} className={inputClass} />
                </label>
                <label className="block text-sm font-medium">
                  Description
                  <input aria-label={label("description")} autoComplete="off" {...register(`intents.${i}.description`)} aria-invalid={!!errors.intents?.[i]?.description} className={inputClass} />
                </label>
              </div>
              <fieldset className="mt-3">
                <legend className="text-sm font-medium">Tools it permits</legend>
                <div className="mt-1 flex flex-wrap gap-x-4 gap-y-1">
                  {catalog.tools.map((t) => (
                    <label key={t.name} className="flex items-center gap-1 text-sm">
                      <input type="checkbox" value={t.name} aria-label={`${label("permits")} ${t.name}`} {...register(`intents.${i}.permittedTools`)} />
                      <span className="font-mono text-xs">{t.name}</span>
                      {t.imported && <span className="text-xs text-slate-500">(imported)</span>}
                    </label>
                  ))}
                  {catalog.notInCatalog.map((t) => (
                    <label key={t} className="flex items-center gap-1 text-sm">
                      <input type="checkbox" value={t} aria-label={`${label("permits")} ${t}`} {...register(`intents.${i}.permittedTools`)} />
                      <span className="font-mono text-xs">{t}</span>
                      <span className="text-xs text-amber-800">(not in the catalog now)</span>
                    </label>
                  ))}
                </div>
              </fieldset>
              {err && (
                <p role="alert" className="mt-2 text-sm text-red-700">
                  {err}
                </p>
              )}
              <div className="mt-2 flex flex-wrap items-center gap-2">
                <button type="button" className={quietButtonClass} onClick={() => intents.remove(i)} aria-label={`Remove intent ${i + 1}${f.name ? ` (${f.name})` : ""}`}>
                  Remove
                </button>
                {saved.has(f.name) && <span className="text-xs text-slate-600">Tasks that name {f.name} permit no tool once it is removed.</span>}
              </div>
            </li>
          );
        })}
      </ol>
      <button type="button" className={quietButtonClass} disabled={intents.fields.length >= MAX_INTENTS} onClick={() => intents.append({ name: "", label: "", description: "", permittedTools: [] })}>
        Add intent
      </button>
      <div className="border-t border-slate-100 pt-3 sm:max-w-md">
        <label htmlFor="intents-default" className="block text-sm font-medium">
          Default intent (a task without a contract)
        </label>
        <select id="intents-default" {...register("defaultIntent")} aria-invalid={!!errors.defaultIntent} aria-describedby={errors.defaultIntent ? "intents-default-error intents-default-hint" : "intents-default-hint"} className={inputClass}>
          <option value="">None: replies and notes only</option>
          {named.map((n) => (
            <option key={n} value={n}>
              {n}
            </option>
          ))}
        </select>
        <p id="intents-default-hint" className="mt-1 text-sm text-slate-600">
          When the integration opens a task without a contract, its plans are judged with this intent; with none, only replies and notes (and hand-offs to a team) are permitted. The agent can never set it.
        </p>
        {errors.defaultIntent && (
          <p id="intents-default-error" className="mt-1 text-sm text-red-700">
            {errors.defaultIntent.message}
          </p>
        )}
      </div>
      <div className="flex flex-wrap items-end gap-3 border-t border-slate-100 pt-3">
        <div className="min-w-0 flex-1 sm:max-w-md">
          <label htmlFor="intents-note" className="block text-sm font-medium">
            Why it changes
          </label>
          <input id="intents-note" {...register("note")} aria-invalid={!!errors.note} aria-describedby={errors.note ? "intents-note-error" : undefined} className={inputClass} />
          {errors.note && (
            <p id="intents-note-error" className="mt-1 text-sm text-red-700">
              {errors.note.message}
            </p>
          )}
        </div>
        <button type="submit" className={buttonClass} disabled={save.isPending}>
          {save.isPending ? "Saving…" : "Save catalog"}
        </button>
      </div>
    </form>
  );
}
