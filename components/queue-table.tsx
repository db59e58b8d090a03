"use client";

import { keepPreviousData, useInfiniteQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useRouter } from "next/navigation";
import { useEffect, useMemo, useRef, useState, useSyncExternalStore } from "react";
import { useHydrated } from "./use-hydrated";
import { deadlineUrgency } from "@/lib/deadline/urgency";
import { formatExpiry } from "@/lib/deadline/expiry-words";
import { formatAge, formatTimeLeft, statusLabel } from "@/lib/text/format";
import { hasDeadline } from "@/lib/lifecycle/run-state";
import { DeadlineBadge, deadlineTextClass } from "./deadline-badge";
import { useShortcut } from "./keyboard-shortcuts";
import type { QueuePage, QueueRow } from "@/lib/api/schemas";
import { QueueFilterBar, queueFilterParams, type QueueFilterState } from "./queue-filters";
import { NewBadge, NewRunsNotice, RowPresence, useQueueLive } from "./live/queue-live";
import { AtStake, QueueEmpty, QueueSearch, QueueSkeleton } from "./queue-extras";
import { navigationStarted } from "./navigation-progress";
import { ParkedBadge } from "./park-controls";
import { useServerClock } from "./use-server-clock";

const STATUSES = ["pending_review", "approved", "needs_decision", "executing", "completed", "rejected", "expired", "stopped", "failed", "all"] as const;
/** Column sorts over the loaded rows; "stake" keeps the server's order (most money at stake first, in SQL). */
type SortKey = "age" | "expiry" | "ticket" | "account" | "steps" | "gated" | "missing" | "stake";

/** Phones (under 640 px): the queue renders as cards. The server renders the table; phones switch after hydration. */
const PHONE_QUERY = "(max-width: 639px)";
function subscribePhone(onChange: () => void) {
  const mq = window.matchMedia(PHONE_QUERY);
  mq.addEventListener("change", onChange);
  return () => mq.removeEventListener("change", onChange);
}

/** One page of `GET /api/runs` (newest first) after `cursor` (null: the first page). */
async function fetchQueue(status: string, cursor: string | null, filters: QueueFilterState = {}): Promise<QueuePage> {
  const params = queueFilterParams(filters);
  if (status !== "all") params.set("status", status);
  if (cursor) params.set("cursor", cursor);
  const qs = params.toString();
  const res = await fetch(`/api/runs${qs ? `?${qs}` : ""}`, { headers: { accept: "application/json" } });
  if (!res.ok) throw new Error(`The queue could not be loaded (${res.status}).`);
  return (await res.json()) as QueuePage;
}

/**
 * The run queue: the newest page first and "Load more" for the next (keyset cursor);
 * refreshes the loaded pages every 5 s, sortable by column (over the loaded rows), filterable by status.
 * `initialNow` is the server's clock when it listed `initialPage` (its `serverNow`).
 */
