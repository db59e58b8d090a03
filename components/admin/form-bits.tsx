"use client";

import { useState, type ReactNode, type Ref } from "react";
import type { FieldValues, Path, UseFormSetError } from "react-hook-form";
import { ApiError } from "@/lib/client/api";
import { focusHeading } from "../keyboard-shortcuts";
import { CURRENCIES, minorToDecimal, type Currency } from "@/lib/money/format-money";
import { parseMoneyInput } from "@/lib/money/money-input";
import type { Ceiling } from "@/lib/people/admin-schemas";

export const inputClass = "mt-1 w-full rounded-md border border-slate-300 px-3 py-2 text-sm aria-[invalid=true]:border-red-600";
export const buttonClass = "rounded-md bg-blue-700 px-3 py-1.5 text-sm font-medium text-white hover:bg-blue-800 disabled:opacity-60";
export const quietButtonClass = "whitespace-nowrap rounded-md border border-slate-300 bg-white px-3 py-1.5 text-sm hover:bg-slate-50 disabled:opacity-60";
export const dangerButtonClass = "whitespace-nowrap rounded-md bg-red-700 px-3 py-1.5 text-sm font-medium text-white hover:bg-red-800 disabled:opacity-60";

/** A labelled input with its error under it (ids: `<id>`, `<id>-error`). */
export function Field({ id, label, error, help, children }: { id: string; label: string; error?: string; help?: string; children: ReactNode }) {
  return (
    <div>
      <label htmlFor={id} className="block text-sm font-medium">
        {label}
      </label>
      {children}
      {help && !error && <p className="mt-1 text-xs text-slate-500">{help}</p>}
      {error && (
        <p id={`${id}-error`} className="mt-1 text-sm text-red-700">
          {error}
        </p>
      )}
    </div>
  );
}

/** A form-level refusal from the server, announced to screen readers. */
/** A refusal shown under a row's action button in an admin table cell (e.g. a revoke or disable the server refused); nothing when `message` is null. */
/** A refusal inside a table cell (role=alert); with `id`, focusable so a refused action can put focus on it. */
export function CellError({ message, id }: { message: string | null; id?: string }) {
  if (!message) return null;
  return (
    <p id={id} tabIndex={id ? -1 : undefined} role="alert" className="mt-1 text-left text-xs text-red-700">
      {message}
    </p>
  );
}

/** A form's refusal above it (role=alert); with `id`, focusable so a refused save can put focus on it. */
export function FormError({ message, id }: { message: string | null; id?: string }) {
  if (!message) return null;
  return (
    <p id={id} tabIndex={id ? -1 : undefined} role="alert" className="rounded-md border border-red-300 bg-red-50 px-3 py-2 text-sm text-red-800">
      {message}
    </p>
  );
}

/**
 * Puts a typed server refusal onto the form: `bad_request` issues onto their fields,
 * `email_taken` onto the email field. Returns the message to show above the form when a
 * refusal concerns no single field (e.g. 403 `forbidden`, 409 `last_admin`), else null.
 */
export function applyServerError<T extends FieldValues>(err: unknown, setError: UseFormSetError<T>, fields: readonly string[]): string | null {
  if (!(err instanceof ApiError)) return "Something went wrong; nothing was changed.";
  if (err.code === "bad_request" && Array.isArray(err.details.issues)) {
    let placed = 0;
    for (const i of err.details.issues as { path?: string; message?: string }[]) {
      const top = (i.path ?? "").split(".")[0];
      if (fields.includes(top)) {
        setError(top as Path<T>, { type: "server", message: i.message ?? err.message });
        placed++;
      }
    }
    if (placed > 0) return null;
  }
  if (err.code === "email_taken" && fields.includes("email")) {
    setError("email" as Path<T>, { type: "server", message: err.message });
    return null;
  }
  return err.message;
}

