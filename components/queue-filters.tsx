"use client";

import { useState } from "react";
import { QUEUE_VIEWS, QUEUE_VIEW_LABELS, type QueueFilterState } from "@/lib/queue/queue-views";

export { queueFilterParams, type QueueFilterState } from "@/lib/queue/queue-views";

/** Dollars typed ("1,060.50") → minor units, or undefined for an empty or unreadable box. */
const toMinor = (s: string) => {
  const n = Number(s.replace(/[,\s$]/g, ""));
  return s.trim() && Number.isFinite(n) && n >= 0 ? Math.round(n * 100) : undefined;
};
const toHours = (s: string) => {
  const n = Number(s);
  return s.trim() && Number.isFinite(n) && n >= 0 ? n : undefined;
};

const field = "mt-1 w-full rounded-md border border-slate-300 bg-white px-2 py-1 text-sm";

/**
 * View buttons (Mine, Unassigned, Beyond my limit, Near deadline, Requested of me) and the filter
 * fields. `tools`: the tool names the Tool filter offers, from the server (the tool definitions and
 * their schemas stay out of the page's JavaScript).
 */
export function QueueFilterBar({ value, onChange, disabled, tools }: { value: QueueFilterState; onChange: (f: QueueFilterState) => void; disabled: boolean; tools: readonly string[] }) {
  const view = value.view ?? "all";
  const [draft, setDraft] = useState({
    tool: value.tool ?? "",
    accountId: value.accountId ?? "",
    min: value.minAmountMinor !== undefined ? String(value.minAmountMinor / 100) : "",
    max: value.maxAmountMinor !== undefined ? String(value.maxAmountMinor / 100) : "",
    minAge: value.minAgeHours !== undefined ? String(value.minAgeHours) : "",
    maxAge: value.maxAgeHours !== undefined ? String(value.maxAgeHours) : "",
  });
  return (
    <div className="mt-3 space-y-2">
      <div role="group" aria-label="Queue view" className="flex flex-wrap gap-1">
        {QUEUE_VIEWS.map((v) => (
          <button
            key={v}
            type="button"
            disabled={disabled}
            aria-pressed={view === v}
            onClick={() => onChange({ ...value, view: v })}
            className={`rounded-full border px-3 py-1 text-sm ${view === v ? "border-blue-800 bg-blue-800 text-white" : "border-slate-300 bg-white text-slate-800 hover:bg-slate-50"}`}
          >
            {QUEUE_VIEW_LABELS[v]}
          </button>
        ))}
      </div>
      <form
        aria-label="Queue filters"
        className="grid grid-cols-2 items-end gap-2 sm:grid-cols-4 lg:grid-cols-7"
        onSubmit={(e) => {
          e.preventDefault();
          onChange({
            view: value.view,
            tool: draft.tool || undefined,
            accountId: draft.accountId.trim() || undefined,
            minAmountMinor: toMinor(draft.min),
            maxAmountMinor: toMinor(draft.max),
            minAgeHours: toHours(draft.minAge),
            maxAgeHours: toHours(draft.maxAge),
          });
        }}
      >
        <div>
          <label htmlFor="f-tool" className="block text-xs font-medium">
            Tool
          </label>
          <select id="f-tool" className={field} value={draft.tool} onChange={(e) => setDraft({ ...draft, tool: e.target.value })}>
            <option value="">Any tool</option>
            {tools.map((t) => (
              <option key={t} value={t}>
                {t}
              </option>
            ))}
          </select>
        </div>
        <div>
          <label htmlFor="f-account" className="block text-xs font-medium">
            Account id
          </label>
          <input id="f-account" className={field} value={draft.accountId} placeholder="acc_" onChange={(e) => setDraft({ ...draft, accountId: e.target.value })} />
        </div>
        <div>
          <label htmlFor="f-min" className="block text-xs font-medium">
            Step amount from
          </label>
          <input id="f-min" inputMode="decimal" className={field} value={draft.min} onChange={(e) => setDraft({ ...draft, min: e.target.value })} />
        </div>
        <div>
          <label htmlFor="f-max" className="block text-xs font-medium">
            Step amount to
          </label>
          <input id="f-max" inputMode="decimal" className={field} value={draft.max} onChange={(e) => setDraft({ ...draft, max: e.target.value })} />
        </div>
        <div>
          <label htmlFor="f-minage" className="block text-xs font-medium">
            Older than (hours)
          </label>
          <input id="f-minage" inputMode="decimal" className={field} value={draft.minAge} onChange={(e) => setDraft({ ...draft, minAge: e.target.value })} />
        </div>
        <div>
          <label htmlFor="f-maxage" className="block text-xs font-medium">
            Newer than (hours)
          </label>
          <input id="f-maxage" inputMode="decimal" className={field} value={draft.maxAge} onChange={(e) => setDraft({ ...draft, maxAge: e.target.value })} />
        </div>
        <button type="submit" disabled={disabled} className="rounded-md border border-slate-400 bg-white px-3 py-1 text-sm font-medium hover:bg-slate-50 disabled:opacity-60">
          Apply filters
        </button>
      </form>
    </div>
  );
}
