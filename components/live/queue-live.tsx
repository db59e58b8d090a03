"use client";

import { useQueryClient } from "@tanstack/react-query";
import { useCallback, useEffect, useState } from "react";
import { presenceSentences } from "@/lib/live/live-event";
import { othersOn, useLive } from "./live-store";

/**
 * The queue's live part: refetches the queue when the live stream reports a change;
 * marks runs submitted after the page was loaded as new until the person opens them or marks them
 * seen (sorted first, a "New" badge in words, "(N new)" in the tab title).
 * `rows`: the loaded rows; `loadedAt`: when the page was rendered (ISO-8601 UTC).
 */
export function useQueueLive(rows: { id: string; createdAt: string }[], loadedAt: string) {
  const qc = useQueryClient();
  const onChange = useCallback(() => void qc.invalidateQueries({ queryKey: ["queue"] }), [qc]);
  const live = useLive(onChange);
  const [seen, setSeen] = useState<ReadonlySet<string>>(() => new Set());
  const newIds = rows.filter((r) => r.createdAt > loadedAt && !seen.has(r.id)).map((r) => r.id);
  const newSet = new Set(newIds);
  const count = newIds.length;
  useEffect(() => {
    const base = document.title.replace(/^\(\d+ new\) /, "");
    document.title = count > 0 ? `(${count} new) ${base}` : base;
  }, [count]);
  useEffect(() => () => void (document.title = document.title.replace(/^\(\d+ new\) /, "")), []);
  return {
    connected: live.connected,
    live,
    count,
    isNew: (id: string) => newSet.has(id),
    markSeen: (ids: string[]) => setSeen((s) => new Set([...s, ...ids])),
    markAllSeen: () => setSeen((s) => new Set([...s, ...newIds])),
    /** `sorted` with the new runs first (their order kept). */
    newFirst: <T extends { id: string }>(sorted: T[]) => [...sorted.filter((r) => newSet.has(r.id)), ...sorted.filter((r) => !newSet.has(r.id))],
  };
}

/** "New" badge of a run submitted while the queue was open (words, not colour alone). */
export function NewBadge() {
  return <span className="ml-2 rounded bg-blue-700 px-1.5 py-0.5 text-xs font-semibold text-white">New</span>;
}

/** Who else has this run open ("Sofia Supervisor is viewing"), from the live stream; nothing when nobody. */
export function RowPresence({ runId, live }: { runId: string; live: ReturnType<typeof useLive> }) {
  const sentences = presenceSentences(othersOn(live, runId));
  if (sentences.length === 0) return null;
  return <div className="text-xs text-emerald-800" data-testid="row-presence">● {sentences.join(" · ")}</div>;
}

/** "2 new runs · Mark as seen" above the queue while there are new runs. */
export function NewRunsNotice({ count, onSeen }: { count: number; onSeen: () => void }) {
  if (count === 0) return null;
  return (
    <p role="status" className="mt-3 flex items-center gap-3 rounded-md border border-blue-300 bg-blue-50 px-3 py-1.5 text-sm text-blue-950">
      {count} new run{count === 1 ? "" : "s"} since you opened the queue (listed first).
      <button type="button" onClick={onSeen} className="ml-auto underline">
        Mark as seen
      </button>
    </p>
  );
}
