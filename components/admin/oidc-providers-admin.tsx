"use client";

import { zodResolver } from "@hookform/resolvers/zod";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { Controller, useFieldArray, useForm, useWatch, type Control, type FieldErrors, type Path, type UseFormRegister, type UseFormSetValue } from "react-hook-form";
import type { z } from "zod";
import { ApiError, apiFetch } from "@/lib/client/api";
import { formPathOfIssue, OIDC_FORM_FIELDS, oidcProviderFormSchema, type GrantRowFormValues, type OidcProviderFormValues, type OidcProviderView } from "@/lib/api/endpoints/oidc-provider-api";
import { CURRENCIES, type Currency } from "@/lib/money/format-money";
import { ROLES, toolMovesMoney } from "@/lib/people/admin-schemas";
import { formatInstant } from "@/lib/text/format";
import type { CatalogToolOption } from "@/lib/tools/versioned-catalog";
import { buttonClass, CeilingInput, CellError, dangerButtonClass, Field, FormError, inputClass, quietButtonClass } from "./form-bits";
import { describeGrant } from "./user-detail";

type FormOutput = z.output<typeof oidcProviderFormSchema>;
const keyOf = (deskId: string) => ["admin", "oidc-providers", deskId] as const;
const urlOf = (deskId: string) => `/api/admin/desks/${encodeURIComponent(deskId)}/oidc-providers`;

/**
 * A desk's identity providers: the list (label, issuer, client id, status, what the claim mapping
 * gives, the URIs to register at the provider — never a client secret), the form that registers
 * one and the button that disables one, all through the admin API. `tools` is the current
 * catalog (built-in and imported tools) the grants table offers.
 */
export function OidcProvidersAdmin({ deskId, initialProviders, tools }: { deskId: string; initialProviders: OidcProviderView[]; tools: CatalogToolOption[] }) {
  const list = useQuery({
    queryKey: keyOf(deskId),
    queryFn: () => apiFetch<{ providers: OidcProviderView[] }>(urlOf(deskId)),
    initialData: { providers: initialProviders },
  });
  const providers = list.data.providers;
  return (
    <div className="mt-6 grid grid-cols-1 gap-6 lg:grid-cols-[minmax(0,2fr)_minmax(0,3fr)] [&>*]:min-w-0">
      <section aria-labelledby="oidc-providers-h" className="rounded-lg border border-slate-200 bg-white p-4">
        <h2 id="oidc-providers-h" className="font-semibold">
          Identity providers
        </h2>
        <p className="mt-1 text-sm text-slate-600">
          People of this desk sign in with &ldquo;Continue with &lt;label&gt;&rdquo; on the sign-in page. Someone new is created on their first sign-in with the role, desk and grants the mapping gives.
        </p>
        {providers.length === 0 ? (
          <p className="mt-3 text-sm text-slate-600">No identity providers: people of this desk sign in with their email and password or a passkey.</p>
        ) : (
          <ul className="mt-3 space-y-3">
            {providers.map((p) => (
              <ProviderCard key={p.id} deskId={deskId} provider={p} />
            ))}
          </ul>
        )}
      </section>
      <RegisterProviderForm deskId={deskId} tools={tools} />
    </div>
  );
}

/** What a provider's mapping gives, in words. */
function mappingSummary(m: OidcProviderView["mapping"]): string[] {
  const roles = Object.entries(m.roles).map(([v, r]) => `${v} → ${r}`);
  const lines = [
    m.roleClaim ? `Role from claim ${m.roleClaim}${roles.length ? `: ${roles.join(", ")}` : ""}` : "No role claim",
    m.defaultRole ? `Anyone else: ${m.defaultRole}` : "Anyone else: refused",
    m.deskClaim ? `Desk from claim ${m.deskClaim}` : "Desk: this desk",
  ];
  const grants = Object.entries(m.grants).map(([v, gs]) => `${v} → ${gs.map((g) => `${g.tool} (${describeGrant(g)})`).join(", ")}`);
  if (m.grantsClaim) lines.push(`Grants from claim ${m.grantsClaim}${grants.length ? `: ${grants.join("; ")}` : ""}`);
  return lines;
}

