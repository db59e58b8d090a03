"use client";

import { useRef, useState } from "react";
import { Controller, useFormContext, useWatch, type FieldError } from "react-hook-form";
import type { AccountSnapshot } from "@/lib/desk/snapshot";
import { formatMoney, minorToDecimal, type Currency, type Money } from "@/lib/money/format-money";
import { parseMoneyInput, stripMoneyInput } from "@/lib/money/money-input";
import type { PlanFormValues } from "@/lib/plan/form-schema";
import type { Grant } from "@/lib/people/grants";
import type { FieldSpec, ToolDefinition } from "@/lib/tools/types";
import { checkMoneyField } from "@/lib/validation/money-field-check";
import { followFrom } from "@/lib/time/date-window";
import { addDaysIso, isIsoDate } from "@/lib/time/dates";
import { textLimit } from "@/lib/tools/text-limit";
import { formatIsoDate } from "@/lib/text/format";
import { CharacterCount } from "./character-count";
import { RecordIdField, useInvoiceFees } from "./record-id-field";
import { SchemaField } from "./schema-field";

const inputCls =
  "mt-1 w-full rounded-md border border-slate-300 bg-white px-2.5 py-1.5 text-sm aria-[invalid=true]:border-red-600 aria-[invalid=true]:ring-1 aria-[invalid=true]:ring-red-600";

/** Reads the nested error at `path` from react-hook-form's error tree. */
function errorAt(errors: unknown, path: string): FieldError | undefined {
  let cur: unknown = errors;
  for (const seg of path.split(".")) {
    if (cur == null || typeof cur !== "object") return undefined;
    cur = (cur as Record<string, unknown>)[seg];
  }
  if (cur && typeof cur === "object" && "message" in cur) return cur as FieldError;
  return undefined;
}

/** First error message under `path` (the field itself or any nested part). */
function firstMessage(errors: unknown, path: string): string | undefined {
  const e = errorAt(errors, path);
  if (e?.message) return String(e.message);
  let cur: unknown = errors;
  for (const seg of path.split(".")) {
    if (cur == null || typeof cur !== "object") return undefined;
    cur = (cur as Record<string, unknown>)[seg];
  }
  const walk = (v: unknown): string | undefined => {
    if (!v || typeof v !== "object") return undefined;
    if ("message" in v && (v as FieldError).message) return String((v as FieldError).message);
    for (const child of Object.values(v)) {
      const m = walk(child);
      if (m) return m;
    }
    return undefined;
  };
  return walk(cur);
}

function ErrorText({ id, message }: { id: string; message?: string }) {
  if (!message) return null;
  return (
    <p id={id} className="mt-1 text-sm text-red-700">
      {message}
    </p>
  );
}

/**
 * Money input: a text box bound to `{minor, currency, input}` (`input` = the text as typed,
 * client-only, stripped before sending). The text is read by `parseMoneyInput` (the currency's
 * conventions, lib/money/money-input.ts); a cleared box is missing, never 0.
 */
function MoneyInput({ name, label, describedBy, invalid }: { name: string; label: string; describedBy: string; invalid: boolean }) {
  const { control } = useFormContext<PlanFormValues>();
  return (
    <Controller
      control={control}
      name={name as `steps.${number}.args.${string}`}
      render={({ field }) => {
        const value = (field.value ?? {}) as Partial<Money>;
        const currency = (value.currency ?? "USD") as Currency;
        return (
          <MoneyText
            id={name}
            label={label}
            value={value}
            currency={currency}
            describedBy={describedBy}
            invalid={invalid}
            onBlur={field.onBlur}
            onChange={(minor, input) => field.onChange({ ...value, currency, minor, input })}
          />
        );
      }}
    />
  );
}

