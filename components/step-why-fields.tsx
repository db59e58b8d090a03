"use client";

import { useEffect, useState } from "react";
import { useFormContext, useWatch } from "react-hook-form";
import type { AccountSnapshot } from "@/lib/desk/snapshot";
import { derivedTitle, type PlanFormValues } from "@/lib/plan/form-schema";
import type { EvidenceRef, StepReasonKey } from "@/lib/plan/schema";
import type { ToolCatalog } from "@/lib/tools/versioned-catalog";
import { completenessOf } from "@/lib/validation/completeness";

const inputCls =
  "mt-1 w-full rounded-md border border-slate-300 bg-white px-2.5 py-1.5 text-sm aria-[invalid=true]:border-red-600 aria-[invalid=true]:ring-1 aria-[invalid=true]:ring-red-600";

const LABEL: Record<StepReasonKey, string> = { title: "Title", rationale: "Rationale", evidence: "Evidence", risk: "Risk", stopCondition: "Stop condition" };
const HINT: Record<StepReasonKey, string> = {
  title: "A short name for the step",
  rationale: "Why the step is needed",
  evidence: "Records the step rests on",
  risk: "What could go wrong",
  stopCondition: "When the executor must not do it",
};
const RECORD_TYPES = ["ticket", "invoice", "shipment", "account"] as const;
/** The order the fields are asked in: the ones a person types (risk, stop condition) right after the title, before the optional rationale and the prefilled evidence. */
const ORDER: readonly StepReasonKey[] = ["title", "risk", "stopCondition", "rationale", "evidence"];

/** The error message react-hook-form holds at `steps.N.<key>` (a server refusal lands there), if any. */
function messageAt(errors: unknown, index: number, key: string): string | undefined {
  const step = (errors as { steps?: Record<number, Record<string, unknown>> } | undefined)?.steps?.[index];
  const e = step?.[key] as { message?: unknown } | undefined;
  return e && typeof e.message === "string" && e.message ? e.message : undefined;
}

/**
 * The "Why" section of one step in the edit form: its title, risk, stop condition, rationale and
 * evidence (records by type and id), "n of 5 filled", and the fields the gate policy requires of
 * this step marked. A person's added step starts with a title derived from what it does (kept in
 * step with the arguments until the person types their own) and the task's ticket as evidence.
 * A server refusal (`missing_required_field`, `evidence_missing` at `steps.N.<field>`) marks its
 * field; nothing typed is touched. While the gate policy requires nothing of the step and nothing
 * was refused, the fields are folded behind "Add reasons (optional)".
 */