function ProviderCard({ deskId, provider: p }: { deskId: string; provider: OidcProviderView }) {
  const qc = useQueryClient();
  const [error, setError] = useState<string | null>(null);
  const disable = useMutation({
    mutationFn: () => apiFetch<{ provider: OidcProviderView }>(`${urlOf(deskId)}/${encodeURIComponent(p.id)}`, { method: "DELETE" }),
    onSuccess: () => {
      setError(null);
      void qc.invalidateQueries({ queryKey: keyOf(deskId) });
    },
    onError: (e) => setError(e instanceof ApiError ? e.message : "Something went wrong; nothing was changed."),
  });
  const disabled = p.disabledAt !== null;
  return (
    <li className="rounded-md border border-slate-200 p-3 text-sm" data-provider={p.id}>
      <div className="flex flex-wrap items-start justify-between gap-2">
        <div className="min-w-0">
          <p className="font-medium">{p.label}</p>
          <p className={`text-xs ${disabled ? "text-slate-500" : "text-emerald-800"}`}>{disabled ? `Disabled ${formatInstant(p.disabledAt!)}` : `Enabled since ${formatInstant(p.createdAt)}`}</p>
        </div>
        {!disabled && (
          <button
            type="button"
            className={dangerButtonClass}
            disabled={disable.isPending}
            aria-label={`Disable ${p.label}`}
            onClick={() => {
              if (window.confirm(`Disable ${p.label}? Nobody can sign in through it any more, and its client secret is erased.`)) disable.mutate();
            }}
          >
            {disable.isPending ? "Disabling…" : "Disable"}
          </button>
        )}
      </div>
      <CellError message={error} />
      <dl className="mt-2 grid grid-cols-1 gap-x-3 gap-y-1 sm:grid-cols-[9rem_1fr]">
        <dt className="text-xs text-slate-500">Issuer</dt>
        <dd className="break-all font-mono text-xs">{p.issuer}</dd>
        <dt className="text-xs text-slate-500">Client id</dt>
        <dd className="break-all font-mono text-xs">{p.clientId}</dd>
        <dt className="text-xs text-slate-500">Client secret</dt>
        <dd className="text-xs">{p.clientSecret ? (p.clientSecret.last4 ? `stored, ends …${p.clientSecret.last4}` : "stored") : "erased"}</dd>
        <dt className="text-xs text-slate-500">Claim mapping</dt>
        <dd className="text-xs">
          <ul>
            {mappingSummary(p.mapping).map((l) => (
              <li key={l} className="break-words">
                {l}
              </li>
            ))}
          </ul>
        </dd>
        <dt className="text-xs text-slate-500">Redirect URI</dt>
        <dd className="break-all font-mono text-xs">{p.redirectUri}</dd>
        <dt className="text-xs text-slate-500">Back-channel logout URI</dt>
        <dd className="break-all font-mono text-xs">{p.backchannelLogoutUri}</dd>
      </dl>
    </li>
  );
}

/** The form's top fields in display order: the first one a refusal names is focused. */
const FIELD_ORDER = OIDC_FORM_FIELDS;
type FieldName = (typeof FIELD_ORDER)[number];

const EMPTY: OidcProviderFormValues = { label: "", issuer: "", clientId: "", clientSecret: "", roleClaim: "", roles: [], defaultRole: "operator", deskClaim: "", grantsClaim: "", grants: [] };

