"use client";

import { zodResolver } from "@hookform/resolvers/zod";
import { useMutation } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useState } from "react";
import { useFieldArray, useForm, type FieldErrors } from "react-hook-form";
import type { z } from "zod";
import { ApiError, apiFetch } from "@/lib/client/api";
import { EMPTY_RULE_FORM, gatePolicyFormSchema, toRuleForm } from "@/lib/gate-policy/form";
import { REQUIRABLE_FIELDS, type GatePolicy, type GatePolicyDraft } from "@/lib/gate-policy/rules";
import { formatMoney, type Currency } from "@/lib/money/format-money";
import type { DryRunResult } from "@/lib/api/gate-policy-endpoints";
import type { GatePolicyVersionView } from "@/lib/api/gate-policy-endpoints";
import type { CatalogToolOption } from "@/lib/tools/versioned-catalog";
import { buttonClass, FormError, quietButtonClass, SavedStatus, useSaveFocus } from "./form-bits";
import { toast } from "../toaster";

type FormIn = z.input<typeof gatePolicyFormSchema>;
const FIELD_LABEL: Record<(typeof REQUIRABLE_FIELDS)[number], string> = { title: "title", rationale: "rationale", evidence: "evidence", risk: "risk", stopCondition: "stop condition" };
const cell = "rounded-md border border-slate-300 px-2 py-1 text-sm aria-[invalid=true]:border-red-600";

/** The first error message of rule row `i`, if any. */
function rowError(errors: FieldErrors<FormIn>, i: number): string | null {
  const row = errors.rules?.[i] as Record<string, { message?: string }> | undefined;
  if (!row) return null;
  return Object.values(row).find((e) => e?.message)?.message ?? null;
}

/**
 * The gate policy editor: the live version's rules as an editable draft (one row per
 * rule: tool, desk, account, account tag, amount band, decision, whether the author may approve,
 * whether a supervisor may allow steps outside the task contract, the step fields it requires, the
 * date horizon, the record-age bound, expiry and escalation), a dry-run over the last N runs, save as the next version, and the history
 * of versions. The form is validated with the draft schema the server uses (lib/gate-policy/form.ts).
 * `tools`: the current catalog's tools, built-in and imported (a rule may name any of them).
 */
