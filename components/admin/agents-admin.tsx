"use client";

import { zodResolver } from "@hookform/resolvers/zod";
import { useMutation, useQueryClient, type InfiniteData } from "@tanstack/react-query";
import { useState } from "react";
import { useForm } from "react-hook-form";
import { z } from "zod";
import { API_KEY_LIFETIME_DAYS, createAgentSchema, createApiKeySchema, type CreateAgentInput } from "@/lib/people/admin-schemas";
import { apiFetch } from "@/lib/client/api";
import { formatInstant } from "@/lib/text/format";
import type { AgentView, ApiKeyView } from "@/lib/api/schemas";
import type { CatalogToolOption } from "@/lib/tools/versioned-catalog";
import { DEFAULT_DESK } from "@/lib/desk/desks";
import { toast } from "../toaster";
import { AgentDeskControl, DeskSelect, type DeskOption } from "./desks-admin";
import { KeyStatusCell, RevokeKeyCell } from "./key-bits";
import { LoadMore, usePagedList } from "./paged-list";
import { applyServerError, buttonClass, Field, FormError, inputClass, quietButtonClass } from "./form-bits";

const AGENTS_KEY = ["admin", "agents"] as const;
/** One page of `GET /api/admin/agents`. */
export type AgentsPage = { agents: AgentView[]; nextCursor: string | null };

/** Agents, their tool allowlists and API keys (create shows a key once; revoke); a page at a time. */
export function AgentsAdmin({ initialPage, tools, desks }: { initialPage: AgentsPage; tools: readonly CatalogToolOption[]; desks: DeskOption[] }) {
  const list = usePagedList(AGENTS_KEY, "/api/admin/agents", initialPage);
  const agents = (list.data?.pages ?? []).flatMap((p) => p.agents);
  return (
    <div className="mt-6 grid gap-6 lg:grid-cols-[1fr_22rem]">
      {/* min-w-0: a key table wider than a phone scrolls inside its card instead of widening the page */}
      <div className="min-w-0 space-y-4">
        {agents.length === 0 && <p className="text-sm text-slate-600">No agents yet. Create one, then give it an API key.</p>}
        {agents.map((a) => (
          <AgentCard key={a.id} agent={a} desks={desks} />
        ))}
        <LoadMore list={list} />
      </div>
      <CreateAgentForm tools={tools} desks={desks} />
    </div>
  );
}

/** The console's key form: the server's name rule, required here, and a lifetime in days ("never" or one of API_KEY_LIFETIME_DAYS) that becomes `expiresAt` when sent. */
const apiKeyFormSchema = createApiKeySchema.pick({ name: true }).required({ name: true }).extend({ lifetime: z.string() });
type ApiKeyForm = z.infer<typeof apiKeyFormSchema>;
const lifetimeLabel = (days: number | null) => (days === null ? "Never" : days === 365 ? "In 1 year" : `In ${days} days`);

