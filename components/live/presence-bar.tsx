"use client";

import { useQueryClient } from "@tanstack/react-query";
import { useCallback, useEffect } from "react";
import { PRESENCE_HEARTBEAT_MS, presenceSentences } from "@/lib/live/live-event";
import { othersOn, useLive, type LiveChange } from "./live-store";

/**
 * The run page's live part: says this person has the run open — `editing` while their
 * edit form is open — every PRESENCE_HEARTBEAT_MS and `left` when they go; shows who else is on the
 * run ("Sofia Supervisor is viewing", "Sam Senior is editing"); and refetches the run (and the
 * queue) as soon as the live stream reports a change of it.
 */
export function PresenceBar({ runId, editing }: { runId: string; editing: boolean }) {
  const qc = useQueryClient();
  const onChange = useCallback(
    (e: LiveChange) => {
      if (e.kind === "resync" || e.runId === runId) void qc.invalidateQueries({ queryKey: ["run", runId] });
      void qc.invalidateQueries({ queryKey: ["queue"] });
    },
    [qc, runId],
  );
  const live = useLive(onChange);
  const mode = editing ? "editing" : "viewing";
  useEffect(() => {
    const beat = () =>
      void fetch(`/api/runs/${runId}/presence`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ mode }) }).catch(() => {});
    beat();
    const t = setInterval(beat, PRESENCE_HEARTBEAT_MS);
    return () => clearInterval(t);
  }, [runId, mode]);
  useEffect(() => {
    const leave = () =>
      void fetch(`/api/runs/${runId}/presence`, { method: "POST", keepalive: true, headers: { "content-type": "application/json" }, body: JSON.stringify({ mode: "left" }) }).catch(() => {});
    window.addEventListener("pagehide", leave);
    return () => {
      window.removeEventListener("pagehide", leave);
      leave();
    };
  }, [runId]);
  const sentences = presenceSentences(othersOn(live, runId));
  return (
    <div aria-live="polite" data-testid="presence" className="flex flex-wrap items-center gap-2 text-sm">
      {sentences.map((s) => (
        <span key={s} className="inline-flex items-center gap-1 rounded-full border border-emerald-300 bg-emerald-50 px-2 py-0.5 text-emerald-900">
          <span aria-hidden="true">●</span> {s}
        </span>
      ))}
      {!live.connected && <span className="text-xs text-slate-500">Live updates paused; refreshing every few seconds.</span>}
    </div>
  );
}

/** True while the tab's live stream is connected (pages poll slower then). */
export function useLiveConnected(): boolean {
  return useLive().connected;
}