function RegisterProviderForm({ deskId, tools }: { deskId: string; tools: CatalogToolOption[] }) {
  const qc = useQueryClient();
  const [formError, setFormError] = useState<string | null>(null);
  const [registered, setRegistered] = useState<OidcProviderView | null>(null);
  // the ceilings' currency: one for the whole table (desks have no currency of their own); new text is read in it
  const [currency, setCurrency] = useState<Currency>("USD");
  const form = useForm<OidcProviderFormValues, unknown, FormOutput>({ resolver: zodResolver(oidcProviderFormSchema), defaultValues: EMPTY, shouldFocusError: true });
  const {
    register,
    handleSubmit,
    control,
    formState: { errors },
  } = form;
  const roles = useFieldArray({ control, name: "roles" });
  const create = useMutation({
    mutationFn: (body: FormOutput) => apiFetch<{ provider: OidcProviderView }>(urlOf(deskId), { method: "POST", body }),
    onSuccess: ({ provider }) => {
      setFormError(null);
      setRegistered(provider);
      void qc.invalidateQueries({ queryKey: keyOf(deskId) });
      form.reset(EMPTY);
    },
    onError: (e) => {
      // a refusal about fields goes onto them (the first one focused); anything else above the form
      const issues = e instanceof ApiError && Array.isArray(e.details.issues) ? (e.details.issues as { path?: string; message?: string }[]) : [];
      const grants = form.getValues("grants");
      const placed = issues.map((i) => [formPathOfIssue(i.path ?? "", grants) as Path<OidcProviderFormValues> | null, i.message ?? (e as ApiError).message] as const).filter((x): x is [Path<OidcProviderFormValues>, string] => x[0] !== null);
      for (const [field, message] of placed) form.setError(field, { type: "server", message });
      const first = [...placed].sort(([a], [b]) => FIELD_ORDER.indexOf(a.split(".")[0] as FieldName) - FIELD_ORDER.indexOf(b.split(".")[0] as FieldName))[0]?.[0];
      if (first) form.setFocus(first === "roles" ? "roleClaim" : first === "grants" ? "grantsClaim" : first);
      setFormError(placed.length > 0 ? null : e instanceof ApiError ? e.message : "Something went wrong; nothing was changed.");
    },
  });
  const text = (id: Exclude<FieldName, "roles" | "grants" | "defaultRole">, label: string, help?: string, type = "text") => (
    <Field id={`oidc-${id}`} label={label} error={errors[id]?.message} help={help}>
      <input
        id={`oidc-${id}`}
        type={type}
        autoComplete="off"
        spellCheck={false}
        {...register(id)}
        aria-invalid={!!errors[id]}
        aria-describedby={errors[id] ? `oidc-${id}-error` : undefined}
        className={inputClass}
      />
    </Field>
  );
  return (
    <section aria-labelledby="register-oidc-h" className="h-fit rounded-lg border border-slate-200 bg-white p-4">
      <h2 id="register-oidc-h" className="font-semibold">
        Add an identity provider
      </h2>
      <form noValidate onSubmit={handleSubmit((v) => create.mutate(v))} className="mt-3 space-y-3">
        <FormError message={formError} />
        {text("label", "Label", 'The sign-in button reads "Continue with <label>"')}
        {text("issuer", "Issuer URL", "https:// (http:// only for localhost); its /.well-known/openid-configuration is read at the first sign-in")}
        {text("clientId", "Client id")}
        {text("clientSecret", "Client secret", "Stored encrypted and never shown again", "password")}
        <fieldset className="space-y-3 rounded-md border border-slate-200 p-3">
          <legend className="px-1 text-sm font-medium">Who gets which role</legend>
          {text("roleClaim", "Role claim (empty: none)", "A claim name or dotted path, e.g. groups or realm_access.roles")}
          <div>
            <p className="text-sm font-medium" id="oidc-roles-label">
              Claim value → role
            </p>
            {roles.fields.length === 0 && <p className="mt-1 text-xs text-slate-500">No rows: a value that is itself a role name (operator, supervisor, admin) still counts.</p>}
            <ul className="mt-1 space-y-2" aria-labelledby="oidc-roles-label">
              {roles.fields.map((f, i) => {
                const err = errors.roles?.[i];
                return (
                  <li key={f.id}>
                    <div className="flex flex-wrap items-center gap-2">
                      <input
                        aria-label={`Claim value ${i + 1}`}
                        {...register(`roles.${i}.value`)}
                        aria-invalid={!!err?.value}
                        aria-describedby={err?.value ? `oidc-roles-${i}-error` : undefined}
                        className="min-w-0 flex-1 rounded-md border border-slate-300 px-2 py-1 text-sm aria-[invalid=true]:border-red-600"
                      />
                      <select aria-label={`Role for claim value ${i + 1}`} {...register(`roles.${i}.role`)} className="rounded-md border border-slate-300 px-1 py-1 text-sm">
                        {ROLES.map((r) => (
                          <option key={r}>{r}</option>
                        ))}
                      </select>
                      <button type="button" className={quietButtonClass} aria-label={`Remove claim value ${i + 1}`} onClick={() => roles.remove(i)}>
                        Remove
                      </button>
                    </div>
                    {err?.value && (
                      <p id={`oidc-roles-${i}-error`} className="mt-1 text-sm text-red-700">
                        {err.value.message}
                      </p>
                    )}
                  </li>
                );
              })}
            </ul>
            {errors.roles?.message && <p className="mt-1 text-sm text-red-700">{errors.roles.message}</p>}
            <button type="button" className={`${quietButtonClass} mt-2`} onClick={() => roles.append({ value: "", role: "operator" }, { shouldFocus: true })}>
              Add a value
            </button>
          </div>
          <Field id="oidc-defaultRole" label="Everyone else" error={errors.defaultRole?.message}>
            <select id="oidc-defaultRole" {...register("defaultRole")} className={inputClass}>
              <option value="refuse">Refuse the sign-in</option>
              {ROLES.map((r) => (
                <option key={r} value={r}>
                  {r}
                </option>
              ))}
            </select>
          </Field>
        </fieldset>
        <fieldset className="space-y-3 rounded-md border border-slate-200 p-3">
          <legend className="px-1 text-sm font-medium">Desk and grants (optional)</legend>
          {text("deskClaim", "Desk claim (empty: this desk)", "A claim naming the desk a new person works")}
          {text("grantsClaim", "Grants claim (empty: no grants)", "A claim whose values (e.g. group names) give the grants below")}
          <GrantsTable control={control} register={register} setValue={form.setValue} errors={errors} tools={tools} currency={currency} onCurrency={setCurrency} />
        </fieldset>
        <button type="submit" disabled={create.isPending} className={buttonClass}>
          {create.isPending ? "Adding…" : "Add identity provider"}
        </button>
      </form>
      {registered && (
        <div role="status" className="mt-3 rounded-md border border-emerald-400 bg-emerald-50 p-3 text-sm">
          <p className="font-medium text-emerald-950">{registered.label} was added. Register these with the provider:</p>
          <p className="mt-1 text-xs">Redirect URI:</p>
          <p className="break-all font-mono text-xs">{registered.redirectUri}</p>
          <p className="mt-1 text-xs">Back-channel logout URI:</p>
          <p className="break-all font-mono text-xs">{registered.backchannelLogoutUri}</p>
          <button type="button" className={`${quietButtonClass} mt-2`} onClick={() => setRegistered(null)}>
            Done
          </button>
        </div>
      )}
    </section>
  );
}

