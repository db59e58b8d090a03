"use client";

import { Controller, useFormContext, type FieldErrors } from "react-hook-form";
import type { PlanFormValues } from "@/lib/plan/form-schema";
import type { AccountSnapshot } from "@/lib/desk/snapshot";
import type { FieldSpec } from "@/lib/tools/types";
import { RecordIdField } from "./record-id-field";

/** A JSON Schema node (an imported tool's argument, lib/tools/json-schema-tool.ts). */
type Node = { [key: string]: unknown };

const inputCls =
  "mt-1 w-full rounded-md border border-slate-300 bg-white px-2.5 py-1.5 text-sm aria-[invalid=true]:border-red-600 aria-[invalid=true]:ring-1 aria-[invalid=true]:ring-red-600";

/** The error message react-hook-form holds exactly at `path` (dotted), if any. */
function messageAt(errors: FieldErrors, path: string): string | undefined {
  let cur: unknown = errors;
  for (const seg of path.split(".")) {
    if (cur == null || typeof cur !== "object") return undefined;
    cur = (cur as Record<string, unknown>)[seg];
  }
  const m = (cur as { message?: unknown } | undefined)?.message;
  return typeof m === "string" ? m : undefined;
}

const typeOf = (s: Node): string | undefined => (typeof s.type === "string" ? s.type : Array.isArray(s.type) ? (s.type.find((t) => t !== "null") as string | undefined) : undefined);
const num = (v: unknown): number | undefined => (typeof v === "number" ? v : undefined);

/** "2026-04-03T10:00:00Z" → "2026-04-03T10:00" for a datetime-local input (shown as UTC). */
function toLocalInput(v: unknown): string {
  return typeof v === "string" && /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}/.test(v) ? v.slice(0, 16) : "";
}

/** A starting value for a new step's argument: the schema's default, else an empty value of its type. */
export function blankFromSchema(schema: Node | undefined): unknown {
  if (!schema) return "";
  if (schema.default !== undefined) return structuredClone(schema.default);
  switch (typeOf(schema)) {
    case "object": {
      const props = (schema.properties ?? {}) as Record<string, Node>;
      const required = new Set(Array.isArray(schema.required) ? (schema.required as string[]) : []);
      return Object.fromEntries(Object.entries(props).filter(([k]) => required.has(k)).map(([k, s]) => [k, blankFromSchema(s)]));
    }
    case "array":
      return [];
    case "boolean":
      return false;
    case "integer":
    case "number":
      return undefined;
    default:
      return Array.isArray(schema.enum) ? undefined : "";
  }
}

interface InputProps {
  id: string;
  label: string;
  schema: Node;
  required: boolean;
  value: unknown;
  onChange: (v: unknown) => void;
  errors: FieldErrors;
  help?: string;
}

/**
 * One value of an imported tool's argument as a typed input, from its JSON Schema node:
 * enum → select; boolean → checkbox; integer/number → number input with its bounds;
 * string `format: date` → date input; `format: date-time` → date-time input (UTC);
 * other strings → text (a long `maxLength` → textarea); object → a fieldset of its properties;
 * array → a list of item inputs with add/remove. Ids are the dotted form paths
 * (`steps.N.args.<name>.<sub>`), which the server's validation issues point at.
 */
