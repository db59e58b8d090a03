"use client";

import { zodResolver } from "@hookform/resolvers/zod";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { useFieldArray, useForm, type Path } from "react-hook-form";
import type { z } from "zod";
import { ApiError, apiFetch } from "@/lib/client/api";
import { oidcProviderFormSchema, type OidcProviderFormValues, type OidcProviderView } from "@/lib/api/endpoints/oidc-provider-api";
import { ROLES } from "@/lib/people/admin-schemas";
import { formatInstant } from "@/lib/text/format";
import { buttonClass, CellError, dangerButtonClass, Field, FormError, inputClass, quietButtonClass } from "./form-bits";

type FormOutput = z.output<typeof oidcProviderFormSchema>;
const keyOf = (deskId: string) => ["admin", "oidc-providers", deskId] as const;
const urlOf = (deskId: string) => `/api/admin/desks/${encodeURIComponent(deskId)}/oidc-providers`;

/**
 * A desk's identity providers: the list (label, issuer, client id, status, what the claim mapping
 * gives, the URIs to register at the provider — never a client secret), the form that registers
 * one and the button that disables one, all through the admin API.
 */
export function OidcProvidersAdmin({ deskId, initialProviders }: { deskId: string; initialProviders: OidcProviderView[] }) {
  const list = useQuery({
    queryKey: keyOf(deskId),
    queryFn: () => apiFetch<{ providers: OidcProviderView[] }>(urlOf(deskId)),
    initialData: { providers: initialProviders },
  });
  const providers = list.data.providers;
  return (
    <div className="mt-6 grid grid-cols-1 gap-6 lg:grid-cols-[1fr_26rem] [&>*]:min-w-0">
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
      <RegisterProviderForm deskId={deskId} />
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
  const grants = Object.entries(m.grants).map(([v, gs]) => `${v} → ${gs.map((g) => g.tool).join(", ")}`);
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

const FIELD_ORDER = ["label", "issuer", "clientId", "clientSecret", "roleClaim", "roles", "defaultRole", "deskClaim", "grantsClaim", "grantsJson"] as const;
type FieldName = (typeof FIELD_ORDER)[number];

/** The form field a server issue's path (`issuer`, `mapping.grants.x.0.tool`) belongs to, if any. */
function fieldOfIssue(path: string): FieldName | null {
  const [top, second] = path.split(".");
  if (top === "mapping") {
    if (second === "grants") return "grantsJson";
    return (FIELD_ORDER as readonly string[]).includes(second) ? (second as FieldName) : null;
  }
  return (FIELD_ORDER as readonly string[]).includes(top) ? (top as FieldName) : null;
}

const EMPTY: OidcProviderFormValues = { label: "", issuer: "", clientId: "", clientSecret: "", roleClaim: "", roles: [], defaultRole: "operator", deskClaim: "", grantsClaim: "", grantsJson: "" };

function RegisterProviderForm({ deskId }: { deskId: string }) {
  const qc = useQueryClient();
  const [formError, setFormError] = useState<string | null>(null);
  const [registered, setRegistered] = useState<OidcProviderView | null>(null);
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
      const placed = issues.map((i) => [fieldOfIssue(i.path ?? ""), i.message ?? (e as ApiError).message] as const).filter((x): x is [FieldName, string] => x[0] !== null);
      for (const [field, message] of placed) form.setError(field as Path<OidcProviderFormValues>, { type: "server", message });
      const first = FIELD_ORDER.find((f) => placed.some(([p]) => p === f));
      if (first) form.setFocus(first === "roles" ? "roleClaim" : first);
      setFormError(placed.length > 0 ? null : e instanceof ApiError ? e.message : "Something went wrong; nothing was changed.");
    },
  });
  const text = (id: FieldName & Path<OidcProviderFormValues>, label: string, help?: string, type = "text") => (
    <Field id={`oidc-${id}`} label={label} error={(errors[id] as { message?: string } | undefined)?.message} help={help}>
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
          {text("grantsClaim", "Grants claim (empty: no grants)")}
          <Field id="oidc-grantsJson" label="Claim value → grants (JSON)" error={errors.grantsJson?.message} help='e.g. {"refund-approvers": [{"tool": "issue_refund", "canApprove": true, "approveLimit": {"minor": 50000, "currency": "USD"}, "canAuthor": false, "authorLimit": null}]}'>
            <textarea
              id="oidc-grantsJson"
              rows={4}
              spellCheck={false}
              {...register("grantsJson")}
              aria-invalid={!!errors.grantsJson}
              aria-describedby={errors.grantsJson ? "oidc-grantsJson-error" : undefined}
              className={`${inputClass} font-mono text-xs`}
            />
          </Field>
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
