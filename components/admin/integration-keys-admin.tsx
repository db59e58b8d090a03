"use client";

import { zodResolver } from "@hookform/resolvers/zod";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { useForm } from "react-hook-form";
import { createIntegrationKeySchema, type CreateIntegrationKeyInput } from "@/lib/people/admin-schemas";
import { apiFetch } from "@/lib/client/api";
import { formatInstant } from "@/lib/text/format";
import type { IntegrationKeyView } from "@/lib/api/schemas";
import { INTEGRATION_SCOPES, SCOPE_DESCRIPTIONS } from "@/lib/api/integration-scopes";
import { toast } from "../toaster";
import { KeyStatusCell, RevokeKeyCell } from "./key-bits";
import { LoadMore, usePagedList } from "./paged-list";
import { applyServerError, buttonClass, Field, FormError, inputClass, quietButtonClass } from "./form-bits";

const KEYS = ["admin", "integration-keys"] as const;
/** One page of `GET /api/admin/integration-keys`. */
export type IntegrationKeysPage = { integrationKeys: IntegrationKeyView[]; nextCursor: string | null };

/** Integration keys: the list (prefix, scopes, created, last used, status), create with its scopes (the key is shown once), revoke. */
export function IntegrationKeysAdmin({ initialPage }: { initialPage: IntegrationKeysPage }) {
  const list = usePagedList(KEYS, "/api/admin/integration-keys", initialPage);
  const keys = (list.data?.pages ?? []).flatMap((p) => p.integrationKeys);
  return (
    <div className="mt-6 grid grid-cols-1 gap-6 lg:grid-cols-[1fr_22rem] [&>*]:min-w-0">
      <section aria-labelledby="integration-keys-h" className="rounded-lg border border-slate-200 bg-white p-4">
        <h2 id="integration-keys-h" className="font-semibold">
          Integration keys
        </h2>
        {keys.length === 0 ? (
          <p className="mt-1 text-sm text-slate-600">No integration keys: no ticketing system can open or change tasks, and no system of record can push records.</p>
        ) : (
          // a phone scrolls the key table inside its own box, never the page
          <div className="mt-2 overflow-x-auto" data-scrolls-inside>
          <table className="w-full text-sm">
            <thead className="text-left text-xs text-slate-600">
              <tr>
                <th scope="col" className="py-1 font-medium">
                  Name
                </th>
                <th scope="col" className="py-1 font-medium">
                  Key
                </th>
                <th scope="col" className="py-1 font-medium">
                  Scopes
                </th>
                <th scope="col" className="py-1 font-medium">
                  Created
                </th>
                <th scope="col" className="py-1 font-medium">
                  Last used
                </th>
                <th scope="col" className="py-1 font-medium">
                  Status
                </th>
                <th scope="col" className="py-1 font-medium">
                  <span className="sr-only">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {keys.map((k) => (
                <KeyRow key={k.id} integrationKey={k} />
              ))}
            </tbody>
          </table>
          </div>
        )}
        <LoadMore list={list} />
      </section>
      <CreateKeyForm />
    </div>
  );
}

function KeyRow({ integrationKey: k }: { integrationKey: IntegrationKeyView }) {
  return (
    <tr className="border-t border-slate-100 align-top">
      <td className="py-1.5">{k.name}</td>
      <td className="py-1.5 font-mono text-xs">{k.prefix}…</td>
      <td className="py-1.5 text-xs">{k.scopes.join(", ") || "none"}</td>
      <td className="py-1.5 text-xs">{formatInstant(k.createdAt)}</td>
      <td className="py-1.5 text-xs">{k.lastUsedAt ? formatInstant(k.lastUsedAt) : "never"}</td>
      <KeyStatusCell revokedAt={k.revokedAt} />
      <RevokeKeyCell apiKey={k} revokeUrl={`/api/admin/integration-keys/${k.id}/revoke`} queryKey={KEYS} />
    </tr>
  );
}

function CreateKeyForm() {
  const qc = useQueryClient();
  const [formError, setFormError] = useState<string | null>(null);
  const [created, setCreated] = useState<{ name: string; key: string } | null>(null);
  const form = useForm<CreateIntegrationKeyInput>({ resolver: zodResolver(createIntegrationKeySchema), defaultValues: { name: "", scopes: [...INTEGRATION_SCOPES] } });
  const {
    register,
    handleSubmit,
    formState: { errors },
  } = form;
  const create = useMutation({
    mutationFn: (v: CreateIntegrationKeyInput) => apiFetch<{ integrationKey: IntegrationKeyView; key: string }>("/api/admin/integration-keys", { method: "POST", body: v }),
    onSuccess: ({ integrationKey, key }) => {
      setFormError(null);
      setCreated({ name: integrationKey.name, key });
      void qc.invalidateQueries({ queryKey: KEYS });
      form.reset();
    },
    onError: (e) => setFormError(applyServerError(e, form.setError, ["name", "scopes"])),
  });
  const key = created?.key ?? "";
  return (
    <section aria-labelledby="create-integration-key-h" className="h-fit rounded-lg border border-slate-200 bg-white p-4">
      <h2 id="create-integration-key-h" className="font-semibold">
        Create an integration key
      </h2>
      <form noValidate onSubmit={handleSubmit((v) => create.mutate(v))} className="mt-3 space-y-3">
        <FormError message={formError} />
        <Field id="integration-name" label="Name (which ticketing system holds it)" error={errors.name?.message}>
          <input
            id="integration-name"
            autoComplete="off"
            {...register("name")}
            aria-invalid={!!errors.name}
            aria-describedby={errors.name ? "integration-name-error" : undefined}
            className={inputClass}
          />
        </Field>
        <fieldset aria-describedby={errors.scopes ? "integration-scopes-error" : undefined}>
          <legend className="text-sm font-medium">What it may do</legend>
          <div className="mt-1 space-y-1">
            {INTEGRATION_SCOPES.map((scope) => (
              <label key={scope} className="flex items-start gap-2 text-sm">
                <input type="checkbox" value={scope} className="mt-1" {...register("scopes")} />
                <span>
                  <span className="font-mono text-xs">{scope}</span>: {SCOPE_DESCRIPTIONS[scope]}
                </span>
              </label>
            ))}
          </div>
          {errors.scopes && (
            <p id="integration-scopes-error" className="mt-1 text-sm text-red-700">
              {errors.scopes.message}
            </p>
          )}
        </fieldset>
        <button type="submit" disabled={create.isPending} className={buttonClass}>
          {create.isPending ? "Creating…" : "Create integration key"}
        </button>
      </form>
      {created && (
        <div role="status" className="mt-3 rounded-md border border-emerald-400 bg-emerald-50 p-3 text-sm">
          <p className="font-medium text-emerald-950">New integration key for {created.name}. Copy it now: it will not be shown again.</p>
          <div className="mt-2 flex items-center gap-2">
            <label htmlFor="new-integration-key" className="sr-only">
              New integration key
            </label>
            <input id="new-integration-key" readOnly value={key} onFocus={(e) => e.currentTarget.select()} className="w-full rounded border border-emerald-300 bg-white px-2 py-1 font-mono text-xs" />
            <button
              type="button"
              className={quietButtonClass}
              onClick={() => {
                void navigator.clipboard?.writeText(key).then(
                  () => toast("Key copied."),
                  () => toast("Copy failed; select the key and copy it by hand.", "error"),
                );
              }}
            >
              Copy
            </button>
            <button type="button" className={quietButtonClass} onClick={() => setCreated(null)}>
              Done
            </button>
          </div>
        </div>
      )}
    </section>
  );
}