function MoneyText(props: {
  id: string;
  label: string;
  value: Partial<Money>;
  currency: Currency;
  describedBy: string;
  invalid: boolean;
  onBlur: () => void;
  onChange: (minor: number | undefined, input: string | undefined) => void;
}) {
  const { value, currency } = props;
  const shownText = (minor: number) => minorToDecimal(minor, currency).replace(".", currency === "USD" || currency === "GBP" ? "." : ",");
  const [text, setText] = useState(() => (typeof value.minor === "number" && Number.isFinite(value.minor) ? shownText(value.minor) : ""));
  // When the form is reset from outside (e.g. "start over from the newer plan"), show the new value
  // (adjusted while rendering, when the value or currency changed — not in an effect).
  const [shown, setShown] = useState<{ minor: number | undefined; currency: Currency }>({ minor: value.minor, currency });
  if (!Object.is(shown.minor, value.minor) || shown.currency !== currency) {
    // Object.is: NaN (text that does not parse) equals NaN, so typing bad text settles instead of re-rendering forever
    setShown({ minor: value.minor, currency });
    const parsed = parseMoneyInput(text, currency);
    const parsedMinor = parsed.ok ? parsed.minor : null;
    if (typeof value.minor === "number" && Number.isFinite(value.minor) && parsedMinor !== value.minor) setText(shownText(value.minor));
    if (value.minor === undefined && parsedMinor !== null) setText("");
  }
  const live = text.trim() === "" ? null : parseMoneyInput(text, currency);
  return (
    <div className="mt-1">
    <div className="flex items-center gap-2">
      <input
        id={props.id}
        inputMode="decimal"
        autoComplete="off"
        value={text}
        aria-invalid={props.invalid}
        aria-describedby={props.describedBy}
        onBlur={props.onBlur}
        onChange={(e) => {
          setText(e.target.value);
          const empty = e.target.value.trim() === "";
          const r = parseMoneyInput(e.target.value, currency);
          props.onChange(empty ? undefined : r.ok ? r.minor : Number.NaN, empty ? undefined : e.target.value);
        }}
        className={inputCls.replace("mt-1 ", "") + " max-w-[12rem] tabular-nums"}
      />
      <span className="text-sm text-slate-600">{currency}</span>
    </div>
      {/* live reading of the text: the amount it means, or (until the form shows its own message) what is wrong */}
      {live?.ok && (
        <p className="mt-1 text-sm text-slate-700" data-testid="money-reading" aria-live="polite">
          = {live.display}
        </p>
      )}
      {live && !live.ok && !props.invalid && (
        <p className="mt-1 text-sm text-red-700" data-testid="money-reading" aria-live="polite">
          {live.message}
        </p>
      )}
    </div>
  );
}

/** One argument of one step: where it is, the page's account snapshot, and (for inline money checks) the step's tool, the viewer's grants and the run. */
export interface StepFieldProps {
  stepIndex: number;
  field: FieldSpec;
  desk: AccountSnapshot;
  ticketAccountId: string;
  tool?: ToolDefinition;
  grants?: readonly Grant[];
  runId?: string;
}

/**
 * What the server would say about this amount before it is saved (open balance, money in flight,
 * the viewer's limits), from the same rules (lib/validation/money-field-check.ts), under the field.
 */
function MoneyFieldNotes({ stepIndex, field, tool, desk, grants, runId }: { stepIndex: number; field: string; tool: ToolDefinition; desk: AccountSnapshot; grants: readonly Grant[]; runId?: string }) {
  const { control, getFieldState } = useFormContext<PlanFormValues>();
  const args = useWatch({ control, name: `steps.${stepIndex}.args` as const }) as Record<string, unknown> | undefined;
  const changed = getFieldState(`steps.${stepIndex}.args.${field}` as `steps.${number}.args.${string}`).isDirty;
  const value = args?.[field] as { minor?: unknown } | undefined;
  if (!args || typeof value?.minor !== "number" || !Number.isFinite(value.minor)) return null;
  const notes = checkMoneyField({ tool, field, args: stripMoneyInput(args), desk, grants, runId, changed });
  if (notes.length === 0) return null;
  return (
    <ul className="mt-1 space-y-1" data-testid="money-notes" aria-live="polite">
      {notes.map((n) => (
        <li key={n.code} className={n.severity === "error" ? "text-sm text-red-700" : "text-sm text-slate-700"}>
          {n.message}
        </li>
      ))}
    </ul>
  );
}

/**
 * One argument of one step as a typed input: an imported tool's argument from its JSON Schema
 * (SchemaField; a bound record argument with the record picker the id fields have), any other
 * kind as below (TypedStepField).
 */
export function StepField(props: StepFieldProps) {
  return props.field.kind === "schema" ? <SchemaField stepIndex={props.stepIndex} field={props.field} desk={props.desk} ticketAccountId={props.ticketAccountId} /> : <TypedStepField {...props} />;
}