function AgentCard({ agent, desks }: { agent: AgentView; desks: DeskOption[] }) {
  const qc = useQueryClient();
  const [newKey, setNewKey] = useState<{ key: string; name: string } | null>(null);
  const [err, setErr] = useState<string | null>(null);
  const form = useForm<ApiKeyForm>({ resolver: zodResolver(apiKeyFormSchema), defaultValues: { name: "", lifetime: "never" } });
  const nameError = form.formState.errors.name?.message;
  const create = useMutation({
    mutationFn: (v: ApiKeyForm) => {
      const expiresAt = v.lifetime === "never" ? null : new Date(Date.now() + Number(v.lifetime) * 86_400_000).toISOString();
      return apiFetch<{ apiKey: ApiKeyView; key: string }>(`/api/admin/agents/${agent.id}/keys`, { method: "POST", body: { name: v.name, expiresAt } });
    },
    onSuccess: ({ key, apiKey }) => {
      setErr(null);
      setNewKey({ key, name: apiKey.name ?? apiKey.prefix });
      form.reset({ name: "", lifetime: "never" });
      void qc.invalidateQueries({ queryKey: AGENTS_KEY });
    },
    onError: (e) => setErr(applyServerError(e, form.setError, ["name"])),
  });
  const submit = form.handleSubmit((v) => create.mutate(v));
  const [now] = useState(() => Date.now());
  const active = agent.keys.filter((k) => !k.revokedAt && (k.expiresAt === null || Date.parse(k.expiresAt) > now)).length;
  return (
    <section aria-labelledby={`agent-${agent.id}`} className="rounded-lg border border-slate-200 bg-white p-4">
      <div className="flex flex-wrap items-baseline gap-2">
        <h2 id={`agent-${agent.id}`} className="break-words font-semibold">
          {agent.name}
        </h2>
        <code className="break-all text-xs text-slate-500">{agent.id}</code>
        <span className="rounded bg-slate-100 px-1.5 py-0.5 text-xs text-slate-700">desk {agent.desk}</span>
        <span className="ml-auto text-xs text-slate-600">
          {agent.runCount} {agent.runCount === 1 ? "run" : "runs"} · {active} active {active === 1 ? "key" : "keys"}
        </span>
      </div>
      <h3 className="mt-3 text-sm font-medium">May call</h3>
      <ul className="mt-1 flex flex-wrap gap-1" aria-label={`Tools ${agent.name} may call`}>
        {agent.allowedTools.map((t) => (
          <li key={t} className="rounded bg-slate-100 px-1.5 py-0.5 font-mono text-xs">
            {t}
          </li>
        ))}
      </ul>
      <AgentDeskControl agent={agent} desks={desks} onSaved={() => void qc.invalidateQueries({ queryKey: AGENTS_KEY })} />
      <h3 className="mt-4 text-sm font-medium">API keys</h3>
      {agent.keys.length === 0 ? (
        <p className="mt-1 text-sm text-slate-600">No keys: this agent cannot call the API.</p>
      ) : (
        <div className="relative max-w-full overflow-x-auto" data-scrolls-inside><table className="mt-1 w-full text-sm">
          <thead className="text-left text-xs text-slate-600">
            <tr>
              <th scope="col" className="py-1 font-medium">
                Name
              </th>
              <th scope="col" className="py-1 font-medium">
                Key
              </th>
              <th scope="col" className="py-1 font-medium">
                Created
              </th>
              <th scope="col" className="py-1 font-medium">
                Last used
              </th>
              <th scope="col" className="py-1 font-medium">
                Expires
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
            {agent.keys.map((k) => (
              <KeyRow key={k.id} agentId={agent.id} apiKey={k} />
            ))}
          </tbody>
        </table></div>
      )}
      {newKey && (
        <div role="status" className="mt-3 rounded-md border border-emerald-400 bg-emerald-50 p-3 text-sm">
          <p className="font-medium text-emerald-950">
            New API key “{newKey.name}” for {agent.name}. Copy it now: it will not be shown again.
          </p>
          <div className="mt-2 flex items-center gap-2">
            <label htmlFor={`new-key-${agent.id}`} className="sr-only">
              New API key
            </label>
            <input id={`new-key-${agent.id}`} readOnly value={newKey.key} onFocus={(e) => e.currentTarget.select()} className="w-full rounded border border-emerald-300 bg-white px-2 py-1 font-mono text-xs" />
            <button
              type="button"
              className={quietButtonClass}
              onClick={() => {
                void navigator.clipboard?.writeText(newKey.key).then(
                  () => toast("Key copied."),
                  () => toast("Copy failed; select the key and copy it by hand.", "error"),
                );
              }}
            >
              Copy
            </button>
            <button type="button" className={quietButtonClass} onClick={() => setNewKey(null)}>
              Done
            </button>
          </div>
        </div>
      )}
      <form noValidate onSubmit={submit} className="mt-3 flex flex-wrap items-end gap-2" aria-label={`New API key for ${agent.name}`}>
        <div className="min-w-[12rem] flex-1">
          <label htmlFor={`key-name-${agent.id}`} className="block text-sm font-medium">
            Key name <span className="text-xs font-normal text-slate-600">where it is used, e.g. “prod executor”</span>
          </label>
          <input
            id={`key-name-${agent.id}`}
            autoComplete="off"
            maxLength={100}
            {...form.register("name")}
            aria-invalid={!!nameError}
            aria-describedby={nameError ? `key-name-${agent.id}-error` : undefined}
            className={inputClass}
          />
          {nameError && (
            <p id={`key-name-${agent.id}-error`} className="mt-1 text-sm text-red-700">
              {nameError}
            </p>
          )}
        </div>
        <div>
          <label htmlFor={`key-lifetime-${agent.id}`} className="block text-sm font-medium">
            Expires
          </label>
          <select id={`key-lifetime-${agent.id}`} {...form.register("lifetime")} className="mt-1 rounded-md border border-slate-300 bg-white px-2 py-2 text-sm">
            {API_KEY_LIFETIME_DAYS.map((d) => (
              <option key={String(d)} value={d === null ? "never" : String(d)}>
                {lifetimeLabel(d)}
              </option>
            ))}
          </select>
        </div>
        <button type="submit" className={buttonClass} disabled={create.isPending}>
          {create.isPending ? "Creating…" : `Create API key for ${agent.name}`}
        </button>
      </form>
      {err && (
        <p role="alert" className="mt-2 text-sm text-red-700">
          {err}
        </p>
      )}
    </section>
  );
}