function SchemaInput({ id, label, schema, required, value, onChange, errors, help }: InputProps) {
  const message = messageAt(errors, id);
  const errId = `${id}-error`;
  const helpId = `${id}-help`;
  const describedBy = [message ? errId : null, help ? helpId : null].filter(Boolean).join(" ") || undefined;
  const labelEl = (
    <label htmlFor={id} className="block text-sm font-medium text-slate-800">
      {label}
      {!required && <span className="ml-1 text-xs font-normal text-slate-500">(optional)</span>}
    </label>
  );
  const footer = (
    <>
      {help && (
        <p id={helpId} className="mt-1 text-xs text-slate-600">
          {help}
        </p>
      )}
      {message && (
        <p id={errId} className="mt-1 text-sm text-red-700">
          {message}
        </p>
      )}
    </>
  );
  const type = typeOf(schema);

  if (Array.isArray(schema.enum)) {
    const options = schema.enum as unknown[];
    return (
      <div>
        {labelEl}
        <select id={id} value={value === undefined ? "" : String(value)} aria-invalid={!!message} aria-describedby={describedBy} className={inputCls} onChange={(e) => onChange(e.target.value === "" ? undefined : options.find((o) => String(o) === e.target.value))}>
          <option value="">Choose…</option>
          {options.map((o) => (
            <option key={String(o)} value={String(o)}>
              {String(o)}
            </option>
          ))}
        </select>
        {footer}
      </div>
    );
  }
  if (type === "boolean") {
    return (
      <div>
        <div className="mt-1 flex items-center gap-2">
          <input id={id} type="checkbox" checked={value === true} aria-invalid={!!message} aria-describedby={describedBy} onChange={(e) => onChange(e.target.checked)} className="h-4 w-4" />
          <label htmlFor={id} className="text-sm font-medium text-slate-800">
            {label}
          </label>
        </div>
        {footer}
      </div>
    );
  }
  if (type === "integer" || type === "number") {
    const min = num(schema.minimum) ?? num(schema.exclusiveMinimum);
    const max = num(schema.maximum) ?? num(schema.exclusiveMaximum);
    return (
      <div>
        {labelEl}
        <input
          id={id}
          type="number"
          inputMode={type === "integer" ? "numeric" : "decimal"}
          step={type === "integer" ? 1 : "any"}
          {...(min !== undefined ? { min } : {})}
          {...(max !== undefined ? { max } : {})}
          value={typeof value === "number" && Number.isFinite(value) ? value : ""}
          aria-invalid={!!message}
          aria-describedby={describedBy}
          className={inputCls + " max-w-[12rem] tabular-nums"}
          onChange={(e) => onChange(e.target.value.trim() === "" ? undefined : Number(e.target.value))}
        />
        {footer}
      </div>
    );
  }
  if (type === "object") {
    const props = (schema.properties ?? {}) as Record<string, Node>;
    const req = new Set(Array.isArray(schema.required) ? (schema.required as string[]) : []);
    const obj = (typeof value === "object" && value !== null && !Array.isArray(value) ? value : {}) as Record<string, unknown>;
    return (
      <fieldset className="rounded-md border border-slate-200 p-3" aria-describedby={describedBy}>
        <legend className="px-1 text-sm font-medium text-slate-800">{label}</legend>
        <div className="grid gap-3 sm:grid-cols-2">
          {Object.entries(props).map(([k, s]) => (
            <SchemaInput
              key={k}
              id={`${id}.${k}`}
              label={typeof s.title === "string" ? s.title : k}
              schema={s}
              required={req.has(k)}
              value={obj[k]}
              errors={errors}
              {...(typeof s.description === "string" ? { help: s.description } : {})}
              onChange={(v) => {
                const next = { ...obj };
                if (v === undefined || (v === "" && !req.has(k))) delete next[k];
                else next[k] = v;
                onChange(next);
              }}
            />
          ))}
        </div>
        {footer}
      </fieldset>
    );
  }
  if (type === "array") {
    const items = Array.isArray(value) ? value : [];
    const itemSchema = (typeof schema.items === "object" && schema.items !== null ? schema.items : {}) as Node;
    const max = num(schema.maxItems);
    return (
      <fieldset className="rounded-md border border-slate-200 p-3" aria-describedby={describedBy}>
        <legend className="px-1 text-sm font-medium text-slate-800">{label}</legend>
        <ol className="space-y-2">
          {items.map((item, i) => (
            <li key={i} className="flex items-end gap-2">
              <div className="flex-1">
                <SchemaInput id={`${id}.${i}`} label={`${label} ${i + 1}`} schema={itemSchema} required value={item} errors={errors} onChange={(v) => onChange(items.map((x, j) => (j === i ? v : x)))} />
              </div>
              <button type="button" className="rounded border border-red-300 px-2 py-1 text-xs text-red-800" onClick={() => onChange(items.filter((_, j) => j !== i))}>
                Remove {label} {i + 1}
              </button>
            </li>
          ))}
        </ol>
        <button type="button" disabled={max !== undefined && items.length >= max} className="mt-2 rounded border border-slate-400 px-2 py-1 text-xs disabled:opacity-50" onClick={() => onChange([...items, blankFromSchema(itemSchema)])}>
          Add {label}
        </button>
        {footer}
      </fieldset>
    );
  }
  if (type === "string" && schema.format === "date") {
    return (
      <div>
        {labelEl}
        <input id={id} type="date" value={typeof value === "string" ? value : ""} aria-invalid={!!message} aria-describedby={describedBy} className={inputCls} onChange={(e) => onChange(e.target.value)} />
        {footer}
      </div>
    );
  }
  if (type === "string" && schema.format === "date-time") {
    return (
      <div>
        {labelEl}
        <input id={id} type="datetime-local" value={toLocalInput(value)} aria-invalid={!!message} aria-describedby={describedBy} className={inputCls} onChange={(e) => onChange(e.target.value ? `${e.target.value}:00Z` : undefined)} />
        <p className="mt-1 text-xs text-slate-600">UTC</p>
        {footer}
      </div>
    );
  }
  const long = (num(schema.maxLength) ?? 0) > 200;
  return (
    <div>
      {labelEl}
      {long ? (
        <textarea id={id} rows={3} value={typeof value === "string" ? value : ""} aria-invalid={!!message} aria-describedby={describedBy} className={inputCls} onChange={(e) => onChange(e.target.value)} />
      ) : (
        <input id={id} type="text" {...(num(schema.maxLength) !== undefined ? { maxLength: num(schema.maxLength) } : {})} value={typeof value === "string" ? value : value === undefined ? "" : JSON.stringify(value)} aria-invalid={!!message} aria-describedby={describedBy} className={inputCls} onChange={(e) => onChange(e.target.value)} />
      )}
      {footer}
    </div>
  );
}