/**
 * One argument of one step as a typed input: money, date window, id selects (the ticket's
 * account first, showing names), team select, textarea, text. Errors are linked with
 * aria-describedby; messages come from the tool's zod schema or the server's validation.
 */
function TypedStepField({ stepIndex, field, desk, ticketAccountId, tool, grants, runId }: StepFieldProps) {
  const {
    register,
    formState: { errors },
    control,
    getValues,
    setValue,
  } = useFormContext<PlanFormValues>();
  const base = `steps.${stepIndex}.args.${field.name}`;
  const errId = `${base}-error`;
  const helpId = `${base}-help`;
  const message = firstMessage(errors, base);
  const countId = `${base}-count`;
  const maxChars = tool ? textLimit(tool.argsSchema.shape[field.name]) : undefined;
  const counted = maxChars !== undefined && (field.kind === "textarea" || field.kind === "text");
  const describedBy = [message ? errId : null, field.help ? helpId : null, counted ? countId : null].filter(Boolean).join(" ") || undefined;
  const invoiceId = useWatch({ control, name: `steps.${stepIndex}.args.invoiceId` as const }) as string | undefined;
  const invoiceFees = useInvoiceFees(desk, field.kind === "fee_code" ? invoiceId : undefined);

  const label = (htmlFor: string, text = field.label) => (
    <label htmlFor={htmlFor} className="block text-sm font-medium text-slate-800">
      {text}
    </label>
  );
  // Delivery window: the last day follows the first, so the window keeps its length;
  // + / − on either date move it a day (the whole window from "From", only the end from "To").
  type P = `steps.${number}.args.${string}`;
  const fromPath = `${base}.from` as P;
  const toPath = `${base}.to` as P;
  // registered only for a window (registering "<field>.from" on a text argument would turn it into an object)
  const fromReg = field.kind === "date_window" ? register(fromPath) : null;
  // The last complete first day: typing a date passes through incomplete values ("" while a
  // segment is half typed), and the last day follows from the last complete one.
  const lastFrom = useRef<string | null>(null);
  const moveTo = (prevFrom: unknown, nextFrom: unknown) => {
    const to = getValues(toPath);
    const moved = followFrom(prevFrom, nextFrom, to);
    if (moved !== to) setValue(toPath, moved as string, { shouldDirty: true });
  };
  const stepDate = (path: P, e: React.KeyboardEvent<HTMLInputElement>) => {
    const by = e.key === "+" || e.key === "=" ? 1 : e.key === "-" ? -1 : 0;
    const cur = getValues(path);
    if (!by || e.ctrlKey || e.metaKey || e.altKey || !isIsoDate(cur)) return;
    e.preventDefault();
    const next = addDaysIso(cur, by);
    if (path === fromPath) {
      moveTo(cur, next);
      lastFrom.current = next;
    }
    setValue(path, next, { shouldDirty: true });
  };

  let input: React.ReactNode;
  switch (field.kind) {
    case "money":
      input = (
        <>
          {label(base)}
          <MoneyInput name={base} label={field.label} describedBy={describedBy ?? ""} invalid={!!message} />
          {tool && !message && <MoneyFieldNotes stepIndex={stepIndex} field={field.name} tool={tool} desk={desk} grants={grants ?? []} runId={runId} />}
        </>
      );
      break;
    case "date_window":
      input = (
        <fieldset aria-describedby={describedBy}>
          <legend className="text-sm font-medium text-slate-800">{field.label}</legend>
          <div className="flex flex-wrap gap-3">
            <div>
              <label htmlFor={`${base}.from`} className="block text-xs text-slate-600">
                From
              </label>
              <input
                id={`${base}.from`}
                type="date"
                {...fromReg!}
                onChange={(e) => {
                  const before = lastFrom.current ?? getValues(fromPath);
                  if (isIsoDate(e.target.value)) {
                    moveTo(before, e.target.value);
                    lastFrom.current = e.target.value;
                  } else if (isIsoDate(before)) lastFrom.current = before;
                  return fromReg!.onChange(e);
                }}
                onKeyDown={(e) => stepDate(fromPath, e)}
                aria-invalid={!!firstMessage(errors, `${base}.from`)}
                aria-describedby={describedBy}
                className={inputCls}
              />
            </div>
            <div>
              <label htmlFor={`${base}.to`} className="block text-xs text-slate-600">
                To
              </label>
              <input
                id={`${base}.to`}
                type="date"
                {...register(toPath)}
                onKeyDown={(e) => stepDate(toPath, e)}
                aria-invalid={!!firstMessage(errors, `${base}.to`)}
                aria-describedby={describedBy}
                className={inputCls}
              />
            </div>
          </div>
          <WindowInWords fromPath={fromPath} toPath={toPath} />
          <p className="mt-1 text-xs text-slate-600">The last day moves with the first; + / − move a date by one day.</p>
        </fieldset>
      );
      break;
    case "invoice_id":
    case "shipment_id":
    case "ticket_id":
    case "account_id":
      input = (
        <>
          {label(base)}
          <RecordIdField
            name={base}
            kind={field.kind.replace("_id", "") as "invoice" | "shipment" | "ticket" | "account"}
            desk={desk}
            ticketAccountId={ticketAccountId}
            describedBy={describedBy}
            invalid={!!message}
            className={inputCls}
          />
        </>
      );
      break;
    case "fee_code": {
      const fees = invoiceFees ?? [];
      input = (
        <>
          {label(base)}
          <select id={base} {...register(base as `steps.${number}.args.${string}`)} aria-invalid={!!message} aria-describedby={describedBy} className={inputCls}>
            <option value="">Choose…</option>
            {fees.map((f) => (
              <option key={f.code} value={f.code}>
                {f.code} · {formatMoney(f.amount as Money)}
              </option>
            ))}
          </select>
        </>
      );
      break;
    }
    case "team":
      input = (
        <>
          {label(base)}
          <select id={base} {...register(base as `steps.${number}.args.${string}`)} aria-invalid={!!message} aria-describedby={describedBy} className={inputCls}>
            <option value="">Choose…</option>
            {(field.options ?? []).map((o) => (
              <option key={o.value} value={o.value}>
                {o.label}
              </option>
            ))}
          </select>
        </>
      );
      break;
    case "textarea":
      input = (
        <>
          {label(base)}
          <textarea id={base} rows={4} {...register(base as `steps.${number}.args.${string}`)} aria-invalid={!!message} aria-describedby={describedBy} className={inputCls} />
        </>
      );
      break;
    default:
      input = (
        <>
          {label(base)}
          <input id={base} type="text" {...register(base as `steps.${number}.args.${string}`)} aria-invalid={!!message} aria-describedby={describedBy} className={inputCls} />
        </>
      );
  }
  return (
    <div>
      {input}
      {field.help && (
        <p id={helpId} className="mt-1 text-xs text-slate-500">
          {field.help}
        </p>
      )}
      {counted && <TextCount id={countId} name={base} max={maxChars} />}
      <ErrorText id={errId} message={message} />
    </div>
  );
}