function KeyRow({ agentId, apiKey }: { agentId: string; apiKey: ApiKeyView }) {
  return (
    <tr className="border-t border-slate-100 align-top">
      <td className="py-1.5 pr-2 text-sm break-words">{apiKey.name ?? <span className="text-slate-600">unnamed</span>}</td>
      <td className="py-1.5 pr-2 font-mono text-xs">{apiKey.prefix}…</td>
      <td className="py-1.5 pr-2 text-xs">{formatInstant(apiKey.createdAt)}</td>
      <td className="py-1.5 pr-2 text-xs">{apiKey.lastUsedAt ? formatInstant(apiKey.lastUsedAt) : "never"}</td>
      <td className="py-1.5 pr-2 text-xs">{apiKey.expiresAt ? formatInstant(apiKey.expiresAt) : "never"}</td>
      <KeyStatusCell revokedAt={apiKey.revokedAt} expiresAt={apiKey.expiresAt} />
      <RevokeKeyCell apiKey={apiKey} revokeUrl={`/api/admin/agents/${agentId}/keys/${apiKey.id}/revoke`} queryKey={AGENTS_KEY} />
    </tr>
  );
}

function CreateAgentForm({ tools, desks }: { tools: readonly CatalogToolOption[]; desks: DeskOption[] }) {
  const qc = useQueryClient();
  const [formError, setFormError] = useState<string | null>(null);
  const form = useForm<z.input<typeof createAgentSchema>, unknown, CreateAgentInput>({
    resolver: zodResolver(createAgentSchema),
    defaultValues: { name: "", allowedTools: [], desk: desks[0]?.id ?? DEFAULT_DESK },
  });
  const {
    register,
    handleSubmit,
    formState: { errors },
  } = form;
  const create = useMutation({
    mutationFn: (v: CreateAgentInput) => apiFetch<{ agent: AgentView }>("/api/admin/agents", { method: "POST", body: v }),
    onSuccess: ({ agent }) => {
      setFormError(null);
      // The newest agent goes last (oldest first): shown at the end of the loaded pages at once,
      // not refetched away when more pages exist on the server.
      qc.setQueryData<InfiniteData<AgentsPage, string | null>>(AGENTS_KEY, (d) =>
        d ? { ...d, pages: d.pages.map((p, i) => (i === d.pages.length - 1 ? { ...p, agents: [...p.agents, agent] } : p)) } : d,
      );
      form.reset();
      toast(`Created agent ${agent.name}. Create an API key for it next.`);
    },
    onError: (e) => setFormError(applyServerError(e, form.setError, ["name", "allowedTools", "desk"])),
  });
  return (
    <section aria-labelledby="create-agent-h" className="h-fit rounded-lg border border-slate-200 bg-white p-4">
      <h2 id="create-agent-h" className="font-semibold">
        Create an agent
      </h2>
      <form noValidate onSubmit={handleSubmit((v) => create.mutate(v))} className="mt-3 space-y-3">
        <FormError message={formError} />
        <Field id="agent-name" label="Name" error={errors.name?.message}>
          <input id="agent-name" autoComplete="off" {...register("name")} aria-invalid={!!errors.name} aria-describedby={errors.name ? "agent-name-error" : undefined} className={inputClass} />
        </Field>
        <Field id="agent-desk" label="Desk" error={errors.desk?.message} help="The agent reads, plans and claims for this desk only.">
          <DeskSelect id="agent-desk" desks={desks} register={register("desk")} invalid={!!errors.desk} />
        </Field>
        <fieldset aria-describedby={errors.allowedTools ? "agent-tools-error" : undefined}>
          <legend className="text-sm font-medium">Tools it may call</legend>
          <div className="mt-1 space-y-1">
            {tools.map((t) => (
              <label key={t.name} className="flex flex-wrap items-center gap-x-2 text-sm">
                <input type="checkbox" value={t.name} {...register("allowedTools")} />
                {t.label} <span className="break-all font-mono text-xs text-slate-500">{t.name}</span>
                {t.imported && <span className="text-xs text-slate-500">(imported)</span>}
              </label>
            ))}
          </div>
          {errors.allowedTools && (
            <p id="agent-tools-error" className="mt-1 text-sm text-red-700">
              {errors.allowedTools.message}
            </p>
          )}
        </fieldset>
        <button type="submit" disabled={create.isPending} className={buttonClass}>
          {create.isPending ? "Creating…" : "Create agent"}
        </button>
      </form>
    </section>
  );
}