export function StepWhyFields({ index, required, desk, catalog }: { index: number; required: readonly StepReasonKey[]; desk: AccountSnapshot; catalog: ToolCatalog }) {
  const { register, setValue, control, formState, clearErrors } = useFormContext<PlanFormValues>();
  const step = useWatch({ control, name: `steps.${index}` });
  const evidence = (step?.evidence ?? []) as EvidenceRef[];
  const c = completenessOf({ title: step?.title, rationale: step?.rationale, evidence, risk: step?.risk, stopCondition: step?.stopCondition }, required);
  const argsKey = JSON.stringify(step?.args ?? {});

  // An added step's title follows its arguments ("Issue refund on in_74119") until the person types one.
  useEffect(() => {
    if (!step?.titleAuto) return;
    const next = derivedTitle(step.tool, step.args ?? {}, desk, catalog);
    if (next !== step.title) setValue(`steps.${index}.title`, next);
    // eslint-disable-next-line react-hooks/exhaustive-deps -- follows the arguments (argsKey) and the tool only
  }, [argsKey, step?.tool, step?.titleAuto]);

  const [recordType, setRecordType] = useState<string>("invoice");
  const [recordId, setRecordId] = useState("");
  const addEvidence = () => {
    const id = recordId.trim();
    if (!id) return;
    setValue(`steps.${index}.evidence`, [...evidence, { recordType, recordId: id }], { shouldDirty: true });
    clearErrors(`steps.${index}.evidence`);
    setRecordId("");
  };
  const removeEvidence = (k: number) => setValue(`steps.${index}.evidence`, evidence.filter((_, n) => n !== k), { shouldDirty: true });

  const idOf = (key: string) => `steps.${index}.${key}`;
  const label = (key: StepReasonKey) => (
    <>
      {LABEL[key]}
      {required.includes(key) ? (
        <span className="ml-1 text-xs font-normal text-red-800">required by the gate policy</span>
      ) : (
        <span className="ml-1 text-xs font-normal text-slate-500">optional</span>
      )}
    </>
  );
  const text = (key: "title" | "risk" | "stopCondition" | "rationale", multiline = false) => {
    const message = messageAt(formState.errors, index, key);
    const props = {
      id: idOf(key),
      className: inputCls,
      "aria-invalid": message ? true : undefined,
      "aria-describedby": message ? `${idOf(key)}-error` : `${idOf(key)}-hint`,
      "aria-required": required.includes(key) || undefined,
      ...register(`steps.${index}.${key}`, {
        onChange: () => {
          if (key === "title" && step?.titleAuto) setValue(`steps.${index}.titleAuto`, false);
          if (message) clearErrors(`steps.${index}.${key}`);
        },
      }),
    };
    return (
      <div key={key} className={multiline ? "sm:col-span-2" : ""}>
        <label htmlFor={idOf(key)} className="block text-sm font-medium">
          {label(key)}
        </label>
        {multiline ? <textarea rows={2} maxLength={4000} {...props} /> : <input type="text" maxLength={key === "title" ? 200 : 2000} {...props} />}
        {message ? (
          <p id={`${idOf(key)}-error`} className="mt-1 text-sm text-red-700">
            {message}
          </p>
        ) : (
          <p id={`${idOf(key)}-hint`} className="mt-0.5 text-xs text-slate-600">
            {HINT[key]}
          </p>
        )}
      </div>
    );
  };
  const evidenceMessage = messageAt(formState.errors, index, "evidence");
  const anyMessage = ORDER.some((k) => messageAt(formState.errors, index, k));
  // Folded while the gate policy requires nothing of the step and nothing was refused: the fields
  // stay one press away ("Add reasons"), and open by themselves when a tool change or a refusal needs them.
  const [shown, setShown] = useState(false);
  const open = shown || required.length > 0 || anyMessage;

  return (
    <fieldset className="mt-4 rounded-md border border-slate-200 bg-slate-50 p-3" data-testid={`why-${index}`} aria-describedby={`steps.${index}.why-count`}>
      <legend className="px-1 text-sm font-semibold">Why</legend>
      <p id={`steps.${index}.why-count`} className="text-xs text-slate-700" data-testid={`why-count-${index}`}>
        <span className={c.missingRequired.length ? "font-medium text-red-800" : "font-medium"}>
          {c.filled} of {c.total} filled
        </span>
        {required.length > 0 && (
          <span>
            {" "}
            · the gate policy requires {ORDER.filter((k) => required.includes(k)).map((k) => `${LABEL[k].toLowerCase()}${c.missingRequired.includes(k) ? " (missing)" : ""}`).join(", ")}
          </span>
        )}
      </p>
      {required.length === 0 && !anyMessage && (
        <button
          type="button"
          className="mt-1 rounded px-1 text-sm text-slate-800 underline underline-offset-2 hover:bg-slate-100"
          aria-expanded={open}
          aria-controls={`steps.${index}.why-fields`}
          data-testid={`why-toggle-${index}`}
          onClick={() => setShown((v) => !v)}
        >
          {open ? "Hide the reasons" : "Add reasons (optional)"}
        </button>
      )}
      <div id={`steps.${index}.why-fields`} className={open ? "mt-2 grid gap-3 sm:grid-cols-2" : "hidden"}>
        {ORDER.map((key) => {
          if (key !== "evidence") return text(key, key === "rationale");
          return (
            <div key={key} className="sm:col-span-2" role="group" aria-labelledby={`${idOf("evidence")}-label`} aria-describedby={evidenceMessage ? `${idOf("evidence")}-error` : undefined}>
              <p id={`${idOf("evidence")}-label`} className="block text-sm font-medium">
                {label("evidence")}
              </p>
              {evidence.length > 0 ? (
                <ul className="mt-1 flex flex-wrap gap-2" aria-label={`Evidence of step ${index + 1}`}>
                  {evidence.map((e, k) => (
                    <li key={k} className="flex min-w-0 max-w-full items-center gap-1 rounded border border-slate-300 bg-white px-2 py-0.5 text-sm" data-testid="why-evidence">
                      {"readStepId" in e ? (
                        <span>
                          read step <code className="font-mono">{e.readStepId}</code>
                        </span>
                      ) : (
                        <span>
                          {e.recordType} <code className="break-all font-mono">{e.recordId}</code>
                        </span>
                      )}
                      <button type="button" className="ml-1 rounded px-1 text-xs text-red-800 hover:bg-red-50" aria-label={`Remove evidence ${"readStepId" in e ? e.readStepId : `${e.recordType} ${e.recordId}`} from step ${index + 1}`} onClick={() => removeEvidence(k)}>
                        ✕
                      </button>
                    </li>
                  ))}
                </ul>
              ) : (
                <p className="mt-1 text-sm text-slate-600">No records named.</p>
              )}
              <div className="mt-1 flex flex-wrap items-end gap-2">
                <label className="text-xs">
                  <span className="block text-slate-700">Record type</span>
                  <select className="mt-0.5 rounded-md border border-slate-300 bg-white px-2 py-1 text-sm" value={recordType} onChange={(e) => setRecordType(e.target.value)} aria-label={`Evidence record type, step ${index + 1}`}>
                    {RECORD_TYPES.map((t) => (
                      <option key={t} value={t}>
                        {t}
                      </option>
                    ))}
                  </select>
                </label>
                <label className="min-w-0 flex-1 basis-40 text-xs">
                  <span className="block text-slate-700">Record id</span>
                  <input
                    type="text"
                    id={idOf("evidence")}
                    value={recordId}
                    maxLength={128}
                    onChange={(e) => setRecordId(e.target.value)}
                    onKeyDown={(e) => {
                      if (e.key === "Enter" && !e.ctrlKey && !e.metaKey) {
                        e.preventDefault();
                        addEvidence();
                      }
                    }}
                    aria-label={`Evidence record id, step ${index + 1}`}
                    aria-invalid={evidenceMessage ? true : undefined}
                    className="mt-0.5 w-full rounded-md border border-slate-300 bg-white px-2 py-1 text-sm aria-[invalid=true]:border-red-600"
                    placeholder="e.g. in_74119"
                  />
                </label>
                <button type="button" onClick={addEvidence} disabled={!recordId.trim()} className="rounded-md border border-slate-400 px-2 py-1 text-sm disabled:opacity-50">
                  Add evidence
                </button>
              </div>
              {evidenceMessage ? (
                <p id={`${idOf("evidence")}-error`} className="mt-1 text-sm text-red-700">
                  {evidenceMessage}
                </p>
              ) : (
                <p className="mt-0.5 text-xs text-slate-600">{HINT.evidence}</p>
              )}
            </div>
          );
        })}
      </div>
    </fieldset>
  );
}