/** The character counter of a limited text argument, following what is typed. */
function TextCount({ id, name, max }: { id: string; name: string; max: number }) {
  const { control } = useFormContext<PlanFormValues>();
  const value = useWatch({ control, name: name as `steps.${number}.args.${string}` });
  return <CharacterCount id={id} length={typeof value === "string" ? value.length : 0} max={max} />;
}

/**
 * The window being typed, in the words the rest of the page uses ("Sat 12 Dec 2026 → Mon 14 Dec
 * 2026"): the date inputs show the browser's own format (12/12/2026 in en-US), which reads
 * differently from the plan, the diff and the reply.
 */
function WindowInWords({ fromPath, toPath }: { fromPath: string; toPath: string }) {
  const { control } = useFormContext<PlanFormValues>();
  const [from, to] = useWatch({ control, name: [fromPath, toPath] as [`steps.${number}.args.${string}`, `steps.${number}.args.${string}`] }) as [unknown, unknown];
  if (typeof from !== "string" || !isIsoDate(from)) return null;
  const end = typeof to === "string" && isIsoDate(to) && to !== from ? ` → ${formatIsoDate(to)}` : "";
  return (
    <p className="mt-1 text-sm text-slate-800" data-testid="window-in-words">
      {formatIsoDate(from)}
      {end}
    </p>
  );
}
