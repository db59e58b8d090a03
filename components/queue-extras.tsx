"use client";

import { useEffect, useRef, useState } from "react";
import { formatMoney } from "@/lib/money/format-money";
import { QUEUE_VIEW_LABELS, type QueueFilterState } from "@/lib/queue/queue-views";
import { statusLabel } from "@/lib/text/format";
import type { QueueRow } from "@/lib/api/schemas";
import { keyIsNotForShortcuts, useShortcut } from "./keyboard-shortcuts";

/**
 * A queue row's "At stake": the money its current plan moves, per currency, and a badge per kind
 * of risky step (another account, irreversible). "—" when the plan moves no money and has no risk.
 */
export function AtStake({ row, className = "" }: { row: Pick<QueueRow, "atStake" | "risks">; className?: string }) {
  const money = row.atStake ?? [];
  const r = row.risks;
  if (money.length === 0 && !r?.otherAccount && !r?.irreversible) return <span className={`text-slate-500 ${className}`}>—</span>;
  return (
    <span className={`flex flex-wrap items-center gap-1 ${className}`}>
      {money.map((m) => (
        <span key={m.currency} className="font-medium tabular-nums whitespace-nowrap">
          {formatMoney(m)}
        </span>
      ))}
      {!!r?.otherAccount && (
        <span data-testid="risk-other-account" className="rounded bg-red-100 px-1.5 py-0.5 text-xs font-medium text-red-900 whitespace-nowrap">
          another account
        </span>
      )}
      {!!r?.irreversible && (
        <span data-testid="risk-irreversible" className="rounded bg-slate-200 px-1.5 py-0.5 text-xs text-slate-900 whitespace-nowrap">
          {r.irreversible} irreversible
        </span>
      )}
    </span>
  );
}

/** Placeholder rows while the queue's first page loads (never "0 runs" before anything is known). */
export function QueueSkeleton({ phone, rows = 6 }: { phone: boolean; rows?: number }) {
  return (
    <div role="status" aria-label="Loading runs" data-testid="queue-skeleton" className="mt-3 space-y-2">
      <span className="sr-only">Loading runs…</span>
      {Array.from({ length: rows }, (_, i) => (
        <div key={i} aria-hidden="true" className={`animate-pulse rounded-lg border border-slate-200 bg-white p-3 ${phone ? "h-24" : "h-11"}`}>
          <div className="h-3 w-1/3 rounded bg-slate-200" />
          <div className="mt-2 h-3 w-2/3 rounded bg-slate-100" />
        </div>
      ))}
    </div>
  );
}

/**
 * What an empty queue means in this view: no waiting runs at all, nothing matching the search or
 * the filters (with "Clear filters"), nothing assigned to the viewer…
 */
export function QueueEmpty({ status, filters, onClear }: { status: string; filters: QueueFilterState; onClear: () => void }) {
  const view = filters.view ?? "all";
  const filtered = !!(filters.q || filters.tool || filters.accountId || filters.minAmountMinor != null || filters.maxAmountMinor != null || filters.minAgeHours != null || filters.maxAgeHours != null);
  const statusText = status === "all" ? "" : ` ${statusLabel(status as never).toLowerCase()}`;
  let text: string;
  if (filters.q) text = `No${statusText} run matches “${filters.q}” (ticket, account or run id).`;
  else if (view === "mine") text = `No${statusText} run is assigned to you.`;
  else if (view === "requested") text = "Nobody has asked you to decide a run.";
  else if (view === "beyond_my_limit") text = `No${statusText} run needs more authority than yours.`;
  else if (view === "near_deadline") text = "No waiting run is near its deadline.";
  else if (view === "unassigned") text = `Every${statusText} run has someone on it.`;
  else if (filtered) text = `No${statusText} run matches these filters.`;
  else text = status === "pending_review" ? "No run is waiting for review. New plans appear here as agents submit them." : `No run is${statusText || " here"}.`;
  const clearable = filtered || view !== "all" || status !== "pending_review";
  return (
    <div data-testid="queue-empty" className="mt-3 rounded-lg border border-slate-200 bg-white px-3 py-8 text-center text-sm text-slate-700">
      <p>{text}</p>
      {view !== "all" && <p className="mt-1 text-xs text-slate-500">View: {QUEUE_VIEW_LABELS[view]}</p>}
      {clearable && (
        <button type="button" onClick={onClear} className="mt-3 rounded-md border border-slate-300 px-3 py-1.5 text-sm font-medium hover:bg-slate-50">
          Clear filters
        </button>
      )}
    </div>
  );
}