export function QueueTable({ initialPage, initialStatus, initialNow, initialFilters = {}, tools }: { initialPage: QueuePage; initialStatus: string; initialNow: string; initialFilters?: QueueFilterState; tools: readonly string[] }) {
  const router = useRouter();
  const [status, setStatus] = useState(initialStatus);
  // A link to another status (the queue's needs-decision notice) renders the page again with a new
  // initialStatus: follow it (adjusted while rendering, react.dev "You might not need an effect").
  const [linkedStatus, setLinkedStatus] = useState(initialStatus);
  if (initialStatus !== linkedStatus) {
    setLinkedStatus(initialStatus);
    setStatus(initialStatus);
  }
  const [filters, setFilters] = useState<QueueFilterState>(initialFilters);
  const [cleared, setCleared] = useState(0); // remounts the search and filter fields after "Clear filters"
  // the URL keeps the status and the ownership view and filters
  const urlOf = (s: string, f: QueueFilterState) => {
    const p = queueFilterParams(f);
    p.set("status", s);
    return `/runs?${p.toString()}`;
  };
  const [sort, setSort] = useState<{ key: SortKey; dir: 1 | -1 }>(initialFilters.sort === "at_stake" ? { key: "stake", dir: -1 } : { key: "expiry", dir: 1 });
  // deadlines and ages in words on the server's clock (a browser's clock may be hours off)
  const { now, sync: syncClock } = useServerClock(initialNow);
  const mounted = useHydrated();
  const liveUp = useRef(false);
  const phone = useSyncExternalStore(subscribePhone, () => window.matchMedia(PHONE_QUERY).matches, () => false);
  const { data, isError, error, dataUpdatedAt, fetchNextPage, hasNextPage, isFetchingNextPage, isPending, isPlaceholderData } = useInfiniteQuery({
    queryKey: ["queue", status, filters],
    queryFn: async ({ pageParam }) => {
      const page = await fetchQueue(status, pageParam, filters);
      syncClock(page.serverNow);
      return page;
    },
    initialPageParam: null as string | null,
    getNextPageParam: (last) => last.nextCursor,
    initialData: status === initialStatus && filters === initialFilters ? { pages: [initialPage], pageParams: [null] } : undefined,
    refetchInterval: () => (liveUp.current ? 30_000 : 5_000), // pushed changes refetch at once; poll while the stream is down
    placeholderData: keepPreviousData, // the previous rows stay (marked as refreshing) while another status or filter loads
  });
  const loading = isPending && !data;
  const rows = useMemo<QueueRow[]>(() => {
    // A run can move between pages while they refresh one after another: show it once.
    const seen = new Set<string>();
    return (data?.pages ?? []).flatMap((p) => p.runs).filter((r) => (seen.has(r.id) ? false : (seen.add(r.id), true)));
  }, [data]);

  const sorted = useMemo(() => {
    if (sort.key === "stake") return rows; // ordered by the server
    const val = (r: QueueRow): string | number => {
      switch (sort.key) {
        case "age":
          return r.createdAt;
        case "expiry":
          return r.expiresAt;
        case "ticket":
          return r.ticketId;
        case "account":
          return r.accountName;
        case "steps":
          return r.stepCount;
        case "gated":
          return r.gatedCount;
        case "missing":
          return r.approvalsMissing ?? r.gatedCount;
        case "stake":
          return 0;
      }
    };
    return [...rows].sort((a, b) => (val(a) < val(b) ? -sort.dir : val(a) > val(b) ? sort.dir : 0));
  }, [rows, sort]);
  const live = useQueueLive(rows, initialNow);
  useEffect(() => {
    liveUp.current = live.connected;
  }, [live.connected]);
  const ordered = live.newFirst(sorted);

  // Keyboard: a current row (the first until j/k move it, kept by run id across
  // refreshes); j/k move it and focus its link, Enter opens it.
  const [currentId, setCurrentId] = useState<string | null>(null);
  const currentIndex = Math.max(0, ordered.findIndex((r) => r.id === currentId));
  const links = useRef(new Map<string, HTMLAnchorElement>());
  const moveCurrent = (by: number) => {
    if (ordered.length === 0) return;
    const focusedRow = ordered.findIndex((r) => links.current.get(r.id) === document.activeElement);
    const from = focusedRow >= 0 ? focusedRow : currentIndex;
    const next = ordered[Math.min(ordered.length - 1, Math.max(0, from + by))];
    setCurrentId(next.id);
    links.current.get(next.id)?.focus();
  };
  useShortcut("queueNext", () => moveCurrent(1));
  useShortcut("queuePrevious", () => moveCurrent(-1));
  useShortcut("queueOpen", () => {
    const r = ordered[currentIndex];
    if (r) {
      navigationStarted();
      router.push(`/runs/${r.id}`);
    }
  });
  const rowLink = (r: QueueRow) => (el: HTMLAnchorElement | null) => {
    if (el) links.current.set(r.id, el);
    else links.current.delete(r.id);
  };

  const header = (key: SortKey, label: string) => {
    const active = sort.key === key;
    return (
      <th scope="col" aria-sort={active ? (sort.dir === 1 ? "ascending" : "descending") : "none"} className="px-3 py-2 text-left font-medium">
        <button
          type="button"
          onClick={() => {
            if (key === "stake" || sort.key === "stake") {
              // "At stake" is ordered in SQL (every page, not only the loaded rows); other columns over the loaded rows
              const f: QueueFilterState = { ...filters, sort: key === "stake" ? "at_stake" : undefined };
              setFilters(f);
              router.replace(urlOf(status, f), { scroll: false });
            }
            setSort(key === "stake" ? { key, dir: -1 } : { key, dir: active ? (sort.dir === 1 ? -1 : 1) : 1 });
          }}
          className="inline-flex items-center gap-1 hover:text-slate-950"
        >
          {label}
          <span aria-hidden="true" className="text-xs text-slate-500">
            {active ? (sort.dir === 1 ? "▲" : "▼") : "↕"}
          </span>
        </button>
      </th>
    );
  };

  return (
    <section aria-label="Runs" className="mt-4">
      <QueueSearch
        key={`search-${cleared}`}
        value={filters.q ?? ""}
        disabled={!mounted}
        onSearch={(q) => {
          const f: QueueFilterState = { ...filters, q: q || undefined };
          setFilters(f);
          router.replace(urlOf(status, f), { scroll: false });
          return fetchQueue(status, null, { ...f, sort: undefined }).then((p) => p.runs);
        }}
        onOpen={(id) => {
          navigationStarted();
          router.push(`/runs/${id}`);
        }}
      />
      <div className="mt-3 flex flex-wrap items-center gap-3">
        <label htmlFor="status-filter" className="text-sm font-medium">
          Status
        </label>
        <select
          id="status-filter"
          value={status}
          // Disabled until hydrated: a choice made before React takes over would be silently reset.
          disabled={!mounted}
          onChange={(e) => {
            setStatus(e.target.value);
            router.replace(urlOf(e.target.value, filters), { scroll: false });
          }}
          className="rounded-md border border-slate-300 bg-white px-2 py-1 text-sm"
        >
          {STATUSES.map((s) => (
            <option key={s} value={s}>
              {s === "all" ? "All" : statusLabel(s)}
            </option>
          ))}
        </select>
        <span className="text-xs text-slate-500" aria-live="polite" data-testid="queue-count">
          {loading ? "Loading runs…" : isPlaceholderData ? "Refreshing… " : ""}
          {loading ? "" : rows.length}
          {loading ? "" : hasNextPage ? "+" : ""}{loading ? "" : ` run${rows.length === 1 && !hasNextPage ? "" : "s"}`}
                    {mounted && dataUpdatedAt ? ` · refreshed ${new Date(dataUpdatedAt).toLocaleTimeString("en-GB", { timeZone: "UTC" })} UTC` : ""}
        </span>
      </div>
      <QueueFilterBar
        key={`filters-${cleared}`}
        value={filters}
        tools={tools}
        disabled={!mounted}
        onChange={(f) => {
          setFilters(f);
          router.replace(urlOf(status, f), { scroll: false });
        }}
      />
      <NewRunsNotice count={live.count} onSeen={live.markAllSeen} />
      {isError && (
        <p role="alert" className="mt-3 rounded-md border border-red-300 bg-red-50 px-3 py-2 text-sm text-red-800">
          {(error as Error).message}
        </p>
      )}
      {/* phones: one card per run, status and expiry in view (issue 14); the table from 640 px up */}
      {loading ? (
        <QueueSkeleton phone={phone} />
      ) : ordered.length === 0 ? (
        <QueueEmpty
          status={status}
          filters={filters}
          onClear={() => {
            const f: QueueFilterState = {};
            setFilters(f);
            setStatus("pending_review");
            setCleared((n) => n + 1);
            router.replace(urlOf("pending_review", f), { scroll: false });
          }}
        />
      ) : phone ? (
      <ul aria-label="Runs" aria-busy={isPlaceholderData || undefined} className={`mt-3 space-y-2 ${isPlaceholderData ? "opacity-60" : ""}`}>
        {ordered.map((r, i) => (
          <li key={r.id} aria-current={i === currentIndex ? "true" : undefined} className={`rounded-lg border p-3 text-sm ${live.isNew(r.id) ? "bg-blue-50" : "bg-white"} ${i === currentIndex ? "border-blue-600 ring-1 ring-blue-600" : live.isNew(r.id) ? "border-blue-400" : "border-slate-200"}`}>
            <div className="flex items-baseline justify-between gap-2">
              <Link ref={rowLink(r)} href={`/runs/${r.id}`} onFocus={() => setCurrentId(r.id)} onClick={() => live.markSeen([r.id])} className="font-medium text-blue-800 underline-offset-2 hover:underline">
                #{r.ticketId}
              </Link>
              {live.isNew(r.id) && <NewBadge />}
              <span className="rounded bg-slate-100 px-1.5 py-0.5 text-xs text-slate-800">{statusLabel(r.status)}</span>
            </div>
            <p className="mt-0.5 break-words text-xs text-slate-600">{r.ticketSubject}</p>
            <RowPresence runId={r.id} live={live.live} />
            <p className="mt-1 break-words text-slate-800">{r.accountName}</p>
            <AtStake row={r} className="mt-1" />
            <p className="mt-1 flex flex-wrap gap-x-3 gap-y-1 text-xs text-slate-700">
              <span>
                {r.stepCount} step{r.stepCount === 1 ? "" : "s"} · {r.approvalsMissing ?? r.gatedCount} approval{(r.approvalsMissing ?? r.gatedCount) === 1 ? "" : "s"} missing
              </span>
              <span>{r.assigneeName ? `Assigned to ${r.assigneeName}` : "Unassigned"}</span>
              {r.beyondMyLimit && <span className="rounded bg-amber-100 px-1.5 text-amber-900">beyond my limit</span>}
              {r.warningCount > 0 && <span className="rounded bg-amber-100 px-1.5 text-amber-900">{r.warningCount} warning{r.warningCount === 1 ? "" : "s"}</span>}
              <span>{formatAge(r.createdAt, now)}</span>
              {r.status === "needs_decision" && <NeedsDecisionBadge />}
              {r.concurrentRuns?.length ? <ConcurrentRunBadge runs={r.concurrentRuns} /> : null}
              {r.park && <ParkedBadge runId={r.id} park={r.park} />}
              {hasDeadline(r.status) && (
                <span className={`font-medium ${deadlineTextClass(deadlineUrgency(r, now).tone)}`}>
                  {formatExpiry(r.expiresAt, now)} <DeadlineBadge urgency={deadlineUrgency(r, now)} />
                </span>
              )}
            </p>
          </li>
        ))}
      </ul>
      ) : (
      <div aria-busy={isPlaceholderData || undefined} className={`mt-3 overflow-x-auto rounded-lg border border-slate-200 bg-white ${isPlaceholderData ? "opacity-60" : ""}`}>
        <table className="min-w-full text-sm">
          <thead className="bg-slate-50 text-slate-700">
            <tr>
              {header("ticket", "Ticket")}
              {header("account", "Account")}
              <th scope="col" className="px-3 py-2 text-left font-medium">
                Agent
              </th>
              {header("stake", "At stake")}
              {header("steps", "Steps")}
              {header("missing", "Approvals missing")}
              <th scope="col" className="px-3 py-2 text-left font-medium">
                Warnings
              </th>
              <th scope="col" className="px-3 py-2 text-left font-medium">
                Assignee
              </th>
              <th scope="col" className="px-3 py-2 text-left font-medium">
                Status
              </th>
              {header("age", "Age")}
              {header("expiry", "Expires")}
            </tr>
          </thead>
          <tbody>
            {ordered.map((r, i) => (
              <tr
                key={r.id}
                data-new={live.isNew(r.id) || undefined}
                aria-current={i === currentIndex ? "true" : undefined}
                className={`border-t border-slate-100 hover:bg-slate-50 ${i === currentIndex ? "bg-blue-50 shadow-[inset_4px_0_0_var(--color-blue-700)]" : live.isNew(r.id) ? "bg-blue-50" : ""}`}
              >
                <td className="px-3 py-2">
                  <Link ref={rowLink(r)} href={`/runs/${r.id}`} onFocus={() => setCurrentId(r.id)} onClick={() => live.markSeen([r.id])} className="font-medium text-blue-800 underline-offset-2 hover:underline">
                    #{r.ticketId}
                  </Link>
                  {live.isNew(r.id) && <NewBadge />}
                  <div className="max-w-[15rem] text-xs text-slate-600">{r.ticketSubject}</div>
                  <RowPresence runId={r.id} live={live.live} />
                </td>
                <td className="px-3 py-2">{r.accountName}</td>
                <td className="px-3 py-2 text-slate-700">{r.agentName}</td>
                <td className="px-3 py-2" data-testid="at-stake">
                  <AtStake row={r} />
                </td>
                <td className="px-3 py-2 tabular-nums">{r.stepCount}</td>
                <td className="px-3 py-2 tabular-nums" data-testid="approvals-missing">
                  <span className="whitespace-nowrap">
                    {r.approvalsMissing ?? r.gatedCount}
                    {r.approvalsMissing !== undefined && (r.approvalsNeeded ?? r.gatedCount) > 0 && <span className="text-xs text-slate-600"> of {r.approvalsNeeded ?? r.gatedCount}</span>}
                    {/* read aloud as "1 of 1 approvals missing", never run into the next number */}
                    <span className="sr-only"> approvals missing.</span>
                  </span>
                  {r.beyondMyLimit && <span className="ml-2 rounded bg-amber-100 px-1.5 py-0.5 text-xs font-medium text-amber-950">beyond my limit</span>}
                </td>
                {/* the warnings have a cell of their own: it reads "1 warning" or "2 warnings", alone */}
                <td className="px-3 py-2" data-testid="warnings-cell">
                  {r.warningCount > 0 ? (
                    <span className="whitespace-nowrap rounded bg-amber-100 px-1.5 py-0.5 text-xs text-amber-900">
                      {r.warningCount} warning{r.warningCount === 1 ? "" : "s"}
                    </span>
                  ) : (
                    <>
                      <span aria-hidden="true" className="text-slate-500">—</span>
                      <span className="sr-only">No warnings</span>
                    </>
                  )}
                </td>
                <td className="px-3 py-2" data-testid="assignee-cell">{r.assigneeName ?? <span className="text-slate-600">Unassigned</span>}</td>
                <td className="px-3 py-2">
                  {statusLabel(r.status)} {r.status === "needs_decision" && <NeedsDecisionBadge />}
                  {r.concurrentRuns?.length ? <ConcurrentRunBadge runs={r.concurrentRuns} /> : null}
                  {r.park && <ParkedBadge runId={r.id} park={r.park} />}
                </td>
                <td className="px-3 py-2 whitespace-nowrap">{formatAge(r.createdAt, now)}</td>
                <td className={`px-3 py-2 ${deadlineTextClass(deadlineUrgency(r, now).tone)}`}>
                  {/* the time stays on one line; a badge goes under it rather than past the table's edge */}
                  <span className="whitespace-nowrap">{hasDeadline(r.status) ? formatTimeLeft(r.expiresAt, now) : "—"}</span> <DeadlineBadge urgency={deadlineUrgency(r, now)} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      )}
      {hasNextPage && (
        <div className="mt-3 flex justify-center">
          <button
            type="button"
            onClick={() => void fetchNextPage()}
            disabled={isFetchingNextPage}
            className="rounded-md border border-slate-300 bg-white px-4 py-1.5 text-sm font-medium hover:bg-slate-50 disabled:opacity-60"
          >
            {isFetchingNextPage ? "Loading…" : "Load more"}
          </button>
        </div>
      )}
    </section>
  );
}

/** The queue's mark of a run that needs a person's new decision (status `needs_decision`): words, never colour alone. */
function NeedsDecisionBadge() {
  return (
    <span className="rounded bg-red-100 px-1.5 py-0.5 text-xs font-medium text-red-900" data-testid="needs-decision-badge">
      a person must decide again
    </span>
  );
}

/**
 * The queue's mark of a run whose task has another plan being executed (the row's
 * `concurrentRuns`): words, never colour alone; approving the run needs that acknowledged on its page.
 */
function ConcurrentRunBadge({ runs }: { runs: NonNullable<QueueRow["concurrentRuns"]> }) {
  return (
    <span className="mt-1 block w-fit rounded bg-amber-100 px-1.5 py-0.5 text-xs font-medium text-amber-950" data-testid="concurrent-run-badge" title={runs.map((r) => `run ${r.id} (${statusLabel(r.status)})`).join(", ")}>
      another plan for this task is being executed
    </span>
  );
}