/**
 * One argument of an imported tool's step in the plan form (field kind `schema`): a typed input
 * built from its JSON Schema, bound to `steps.N.args.<name>`. The same schema, converted to zod,
 * checks the form (planFormSchemaFor) and the server's shape stage. An argument bound to a declared
 * kind (`field.record`, `x-plandesk-record`) is the id field invoices have (RecordIdField): the
 * page's records of that kind (the ticket account's first) and, as the operator types, the desk's
 * records found by id prefix.
 */
export function SchemaField({ stepIndex, field, desk, ticketAccountId }: { stepIndex: number; field: FieldSpec; desk: AccountSnapshot; ticketAccountId: string }) {
  const {
    control,
    formState: { errors },
  } = useFormContext<PlanFormValues>();
  const base = `steps.${stepIndex}.args.${field.name}`;
  if (field.record) {
    const message = messageAt(errors, base);
    const describedBy = [message ? `${base}-error` : null, field.help ? `${base}-help` : null].filter(Boolean).join(" ") || undefined;
    return (
      <div>
        <label htmlFor={base} className="block text-sm font-medium text-slate-800">
          {field.label}
        </label>
        <RecordIdField name={base} kind={field.record} desk={desk} ticketAccountId={ticketAccountId} describedBy={describedBy} invalid={!!message} className={inputCls} />
        {field.help && (
          <p id={`${base}-help`} className="mt-1 text-xs text-slate-600">
            {field.help}
          </p>
        )}
        {message && (
          <p id={`${base}-error`} className="mt-1 text-sm text-red-700">
            {message}
          </p>
        )}
      </div>
    );
  }
  return (
    <Controller
      control={control}
      name={base as `steps.${number}.args.${string}`}
      render={({ field: f }) => (
        <SchemaInput id={base} label={field.label} schema={field.schema ?? {}} required={field.required ?? false} value={f.value} onChange={f.onChange} errors={errors} {...(field.help ? { help: field.help } : {})} />
      )}
    />
  );
}
