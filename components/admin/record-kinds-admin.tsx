"use client";

import { useMutation } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useState, type FormEvent } from "react";
import type { RecordKindDetail, RecordKindList, RecordKindView } from "@/lib/api/record-kind-endpoints";
import { ApiError, apiFetch } from "@/lib/client/api";
import { formatInstant } from "@/lib/text/format";
import { toast } from "../toaster";
import { buttonClass, FormError, inputClass, quietButtonClass } from "./form-bits";

/** What the editor holds: the kind's name, its schema and roles as JSON text, the version it was opened at (0: new) and the note. */
interface Draft {
  kind: string;
  schema: string;
  roles: string;
  baseVersion: number;
  note: string;
}

const EXAMPLE_SCHEMA = {
  type: "object",
  properties: {
    customerId: { type: "string" },
    refundableMinor: { type: "integer", minimum: 0 },
    currency: { type: "string", enum: ["USD", "EUR"] },
    status: { type: "string", enum: ["open", "refunded"] },
    number: { type: "string" },
  },
  required: ["customerId", "refundableMinor", "currency", "status", "number"],
};
const EXAMPLE_ROLES = { owner: "customerId", balance: { available: "refundableMinor", currency: "currency" }, status: { field: "status", closedValues: ["refunded"] }, title: "number" };

const json = (v: unknown) => JSON.stringify(v, null, 2);
const NEW_DRAFT: Draft = { kind: "", schema: json(EXAMPLE_SCHEMA), roles: json(EXAMPLE_ROLES), baseVersion: 0, note: "" };
const draftOf = (k: RecordKindView): Draft => ({ kind: k.kind, schema: json(k.schema), roles: json(k.roles), baseVersion: k.version, note: "" });

/** The roles of a kind in words, e.g. "owner customerId (account) · balance refundableMinor currency · title number". */
function rolesInWords(k: RecordKindView): string {
  const r = k.roles;
  const parts = [
    r.owner && `owner ${r.owner.field} (${r.owner.kind})`,
    r.balance && `balance ${r.balance.available} ${r.balance.currency}`,
    r.status && `status ${r.status.field} (closed: ${r.status.closedValues.join(", ")})`,
    r.window && `window ${r.window.start}–${r.window.end}`,
    r.title && `title ${r.title.field}`,
  ].filter(Boolean);
  return parts.length ? parts.join(" · ") : "no roles";
}

/**
 * A desk's declared record kinds (docs/api-extensions.md "Declared record kinds"): the kinds with
 * their version and roles, and one editor — the kind's name, its fields' JSON Schema and its roles
 * as JSON, a note — that declares a new kind or saves the next version of one. The server checks
 * everything; a refusal lists each problem with its path, and a save that lost a race says so.
 */
