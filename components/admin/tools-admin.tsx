"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { ApiError, apiFetch } from "@/lib/client/api";
import type { ImportResult, listToolCatalogEndpoint } from "@/lib/api/endpoints/tool-import-api";
import type { AgentView } from "@/lib/api/schemas";
import type { z } from "zod";
import { toast } from "../toaster";
import { buttonClass, FormError, inputClass } from "./form-bits";

/** `GET /api/admin/tools`'s answer. */
type Catalog = z.output<(typeof listToolCatalogEndpoint)["success"]["schema"]>;
type AgentRow = Pick<AgentView, "id" | "name" | "allowedTools">;
const KEY = ["admin", "tools"] as const;

/**
 * The tool catalog admin: import from pasted MCP `tools/list` JSON, pasted OpenAI
 * function definitions, or a configured MCP server; the imported tools with their version, effect
 * and gate; and each agent's allowlist over built-in and imported tools.
 */
export function ToolsAdmin({ initial, agents, servers }: { initial: Catalog; agents: AgentRow[]; servers: string[] }) {
  const { data: catalog = initial } = useQuery({ queryKey: KEY, queryFn: () => apiFetch<Catalog>("/api/admin/tools"), initialData: initial });
  return (
    <div className="mt-6 grid gap-6 lg:grid-cols-[1fr_26rem]">
      <div className="min-w-0 space-y-6">
        <section aria-labelledby="imported-h" className="rounded-lg border border-slate-200 bg-white p-4">
          <h2 id="imported-h" className="font-semibold">
            Imported tools {catalog.catalogVersion !== null && <span className="text-sm font-normal text-slate-600">· catalog version {catalog.catalogVersion}</span>}
          </h2>
          {catalog.imported.length === 0 ? (
            <p className="mt-2 text-sm text-slate-600">No tools imported yet: agents can call the {catalog.builtIn.length} built-in tools only.</p>
          ) : (
            <div className="relative max-w-full overflow-x-auto" data-scrolls-inside><table className="mt-2 w-full text-sm">
              <thead className="text-left text-xs text-slate-600">
                <tr>
                  <th scope="col" className="py-1 font-medium">Tool</th>
                  <th scope="col" className="py-1 font-medium">Arguments</th>
                  <th scope="col" className="py-1 font-medium">Effect · gate</th>
                  <th scope="col" className="py-1 font-medium">Since version</th>
                </tr>
              </thead>
              <tbody>
                {catalog.imported.map((t) => (
                  <tr key={t.name} className="border-t border-slate-100 align-top">
                    <td className="py-1.5">
                      <span className="font-medium">{t.label}</span> <code className="text-xs text-slate-500">{t.name}</code>
                      <p className="text-xs text-slate-600">{t.description}</p>
                    </td>
                    <td className="py-1.5 font-mono text-xs">{Object.keys((t.inputSchema.properties ?? {}) as object).join(", ") || "—"}</td>
                    <td className="py-1.5 text-xs">
                      {t.effect} · {t.gate === "auto" ? "auto-approved" : "needs approval"}
                    </td>
                    <td className="py-1.5 text-xs">
                      {t.catalogVersion} <span className="text-slate-500">({t.source}: {t.sourceRef})</span>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table></div>
          )}
        </section>
        {agents.map((a) => (
          <AllowlistForm key={a.id} agent={a} names={[...catalog.builtIn, ...catalog.imported.map((t) => t.name)]} />
        ))}
      </div>
      <ImportForm servers={servers} />
    </div>
  );
}

function ImportForm({ servers }: { servers: string[] }) {
  const qc = useQueryClient();
  const [source, setSource] = useState<"mcp_tools_list" | "openai_functions" | "mcp_server">("mcp_tools_list");
  const [label, setLabel] = useState("");
  const [payload, setPayload] = useState("");
  const [server, setServer] = useState(servers[0] ?? "");
  const [desk, setDesk] = useState("");
  const [bindings, setBindings] = useState("");
  const [error, setError] = useState<string | null>(null);
  const [result, setResult] = useState<ImportResult | null>(null);
  const run = useMutation({
    mutationFn: async () => {
      // Bindings to a desk's declared record kinds (docs/adapters.md): optional, checked by the server.
      let bound: unknown;
      if (bindings.trim()) {
        try {
          bound = JSON.parse(bindings);
        } catch {
          throw new Error("The bindings are not JSON.");
        }
      }
      const binding = { ...(desk.trim() ? { desk: desk.trim() } : {}), ...(bound !== undefined ? { bindings: bound } : {}) };
      if (source === "mcp_server") return apiFetch<ImportResult>("/api/admin/tools/import", { method: "POST", body: { source, server, ...binding } });
      let parsed: unknown;
      try {
        parsed = JSON.parse(payload);
      } catch {
        throw new Error("The pasted text is not JSON.");
      }
      return apiFetch<ImportResult>("/api/admin/tools/import", { method: "POST", body: { source, label: label || (source === "openai_functions" ? "OpenAI functions" : "MCP tools/list"), payload: parsed, ...binding } });
    },
    onSuccess: (r) => {
      setError(null);
      setResult(r);
      toast(r.created ? `Imported as catalog version ${r.catalogVersion}.` : "Nothing changed; no new catalog version.");
      void qc.invalidateQueries({ queryKey: KEY });
    },
    onError: (e) => setError(e instanceof ApiError || e instanceof Error ? e.message : "The import failed; nothing was changed."),
  });
  return (
    <form
      aria-labelledby="import-h"
      className="min-w-0 space-y-3 rounded-lg border border-slate-200 bg-white p-4"
      onSubmit={(e) => {
        e.preventDefault();
        run.mutate();
      }}
    >
      <h2 id="import-h" className="font-semibold">
        Import tools
      </h2>
      <div>
        <label htmlFor="import-source" className="block text-sm font-medium">
          From
        </label>
        <select id="import-source" className={inputClass} value={source} onChange={(e) => setSource(e.target.value as typeof source)}>
          <option value="mcp_tools_list">MCP tools/list result (pasted JSON)</option>
          <option value="openai_functions">OpenAI function definitions (pasted JSON)</option>
          <option value="mcp_server" disabled={servers.length === 0}>
            Configured MCP server{servers.length === 0 ? " (none configured)" : ""}
          </option>
        </select>
      </div>
      {source === "mcp_server" ? (
        <div>
          <label htmlFor="import-server" className="block text-sm font-medium">
            Server
          </label>
          <select id="import-server" className={inputClass} value={server} onChange={(e) => setServer(e.target.value)}>
            {servers.map((s) => (
              <option key={s}>{s}</option>
            ))}
          </select>
        </div>
      ) : (
        <>
          <div>
            <label htmlFor="import-label" className="block text-sm font-medium">
              Where it comes from
            </label>
            <input id="import-label" className={inputClass} value={label} onChange={(e) => setLabel(e.target.value)} placeholder="e.g. freight-ops MCP server 1.2" />
          </div>
          <div>
            <label htmlFor="import-payload" className="block text-sm font-medium">
              JSON
            </label>
            <textarea id="import-payload" rows={10} className={inputClass + " font-mono text-xs"} value={payload} onChange={(e) => setPayload(e.target.value)} />
            <p className="mt-1 text-xs text-slate-500">MCP annotations set the gate: read-only → auto-approved; not destructive → needs approval; destructive or unannotated → irreversible, always needs approval.</p>
          </div>
        </>
      )}
      <details>
        <summary className="cursor-pointer text-sm font-medium">Bind arguments to a desk&apos;s record kinds (optional)</summary>
        <div className="mt-2 space-y-3">
          <div>
            <label htmlFor="import-desk" className="block text-sm font-medium">
              Desk
            </label>
            <input id="import-desk" className={inputClass} value={desk} onChange={(e) => setDesk(e.target.value)} placeholder="e.g. retail" aria-describedby="import-bindings-help" />
          </div>
          <div>
            <label htmlFor="import-bindings" className="block text-sm font-medium">
              Bindings
            </label>
            <textarea id="import-bindings" rows={5} className={inputClass + " font-mono text-xs"} value={bindings} onChange={(e) => setBindings(e.target.value)} aria-describedby="import-bindings-help" placeholder='{"refund_order": {"orderId": {"record": "order"}, "amount": {"max": "order.available", "effect": {"lower": "order.available"}}}}' />
            <p id="import-bindings-help" className="mt-1 text-xs text-slate-500">
              JSON: tool → argument → record, max, window, effect, naming kinds the desk declared. A bound tool gets the refund checks: the record on this desk, its owner account in the task, money within what is available less what other runs hold. A binding that does not hold refuses the whole import.
            </p>
          </div>
        </div>
      </details>
      <FormError message={error} />
      {result && (
        <div role="status" className="rounded-md border border-emerald-300 bg-emerald-50 p-2 text-sm">
          {result.created ? `Catalog version ${result.catalogVersion}` : "No change"}: added {result.added.join(", ") || "none"}; changed {result.changed.join(", ") || "none"}; unchanged {result.unchanged.join(", ") || "none"}.
          {result.problems.length > 0 && <p className="mt-1 text-amber-900">Not imported: {result.problems.map((p) => `${p.name} (${p.reason})`).join("; ")}</p>}
        </div>
      )}
      <button type="submit" className={buttonClass} disabled={run.isPending}>
        {run.isPending ? "Importing…" : "Import"}
      </button>
    </form>
  );
}

function AllowlistForm({ agent, names }: { agent: AgentRow; names: string[] }) {
  const [allowed, setAllowed] = useState(() => new Set(agent.allowedTools));
  const [error, setError] = useState<string | null>(null);
  const save = useMutation({
    mutationFn: () => apiFetch<{ agent: AgentRow }>(`/api/admin/agents/${agent.id}/allowed-tools`, { method: "PUT", body: { allowedTools: [...allowed] } }),
    onSuccess: () => {
      setError(null);
      toast(`Saved what ${agent.name} may call.`);
    },
    onError: (e) => setError(e instanceof ApiError ? e.message : "Not saved."),
  });
  return (
    <form
      aria-label={`Tools ${agent.name} may call`}
      className="rounded-lg border border-slate-200 bg-white p-4"
      onSubmit={(e) => {
        e.preventDefault();
        save.mutate();
      }}
    >
      <fieldset>
        <legend className="font-semibold">{agent.name} may call</legend>
        <div className="mt-2 flex flex-wrap gap-x-4 gap-y-1">
          {names.map((n) => (
            <label key={n} className="flex items-center gap-1 text-sm">
              <input
                type="checkbox"
                checked={allowed.has(n)}
                onChange={(e) => {
                  const next = new Set(allowed);
                  if (e.target.checked) next.add(n);
                  else next.delete(n);
                  setAllowed(next);
                }}
              />
              <code className="text-xs">{n}</code>
            </label>
          ))}
        </div>
      </fieldset>
      <FormError message={error} />
      <button type="submit" className={buttonClass + " mt-3"} disabled={save.isPending}>
        Save allowlist of {agent.name}
      </button>
    </form>
  );
}
