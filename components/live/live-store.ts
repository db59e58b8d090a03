"use client";

import { useEffect, useSyncExternalStore } from "react";
import { PRESENCE_TTL_MS, type LiveEvent, type LiveHello, type PresenceEntry } from "@/lib/live/live-event";

/**
 * The browser side of the live feed: ONE EventSource on `GET /api/live` per tab,
 * opened while at least one component uses it and closed after the last one unmounts. It keeps
 * the presence of everyone on the viewer's desk (from the `hello` snapshot and `presence` events),
 * passes `change` events to listeners, and a `resync` on every (re)connect. `connected` is false while the stream is down (the
 * browser reconnects by itself; pages poll meanwhile).
 */
type Snapshot = { connected: boolean; you: string | null; presence: PresenceEntry[] };
/**
 * What a page's `onChange` hears: a run change, or `resync` when the stream (re)connects — a change
 * made before the stream was open (between the page's render and the stream's `hello`, or while it
 * was down) is never pushed, so a page refetches what it shows.
 */
export type LiveChange = Extract<LiveEvent, { kind: "change" }> | { kind: "resync" };
let snapshot: Snapshot = { connected: false, you: null, presence: [] };
const presence = new Map<string, PresenceEntry>();
const subscribers = new Set<() => void>();
const changeListeners = new Set<(e: LiveChange) => void>();
let source: EventSource | null = null;
let users = 0;
let sweep: ReturnType<typeof setInterval> | null = null;

function publish(next: Partial<Snapshot>) {
  snapshot = { ...snapshot, ...next };
  for (const s of subscribers) s();
}

function refreshPresence() {
  const cutoff = Date.now() - PRESENCE_TTL_MS;
  for (const [k, p] of presence) if (new Date(p.seenAt).getTime() < cutoff) presence.delete(k);
  publish({ presence: [...presence.values()] });
}

function open() {
  if (source || typeof EventSource === "undefined") return;
  const es = new EventSource("/api/live");
  source = es;
  es.onopen = () => publish({ connected: true });
  es.onerror = () => publish({ connected: false });
  es.addEventListener("hello", (m) => {
    const hello = JSON.parse((m as MessageEvent<string>).data) as LiveHello;
    presence.clear();
    for (const p of hello.presence) presence.set(`${p.userId}|${p.runId}`, p);
    publish({ connected: true, you: hello.you });
    refreshPresence();
    for (const l of changeListeners) l({ kind: "resync" });
  });
  es.addEventListener("presence", (m) => {
    const e = JSON.parse((m as MessageEvent<string>).data) as Extract<LiveEvent, { kind: "presence" }>;
    const key = `${e.userId}|${e.runId}`;
    if (e.mode === "left") presence.delete(key);
    else presence.set(key, { runId: e.runId, userId: e.userId, name: e.name, mode: e.mode, seenAt: e.seenAt });
    refreshPresence();
  });
  es.addEventListener("change", (m) => {
    const e = JSON.parse((m as MessageEvent<string>).data) as Extract<LiveEvent, { kind: "change" }>;
    for (const l of changeListeners) l(e);
  });
  sweep = setInterval(refreshPresence, 5_000);
}

function close() {
  source?.close();
  source = null;
  if (sweep) clearInterval(sweep);
  sweep = null;
  publish({ connected: false });
}

function subscribe(onChange: () => void) {
  subscribers.add(onChange);
  return () => subscribers.delete(onChange);
}

const SERVER_SNAPSHOT: Snapshot = { connected: false, you: null, presence: [] };

/**
 * Keeps the tab's live stream open while the calling component is mounted and returns its state
 * ({connected, you, presence}); `onChange` (optional) is called for every run change the viewer
 * may see.
 */
export function useLive(onChange?: (e: LiveChange) => void): Snapshot {
  useEffect(() => {
    users++;
    open();
    return () => {
      users--;
      if (users === 0) close();
    };
  }, []);
  useEffect(() => {
    if (!onChange) return;
    changeListeners.add(onChange);
    return () => void changeListeners.delete(onChange);
  }, [onChange]);
  return useSyncExternalStore(subscribe, () => snapshot, () => SERVER_SNAPSHOT);
}

/** Everyone else on `runId` right now (the viewer excluded), by the live stream's presence. */
export function othersOn(s: Snapshot, runId: string): PresenceEntry[] {
  return s.presence.filter((p) => p.runId === runId && p.userId !== s.you);
}