export function RecordKindsAdmin({ list }: { list: RecordKindList }) {
  const router = useRouter();
  const [draft, setDraft] = useState<Draft>(NEW_DRAFT);
  const [formError, setFormError] = useState<string | null>(null);
  const [issues, setIssues] = useState<{ path: string; code: string; message: string }[]>([]);
  const editing = draft.baseVersion > 0;

  const save = useMutation({
    mutationFn: (body: { kind: string; schema: unknown; roles: unknown; baseVersion: number; note: string }) =>
      apiFetch<RecordKindDetail>(`/api/admin/desks/${list.desk.id}/record-kinds/${encodeURIComponent(body.kind)}`, { method: "PUT", body: { schema: body.schema, roles: body.roles, baseVersion: body.baseVersion, note: body.note } }),
    onSuccess: (d) => {
      setFormError(null);
      setIssues([]);
      toast(`Saved ${d.kind.kind}, version ${d.kind.version}.`);
      setDraft(draftOf(d.kind));
      router.refresh();
    },
    onError: (e) => {
      setIssues(e instanceof ApiError && Array.isArray(e.details.issues) ? (e.details.issues as { path: string; code: string; message: string }[]) : []);
      if (e instanceof ApiError && e.code === "stale_record_kind") setFormError(`${e.message} Nothing was saved; reload the page to see the current version.`);
      else setFormError(e instanceof ApiError ? `${e.message} Nothing was saved.` : "Saving failed; nothing changed.");
    },
  });

  const submit = (ev: FormEvent) => {
    ev.preventDefault();
    let schema: unknown;
    let roles: unknown;
    try {
      schema = JSON.parse(draft.schema);
    } catch {
      setFormError("The schema is not valid JSON. Nothing was saved.");
      return;
    }
    try {
      roles = draft.roles.trim() === "" ? {} : JSON.parse(draft.roles);
    } catch {
      setFormError("The roles are not valid JSON. Nothing was saved.");
      return;
    }
    save.mutate({ kind: draft.kind.trim(), schema, roles, baseVersion: draft.baseVersion, note: draft.note });
  };

  return (
    <div className="mt-6 space-y-6">
      <section aria-labelledby="kinds-h" className="rounded-lg border border-slate-200 bg-white">
        <h2 id="kinds-h" className="border-b border-slate-200 px-4 py-3 font-semibold">
          Record kinds of {list.desk.name} <span className="text-sm font-normal text-slate-600">({list.kinds.length} declared)</span>
        </h2>
        <p className="px-4 pt-3 text-sm text-slate-600">
          Built in on every desk: {list.builtIn.map((k) => <code key={k} className="mr-1 text-xs">{k}</code>)}. Records of a declared kind arrive through the records door (<code>/api/v1/records/&#123;kind&#125;/&#123;id&#125;</code>) and are checked against its current version.
        </p>
        {list.kinds.length === 0 ? (
          <p className="m-4 rounded-lg border border-dashed border-slate-300 p-4 text-sm text-slate-600">No kinds declared yet: this desk takes accounts, invoices, shipments and holidays only.</p>
        ) : (
          <div className="relative max-w-full overflow-x-auto" data-scrolls-inside>
            <table className="mt-3 w-full text-sm">
              <thead className="bg-slate-50 text-left text-slate-600">
                <tr>
                  <th scope="col" className="px-4 py-2 font-medium">Kind</th>
                  <th scope="col" className="px-4 py-2 text-right font-medium">Version</th>
                  <th scope="col" className="px-4 py-2 font-medium">Roles</th>
                  <th scope="col" className="px-4 py-2 font-medium">Saved</th>
                  <th scope="col" className="px-4 py-2 font-medium"><span className="sr-only">Edit</span></th>
                </tr>
              </thead>
              <tbody>
                {list.kinds.map((k) => (
                  <tr key={k.kind} className="border-t border-slate-100" data-testid={`record-kind-${k.kind}`}>
                    <td className="px-4 py-2 font-mono">{k.kind}</td>
                    <td className="px-4 py-2 text-right tabular-nums">{k.version}</td>
                    <td className="px-4 py-2 text-slate-700">{rolesInWords(k)}</td>
                    <td className="px-4 py-2 text-slate-600">
                      {formatInstant(k.savedAt)}
                      {k.savedBy ? ` by ${k.savedBy.name}` : ""} — {k.note}
                    </td>
                    <td className="whitespace-nowrap px-4 py-2">
                      <button type="button" className={quietButtonClass} onClick={() => { setDraft(draftOf(k)); setFormError(null); setIssues([]); }} aria-label={`Edit ${k.kind}`}>
                        Edit
                      </button>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </section>

      <form noValidate onSubmit={submit} aria-labelledby="kind-editor-h" className="space-y-3 rounded-lg border border-slate-200 bg-white p-4">
        <div className="flex flex-wrap items-center justify-between gap-2">
          <h2 id="kind-editor-h" className="font-semibold">
            {editing ? `Edit ${draft.kind} (version ${draft.baseVersion})` : "Declare a kind"}
          </h2>
          {editing && (
            <button type="button" className={quietButtonClass} onClick={() => { setDraft(NEW_DRAFT); setFormError(null); setIssues([]); }}>
              Declare another kind
            </button>
          )}
        </div>
        <p className="text-sm text-slate-600">
          Roles (each optional, on required top-level fields): <code>owner</code> (an account id, or <code>{"{field, kind}"}</code> for a record of another declared kind), <code>balance</code> (<code>available</code>: an integer in minor units; <code>currency</code>: a string with an enum of ISO 4217 codes or the pattern <code>^[A-Z]{"{3}"}$</code>), <code>status</code> (an enum field and the values that close a record), <code>window</code> (two date fields), <code>title</code>. Once records exist, a role cannot be removed or moved.
        </p>
        <FormError message={formError} />
        {issues.length > 0 && (
          <ul aria-label="Problems of the declaration" className="list-disc space-y-1 pl-5 text-sm text-red-800">
            {issues.map((i, n) => (
              <li key={n}>
                <code className="text-xs">{i.path}</code> ({i.code}): {i.message}
              </li>
            ))}
          </ul>
        )}
        <label className="block text-sm font-medium">
          Kind name
          <input value={draft.kind} readOnly={editing} onChange={(e) => setDraft({ ...draft, kind: e.target.value })} autoComplete="off" placeholder="order" className={`${inputClass} font-mono read-only:bg-slate-50 sm:max-w-xs`} />
        </label>
        <div className="grid grid-cols-1 gap-3 lg:grid-cols-2">
          <label className="block text-sm font-medium">
            Fields (JSON Schema)
            <textarea value={draft.schema} onChange={(e) => setDraft({ ...draft, schema: e.target.value })} rows={16} spellCheck={false} className={`${inputClass} font-mono text-xs`} />
          </label>
          <label className="block text-sm font-medium">
            Roles (JSON)
            <textarea value={draft.roles} onChange={(e) => setDraft({ ...draft, roles: e.target.value })} rows={16} spellCheck={false} className={`${inputClass} font-mono text-xs`} />
          </label>
        </div>
        <div className="flex flex-wrap items-end gap-3 border-t border-slate-100 pt-3">
          <label className="block min-w-0 flex-1 text-sm font-medium sm:max-w-md">
            Why it changes
            <input value={draft.note} onChange={(e) => setDraft({ ...draft, note: e.target.value })} className={inputClass} />
          </label>
          <button type="submit" className={buttonClass} disabled={save.isPending}>
            {save.isPending ? "Saving…" : editing ? `Save version ${draft.baseVersion + 1}` : "Declare kind"}
          </button>
        </div>
      </form>
    </div>
  );
}