/**
 * The queue's search (ticket number, account id or name, run id; in SQL): `/` focuses it, and so
 * does a digit typed outside any field (which lands in it); Enter
 * searches, and opens the run at once when one run has exactly that ticket number or id (or is
 * the only match); Escape leaves the field.
 */
export function QueueSearch({
  value,
  disabled,
  onSearch,
  onOpen,
}: {
  value: string;
  disabled: boolean;
  /** Applies the search to the queue and resolves to its first page of matches. */
  onSearch: (q: string) => Promise<Pick<QueueRow, "id" | "ticketId">[]>;
  onOpen: (runId: string) => void;
}) {
  const [text, setText] = useState(value);
  const [note, setNote] = useState<string | null>(null);
  const ref = useRef<HTMLInputElement>(null);
  useShortcut("search", () => {
    ref.current?.focus();
    ref.current?.select();
  });
  // Type to search: a digit (or "#") typed on the queue outside any field starts the search with
  // it, as `/` then the digit would (focus moves before the key lands, so the field receives it).
  useEffect(() => {
    const onKeyDown = (e: KeyboardEvent) => {
      if (e.ctrlKey || e.metaKey || e.altKey || e.isComposing || !/^[0-9#]$/.test(e.key) || keyIsNotForShortcuts(e)) return;
      const input = ref.current;
      if (!input || input.disabled) return;
      input.focus();
      input.select();
    };
    document.addEventListener("keydown", onKeyDown);
    return () => document.removeEventListener("keydown", onKeyDown);
  }, []);
  return (
    <form
      role="search"
      aria-label="Search the queue"
      className="flex flex-wrap items-center gap-2"
      onSubmit={async (e) => {
        e.preventDefault();
        const q = text.trim().replace(/^#/, "").trim();
        setNote(null);
        try {
          const runs = await onSearch(q);
          if (!q) return;
          const exact = runs.find((r) => r.ticketId === q || r.id === q) ?? (runs.length === 1 ? runs[0] : undefined);
          if (exact) onOpen(exact.id);
        } catch {
          setNote("The search could not be run; the queue was not changed. Try again.");
        }
      }}
    >
      <label htmlFor="queue-search" className="text-sm font-medium">
        Search
      </label>
      <input
        ref={ref}
        id="queue-search"
        type="search"
        value={text}
        disabled={disabled}
        onChange={(e) => setText(e.target.value)}
        onKeyDown={(e) => {
          if (e.key === "Escape") ref.current?.blur();
        }}
        placeholder="Ticket, account or run"
        aria-keyshortcuts="/"
        aria-describedby="queue-search-hint"
        className="w-full min-w-0 flex-1 rounded-md border border-slate-300 bg-white px-2 py-1 text-sm sm:max-w-xs"
      />
      <button type="submit" disabled={disabled} className="rounded-md border border-slate-300 bg-white px-3 py-1 text-sm font-medium hover:bg-slate-50">
        Search
      </button>
      <span id="queue-search-hint" className="text-xs text-slate-600">
        <kbd className="font-mono">/</kbd> or a ticket&apos;s first digit to search · Enter opens an exact ticket
      </span>
      {note && (
        <p role="alert" className="w-full text-sm text-red-800">
          {note}
        </p>
      )}
    </form>
  );
}