/**
 * A money ceiling input: an amount in major units as people write it (e.g. "500.00", parsed by the
 * one money parser into integer minor units) and a currency; empty means "no ceiling" (null).
 * Unparseable text is passed on as `{minor: NaN}` so the shared schema reports it on the field.
 * With `currency` given, the amount is in that currency and no currency select is shown (a table
 * whose ceilings share one currency); `inputRef` lets a form focus the amount on an error.
 */
export function CeilingInput({
  id,
  label,
  value,
  onChange,
  disabled,
  invalid,
  describedBy,
  currency: fixedCurrency,
  inputRef,
}: {
  id: string;
  label: string;
  value: Ceiling;
  onChange: (v: Ceiling) => void;
  disabled?: boolean;
  invalid?: boolean;
  describedBy?: string;
  currency?: Currency;
  inputRef?: Ref<HTMLInputElement>;
}) {
  const [chosenCurrency, setCurrency] = useState<Currency>(value?.currency ?? "USD");
  const currency = fixedCurrency ?? chosenCurrency;
  const [text, setText] = useState(value && Number.isFinite(value.minor) ? minorToDecimal(value.minor, value.currency) : "");
  const emit = (t: string, c: Currency) => {
    if (t.trim() === "") return onChange(null);
    const r = parseMoneyInput(t, c, { allowZero: true }); // the one money parser (lib/money/money-input.ts)
    onChange({ minor: r.ok ? r.minor : Number.NaN, currency: c });
  };
  return (
    <div className="flex items-center gap-1">
      <input
        id={id}
        ref={inputRef}
        aria-label={label}
        inputMode="decimal"
        placeholder="no ceiling"
        value={text}
        disabled={disabled}
        aria-invalid={invalid || undefined}
        aria-describedby={describedBy}
        onChange={(e) => {
          setText(e.target.value);
          emit(e.target.value, currency);
        }}
        className="w-28 min-w-0 rounded-md border border-slate-300 px-2 py-1 text-right text-sm tabular-nums disabled:bg-slate-100 disabled:text-slate-400 aria-[invalid=true]:border-red-600"
      />
      {fixedCurrency ? (
        <span className={`text-xs ${disabled ? "text-slate-400" : "text-slate-600"}`} aria-hidden="true">
          {fixedCurrency}
        </span>
      ) : (
        <select
          aria-label={`${label}: currency`}
          value={currency}
          disabled={disabled}
          onChange={(e) => {
            const c = e.target.value as Currency;
            setCurrency(c);
            emit(text, c);
          }}
          className="rounded-md border border-slate-300 px-1 py-1 text-sm disabled:bg-slate-100 disabled:text-slate-400"
        >
          {CURRENCIES.map((c) => (
            <option key={c}>{c}</option>
          ))}
        </select>
      )}
    </div>
  );
}

/**
 * The line by a form's Save that says what the last save did (role=status, focusable): a save's
 * button is disabled while its request is out, which drops focus to the body, so a save puts focus
 * here (see {@link useSaveFocus}), and a screen reader reads the outcome where the person is.
 */
export function SavedStatus({ id, message }: { id: string; message: string | null }) {
  return (
    <p id={id} role="status" tabIndex={-1} className="text-sm text-emerald-800" data-testid="saved-status">
      {message}
    </p>
  );
}

/**
 * Focus after an admin form's save, never the body: `saved(message)` shows the message in the
 * form's {@link SavedStatus} (`statusId`) and focuses it; `refused()` focuses the form's
 * {@link FormError} (`errorId`), else the status line — held there while the page re-renders.
 */
export function useSaveFocus(prefix: string) {
  const [message, setMessage] = useState<string | null>(null);
  const statusId = `${prefix}-saved`;
  const errorId = `${prefix}-error`;
  return {
    message,
    statusId,
    errorId,
    saved(text: string) {
      setMessage(text);
      focusHeading(statusId);
    },
    refused() {
      setMessage(null);
      focusHeading(errorId, statusId);
    },
  };
}