export function GatePolicyAdmin({
  live,
  versions,
  tools,
  prefill = null,
}: {
  live: GatePolicy;
  versions: GatePolicyVersionView[];
  tools: readonly CatalogToolOption[];
  /** One more rule in the draft (from a recurring edit): its tool, desk and note. */
  prefill?: { tool: string; desk: string; note: string } | null;
}) {
  const router = useRouter();
  const [formError, setFormError] = useState<string | null>(null);
  const done = useSaveFocus("gate-policy");
  const [lastRuns, setLastRuns] = useState(50);
  const [dryRun, setDryRun] = useState<DryRunResult | null>(null);
  const form = useForm<FormIn, unknown, GatePolicyDraft>({
    resolver: zodResolver(gatePolicyFormSchema),
    defaultValues: {
      baseVersion: live.version,
      note: prefill?.note ?? "",
      rules: [...live.rules.map((r) => toRuleForm(r)), ...(prefill ? [{ ...EMPTY_RULE_FORM, tool: prefill.tool, desk: prefill.desk, note: prefill.note }] : [])],
    },
  });
  const { register, control, handleSubmit, formState } = form;
  const { errors } = formState;
  const rules = useFieldArray({ control, name: "rules" });

  const save = useMutation({
    mutationFn: (draft: GatePolicyDraft) => apiFetch<{ policy: GatePolicy }>("/api/admin/gate-policy", { method: "PUT", body: draft }),
    onSuccess: ({ policy }) => {
      setFormError(null);
      toast(`Saved gate policy version ${policy.version}.`);
      done.saved(`Saved as version ${policy.version}.`);
      form.reset({ baseVersion: policy.version, note: "", rules: policy.rules.map((r) => toRuleForm(r)) });
      setDryRun(null);
      router.refresh();
    },
    onError: (e) => {
      setFormError(e instanceof ApiError ? e.message : "Saving failed; nothing changed.");
      done.refused();
    },
  });
  const preview = useMutation({
    mutationFn: (draft: GatePolicyDraft) => apiFetch<DryRunResult>("/api/admin/gate-policy/dry-run", { method: "POST", body: { rules: draft.rules, lastRuns } }),
    onSuccess: (r) => {
      setFormError(null);
      setDryRun(r);
    },
    onError: (e) => setFormError(e instanceof ApiError ? e.message : "The dry-run failed."),
  });

  return (
    <div className="mt-4 space-y-6">
      <section aria-labelledby="rules-h" className="rounded-lg border border-slate-200 bg-white p-4">
        <h2 id="rules-h" className="font-semibold">
          Rules of version {live.version} (draft)
        </h2>
        <p className="mt-1 text-sm text-slate-600">
          The most specific matching rule wins (most of tool, desk, account, tag, amount band and currency set); equal ones: the higher row. Without a match a tool keeps its built-in default. Irreversible tools are never auto. Required step fields refuse an agent&apos;s step that lacks them (a person&apos;s edit is only warned). The date horizon bounds how far ahead a date may lie (blank: 366 days). Max record age: how many minutes since its last sync a step&apos;s target record (an invoice, shipment or account) may be when someone approves or claims the step (blank: no bound; older, or never synced: refused until it is synced). Amounts: from (inclusive) and below (exclusive), in the rule&apos;s currency (USD when blank).
        </p>
        <form noValidate className="mt-3 space-y-3" onSubmit={handleSubmit((d) => save.mutate(d))}>
          <FormError id={done.errorId} message={formError} />
          <div className="relative max-w-full overflow-x-auto" data-scrolls-inside tabIndex={0} role="region" aria-label="Gate policy rules (scrolls sideways)">
            <table className="min-w-full text-sm">
              <caption className="sr-only">Gate policy rules</caption>
              <thead>
                <tr className="text-left text-xs text-slate-600">
                  <th scope="col" className="px-1 py-1">#</th>
                  <th scope="col" className="px-1 py-1">Tool</th>
                  <th scope="col" className="px-1 py-1">Desk</th>
                  <th scope="col" className="px-1 py-1">Account</th>
                  <th scope="col" className="px-1 py-1">Account tag</th>
                  <th scope="col" className="px-1 py-1">From amount</th>
                  <th scope="col" className="px-1 py-1">Below amount</th>
                  <th scope="col" className="px-1 py-1">Decision</th>
                  <th scope="col" className="px-1 py-1">Author may approve</th>
                  <th scope="col" className="px-1 py-1">Supervisor may allow outside the task contract</th>
                  <th scope="col" className="px-1 py-1">Signed by approver passkey</th>
                  <th scope="col" className="px-1 py-1">Required step fields</th>
                  <th scope="col" className="px-1 py-1">Date horizon (days)</th>
                  <th scope="col" className="px-1 py-1">Max record age (min)</th>
                  <th scope="col" className="px-1 py-1">Expiry (h)</th>
                  <th scope="col" className="px-1 py-1">Escalate (h)</th>
                  <th scope="col" className="px-1 py-1">Note</th>
                  <th scope="col" className="px-1 py-1"><span className="sr-only">Actions</span></th>
                </tr>
              </thead>
              <tbody>
                {rules.fields.map((f, i) => {
                  const err = rowError(errors, i);
                  const label = (what: string) => `Rule ${i + 1} ${what}`;
                  return (
                    <tr key={f.id} className="border-t border-slate-100 align-top" data-testid={`rule-${i}`}>
                      <td className="px-1 py-1 text-slate-500">{i + 1}</td>
                      <td className="px-1 py-1">
                        <select aria-label={label("tool")} {...register(`rules.${i}.tool`)} className={cell}>
                          <option value="">any tool</option>
                          {tools.map((t) => (
                            <option key={t.name} value={t.name}>
                              {t.name}
                              {t.imported ? " (imported)" : ""}
                            </option>
                          ))}
                        </select>
                      </td>
                      <td className="px-1 py-1"><input aria-label={label("desk")} placeholder="any" {...register(`rules.${i}.desk`)} className={`${cell} w-24`} /></td>
                      <td className="px-1 py-1"><input aria-label={label("account")} placeholder="any" {...register(`rules.${i}.accountId`)} className={`${cell} w-32`} /></td>
                      <td className="px-1 py-1"><input aria-label={label("account tag")} placeholder="any" {...register(`rules.${i}.accountTag`)} className={`${cell} w-28`} /></td>
                      <td className="px-1 py-1"><input aria-label={label("from amount")} inputMode="decimal" placeholder="—" {...register(`rules.${i}.minAmount`)} aria-invalid={!!errors.rules?.[i]?.minAmount} className={`${cell} w-24`} /></td>
                      <td className="px-1 py-1"><input aria-label={label("below amount")} inputMode="decimal" placeholder="—" {...register(`rules.${i}.maxAmount`)} aria-invalid={!!errors.rules?.[i]?.maxAmount} className={`${cell} w-24`} /></td>
                      <td className="px-1 py-1">
                        <select aria-label={label("decision")} {...register(`rules.${i}.decision`)} className={cell}>
                          <option value="auto">auto</option>
                          <option value="one">one approver</option>
                          <option value="two">two distinct approvers</option>
                        </select>
                      </td>
                      <td className="px-1 py-1 text-center"><input type="checkbox" aria-label={label("author may approve")} {...register(`rules.${i}.authorMayApprove`)} /></td>
                      <td className="px-1 py-1 text-center"><input type="checkbox" aria-label={label("supervisor may allow steps outside the task contract")} {...register(`rules.${i}.supervisorMayAllowOutsideContract`)} /></td>
                      <td className="px-1 py-1 text-center"><input type="checkbox" aria-label={label("requires the approver's passkey signature")} {...register(`rules.${i}.requireSignature`)} /></td>
                      <td className="px-1 py-1">
                        <fieldset className="min-w-36">
                          <legend className="sr-only">{label("required step fields")}</legend>
                          {REQUIRABLE_FIELDS.map((k) => (
                            <label key={k} className="flex items-center gap-1 text-xs whitespace-nowrap">
                              <input type="checkbox" value={k} aria-label={label(`requires ${FIELD_LABEL[k]}`)} {...register(`rules.${i}.requiredFields`)} />
                              {FIELD_LABEL[k]}
                            </label>
                          ))}
                        </fieldset>
                      </td>
                      <td className="px-1 py-1"><input aria-label={label("date horizon days")} inputMode="numeric" placeholder="366" {...register(`rules.${i}.horizonDays`)} aria-invalid={!!errors.rules?.[i]?.horizonDays} className={`${cell} w-16`} /></td>
                      <td className="px-1 py-1"><input aria-label={label("max record age minutes")} inputMode="numeric" placeholder="none" title="Minutes since its last sync a step's target record may be at approval and claim (blank: no bound)" {...register(`rules.${i}.maxRecordAgeMinutes`)} aria-invalid={!!errors.rules?.[i]?.maxRecordAgeMinutes} className={`${cell} w-16`} /></td>
                      <td className="px-1 py-1"><input aria-label={label("expiry hours")} inputMode="decimal" {...register(`rules.${i}.expiryHours`)} className={`${cell} w-16`} /></td>
                      <td className="px-1 py-1"><input aria-label={label("escalation hours")} inputMode="decimal" {...register(`rules.${i}.escalateHours`)} className={`${cell} w-16`} /></td>
                      <td className="px-1 py-1">
                        <input aria-label={label("note")} {...register(`rules.${i}.note`)} className={`${cell} w-40`} />
                        {err && (
                          <p role="alert" className="mt-1 text-xs text-red-700">
                            {err}
                          </p>
                        )}
                      </td>
                      <td className="px-1 py-1">
                        <button type="button" className={quietButtonClass} onClick={() => rules.remove(i)} aria-label={`Remove rule ${i + 1}`}>
                          Remove
                        </button>
                      </td>
                    </tr>
                  );
                })}
              </tbody>
            </table>
          </div>
          <button type="button" className={quietButtonClass} onClick={() => rules.append({ ...EMPTY_RULE_FORM })}>
            Add rule
          </button>
          <div className="flex flex-wrap items-end gap-3 border-t border-slate-100 pt-3">
            <div>
              <label htmlFor="policy-note" className="block text-sm font-medium">
                Why it changes
              </label>
              <input id="policy-note" {...register("note")} aria-invalid={!!errors.note} aria-describedby={errors.note ? "policy-note-error" : undefined} className={`${cell} mt-1 w-80`} />
              {errors.note && (
                <p id="policy-note-error" className="mt-1 text-sm text-red-700">
                  {errors.note.message}
                </p>
              )}
            </div>
            <div>
              <label htmlFor="dry-run-n" className="block text-sm font-medium">
                Runs to replay
              </label>
              <input id="dry-run-n" type="number" min={1} max={200} value={lastRuns} onChange={(e) => setLastRuns(Math.max(1, Math.min(200, Number(e.target.value) || 1)))} className={`${cell} mt-1 w-20`} />
            </div>
            <button
              type="button"
              className={quietButtonClass}
              disabled={preview.isPending}
              onClick={() => {
                // A dry-run needs valid rules, not a note: the same schema, with a placeholder note.
                const parsed = gatePolicyFormSchema.safeParse({ ...form.getValues(), note: form.getValues("note") || "dry-run" });
                if (parsed.success) preview.mutate(parsed.data);
                else void form.trigger("rules");
              }}
            >
              {preview.isPending ? "Replaying…" : "Dry-run"}
            </button>
            <button type="submit" className={buttonClass} disabled={save.isPending}>
              {save.isPending ? "Saving…" : `Save as version ${live.version + 1}`}
            </button>
          </div>
          <SavedStatus id={done.statusId} message={done.message} />
        </form>
      </section>

      {dryRun && (
        <section aria-labelledby="dry-h" className="rounded-lg border border-slate-200 bg-white p-4" data-testid="dry-run">
          <h2 id="dry-h" className="font-semibold">
            Dry-run: {dryRun.changed.length} of the last {dryRun.runsExamined} runs would be gated differently
          </h2>
          {dryRun.changed.length > 0 && (
            <div className="relative max-w-full overflow-x-auto" data-scrolls-inside tabIndex={0} role="region" aria-label="Dry-run results (scrolls sideways)">
            <table className="mt-2 min-w-full text-sm">
              <caption className="sr-only">Runs the draft gates differently</caption>
              <thead>
                <tr className="text-left text-xs text-slate-600">
                  <th scope="col" className="px-1 py-1">Run</th>
                  <th scope="col" className="px-1 py-1">Ticket</th>
                  <th scope="col" className="px-1 py-1">Step</th>
                  <th scope="col" className="px-1 py-1">Now (v{dryRun.liveVersion})</th>
                  <th scope="col" className="px-1 py-1">Draft</th>
                </tr>
              </thead>
              <tbody>
                {dryRun.changed.flatMap((c) =>
                  c.steps.map((s) => (
                    <tr key={`${c.runId}:${s.stepId}`} className="border-t border-slate-100">
                      <td className="px-1 py-1 font-mono text-xs">{c.runId}</td>
                      <td className="px-1 py-1">#{c.ticketId}</td>
                      <td className="px-1 py-1">
                        {s.tool}
                        {s.amount ? ` ${formatMoney({ minor: s.amount.minor, currency: s.amount.currency as Currency })}` : ""}
                      </td>
                      <td className="px-1 py-1">{s.before}</td>
                      <td className="px-1 py-1 font-medium">{s.after}</td>
                    </tr>
                  )),
                )}
              </tbody>
            </table>
            </div>
          )}
        </section>
      )}

      <section aria-labelledby="history-h" className="rounded-lg border border-slate-200 bg-white p-4">
        <h2 id="history-h" className="font-semibold">
          History
        </h2>
        <ul className="mt-2 space-y-1 text-sm">
          {versions.map((v) => (
            <li key={v.version}>
              <span className="font-medium">Version {v.version}</span> · {v.ruleCount} rules · {v.createdBy?.name ?? "seeded"} · <time dateTime={v.createdAt}>{v.createdAt.replace("T", " ").slice(0, 16)} UTC</time>
              {v.note ? ` · ${v.note}` : ""}
            </li>
          ))}
        </ul>
        <p className="mt-2 text-xs text-slate-600">Every save is in the audit log (admin change, before and after). Runs keep the version they were gated under; each approval records its version.</p>
      </section>
    </div>
  );
}