/** A new row of the grants table: may approve `tool` (the first tool that moves money, the usual grant) without a ceiling, may not author. */
const newGrantRow = (tool: string): GrantRowFormValues => ({ value: "", tool, canApprove: true, approveLimit: null, canAuthor: false, authorLimit: null });

/** The message of a ceiling's error (the schema reports a bad amount on its `minor`). */
function ceilingError(e: unknown): string | undefined {
  const err = e as { message?: string; minor?: { message?: string } } | undefined;
  return err?.minor?.message ?? err?.message;
}

/**
 * The provider form's grants mapping as an editable table: one row per grant a claim value gives
 * (claim value, tool, may approve with its ceiling, may author with its ceiling), rows added and
 * removed; a table from 36rem of room, one block per row below. Ceilings are typed in major units
 * of `currency` (one for the table) and held as integer minor units (CeilingInput); tools that move
 * no money take none. Errors sit under their cell, linked with `aria-describedby`.
 */
function GrantsTable({
  control,
  register,
  setValue,
  errors,
  tools,
  currency,
  onCurrency,
}: {
  control: Control<OidcProviderFormValues, unknown, FormOutput>;
  register: UseFormRegister<OidcProviderFormValues>;
  setValue: UseFormSetValue<OidcProviderFormValues>;
  errors: FieldErrors<OidcProviderFormValues>;
  tools: CatalogToolOption[];
  currency: Currency;
  onCurrency: (c: Currency) => void;
}) {
  const rows = useFieldArray({ control, name: "grants" });
  const values = useWatch({ control, name: "grants" }) ?? [];
  const cellId = (i: number, f: string) => `oidc-grants-${i}-${f}`;
  const tableError = errors.grants?.message ?? errors.grants?.root?.message;
  const cellCaption = "block text-xs text-slate-500 @xl:hidden";
  const cellClass = "block py-1 align-top @xl:table-cell @xl:px-1 @xl:py-2";
  const errorText = (i: number, f: string, message: string | undefined) =>
    message && (
      <p id={`${cellId(i, f)}-error`} className="mt-1 text-xs text-red-700">
        {message}
      </p>
    );

  const changeCurrency = (c: Currency) => {
    onCurrency(c);
    // the amounts stay as typed; they are now in `c`
    values.forEach((g, i) => {
      for (const k of ["approveLimit", "authorLimit"] as const) if (g[k]) setValue(`grants.${i}.${k}`, { ...g[k], currency: c }, { shouldDirty: true });
    });
  };

  const remove = (i: number) => {
    rows.remove(i);
    // focus stays in the table: the row that took this one's place, else the one above, else "Add a grant"
    setTimeout(() => (document.getElementById(cellId(i, "value")) ?? document.getElementById(cellId(i - 1, "value")) ?? document.getElementById("oidc-grants-add"))?.focus(), 0);
  };

  const add = () => {
    const at = rows.fields.length;
    rows.append(newGrantRow((tools.find((t) => toolMovesMoney(t.name)) ?? tools[0])?.name ?? ""), { shouldFocus: false });
    // the new row's claim value, once it is rendered
    setTimeout(() => document.getElementById(cellId(at, "value"))?.focus(), 0);
  };

  const ceiling = (i: number, k: "approveLimit" | "authorLimit", enabled: boolean, tool: string, what: string) => {
    if (!toolMovesMoney(tool))
      return (
        <span className="mt-1 block text-xs text-slate-400">
          <span aria-hidden="true">—</span>
          <span className="sr-only">no ceiling: this tool moves no money</span>
        </span>
      );
    const message = ceilingError(errors.grants?.[i]?.[k]);
    return (
      <div className="mt-1 @xl:[&_input]:w-24">
        <Controller
          control={control}
          name={`grants.${i}.${k}`}
          render={({ field }) => (
            <CeilingInput
              id={cellId(i, k)}
              label={`${what} ceiling of grant row ${i + 1}, in ${currency}`}
              value={field.value ?? null}
              onChange={field.onChange}
              inputRef={field.ref}
              currency={currency}
              disabled={!enabled}
              invalid={!!message}
              describedBy={message ? `${cellId(i, k)}-error` : undefined}
            />
          )}
        />
        {errorText(i, k, message)}
      </div>
    );
  };

  return (
    <div className="@container" role="group" aria-labelledby="oidc-grants-label">
      <div className="flex flex-wrap items-center justify-between gap-2">
        <p id="oidc-grants-label" className="text-sm font-medium">
          Claim value → grants
        </p>
        <label className="flex items-center gap-1 text-xs text-slate-600">
          Ceilings in
          <select value={currency} onChange={(e) => changeCurrency(e.target.value as Currency)} className="rounded-md border border-slate-300 px-1 py-0.5 text-xs">
            {CURRENCIES.map((c) => (
              <option key={c}>{c}</option>
            ))}
          </select>
        </label>
      </div>
      <p className="mt-1 text-xs text-slate-500">
        A ceiling caps the amount a step may move (exactly the ceiling is allowed), e.g. 500.00; empty: no ceiling. Tools that move no money take none. A tool granted by two values takes the later row.
      </p>
      {rows.fields.length === 0 ? (
        <p className="mt-2 text-xs text-slate-500">No rows: people the provider creates get no grants (an admin gives them under Users).</p>
      ) : (
        <table className="mt-2 block w-full text-sm @xl:table">
          <caption className="sr-only">Grants each claim value gives</caption>
          <thead className="hidden text-left text-xs text-slate-600 @xl:table-header-group">
            <tr>
              <th scope="col" className="px-1 py-1 font-medium">
                Claim value
              </th>
              <th scope="col" className="px-1 py-1 font-medium">
                Tool
              </th>
              <th scope="col" className="px-1 py-1 font-medium">
                Approve, up to
              </th>
              <th scope="col" className="px-1 py-1 font-medium">
                Author, up to
              </th>
              <th scope="col" className="px-1 py-1 font-medium">
                <span className="sr-only">Remove</span>
              </th>
            </tr>
          </thead>
          <tbody className="block @xl:table-row-group">
            {rows.fields.map((f, i) => {
              const row = values[i] ?? f;
              const err = errors.grants?.[i];
              const toolReg = register(`grants.${i}.tool`);
              return (
                <tr key={f.id} className="mb-2 block rounded-md border border-slate-200 p-2 @xl:mb-0 @xl:table-row @xl:rounded-none @xl:border-0 @xl:border-t @xl:p-0">
                  <td className={cellClass}>
                    <span className={cellCaption} aria-hidden="true">
                      Claim value
                    </span>
                    <input
                      id={cellId(i, "value")}
                      aria-label={`Claim value of grant row ${i + 1}`}
                      autoComplete="off"
                      spellCheck={false}
                      placeholder="e.g. approvers"
                      {...register(`grants.${i}.value`)}
                      aria-invalid={!!err?.value}
                      aria-describedby={err?.value ? `${cellId(i, "value")}-error` : undefined}
                      className="w-full min-w-0 rounded-md border border-slate-300 px-2 py-1 text-sm aria-[invalid=true]:border-red-600 @xl:w-44"
                    />
                    {errorText(i, "value", err?.value?.message)}
                  </td>
                  <td className={cellClass}>
                    <span className={cellCaption} aria-hidden="true">
                      Tool
                    </span>
                    <select
                      id={cellId(i, "tool")}
                      aria-label={`Tool of grant row ${i + 1}`}
                      {...toolReg}
                      onChange={(e) => {
                        // a tool that moves no money takes no ceiling
                        if (!toolMovesMoney(e.target.value)) {
                          setValue(`grants.${i}.approveLimit`, null);
                          setValue(`grants.${i}.authorLimit`, null);
                        }
                        return toolReg.onChange(e);
                      }}
                      aria-invalid={!!err?.tool}
                      aria-describedby={err?.tool ? `${cellId(i, "tool")}-error` : undefined}
                      className="w-full min-w-0 rounded-md border border-slate-300 px-1 py-1 text-sm aria-[invalid=true]:border-red-600 @xl:w-36"
                    >
                      {tools.map((t) => (
                        <option key={t.name} value={t.name}>
                          {t.label}
                          {t.imported ? " (imported)" : ""}
                        </option>
                      ))}
                    </select>
                    {errorText(i, "tool", err?.tool?.message)}
                  </td>
                  <td className={cellClass}>
                    <label className="flex items-center gap-2 whitespace-nowrap">
                      <input type="checkbox" {...register(`grants.${i}.canApprove`)} />
                      <span>
                        May approve
                        <span className="sr-only"> (grant row {i + 1})</span>
                      </span>
                    </label>
                    {ceiling(i, "approveLimit", row.canApprove, row.tool, "Approval")}
                  </td>
                  <td className={cellClass}>
                    <label className="flex items-center gap-2 whitespace-nowrap">
                      <input type="checkbox" {...register(`grants.${i}.canAuthor`)} />
                      <span>
                        May author
                        <span className="sr-only"> (grant row {i + 1})</span>
                      </span>
                    </label>
                    {ceiling(i, "authorLimit", row.canAuthor, row.tool, "Authoring")}
                  </td>
                  <td className={`${cellClass} text-right`}>
                    <button type="button" className={quietButtonClass} aria-label={`Remove grant row ${i + 1}`} onClick={() => remove(i)}>
                      Remove
                    </button>
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      )}
      {tableError && <p className="mt-1 text-sm text-red-700">{tableError}</p>}
      <button id="oidc-grants-add" type="button" className={`${quietButtonClass} mt-2`} disabled={tools.length === 0} onClick={add}>
        Add a grant
      </button>
    </div>
  );
}
