/** Types of drain.mjs (plain JavaScript so the custom server runs it without a compile step). */
import type { Server } from "node:http";

/** Milliseconds an SSE client is told to wait before reconnecting when its stream ends for a drain (`retry:`). */
export declare const DRAIN_RETRY_MS: number;
/** Default bound of a drain, from the signal to exit, in seconds (PLANDESK_DRAIN_SECONDS). */
export declare const DEFAULT_DRAIN_SECONDS: number;
/** Default notice after SIGTERM before the listener closes, in seconds (PLANDESK_DRAIN_NOTICE_SECONDS). */
export declare const DEFAULT_DRAIN_NOTICE_SECONDS: number;
/** True once the process received SIGTERM/SIGINT (the readiness answer is then 503 `draining`). */
export declare function isDraining(): boolean;
/** Marks the process draining (idempotent). `now`: ms since the epoch. */
export declare function markDraining(now?: number): void;
/** Registers `end` to be called once when the drain ends the live streams; returns the unregister function. */
export declare function onDrainStream(end: () => void): () => void;
/** Ends every registered live stream; returns how many. Never throws. */
export declare function endStreams(): number;
/** Registers what the drain releases last (a pool, a LISTEN connection) under `name` (replacing an earlier one of that name). */
export declare function onDrainRelease(name: string, release: () => unknown): void;
/** Runs every registered release at once, each bounded by `timeoutMs`. Never throws. */
export declare function releaseAll(timeoutMs: number): Promise<{ released: string[]; failed: string[] }>;
/** Runs one pass of a background loop unless the process drains (then null); the drain waits for passes in flight. */
export declare function backgroundPass<T>(pass: () => Promise<T> | T): Promise<T> | null;
/** Forgets the drain state (tests only). */
export declare function resetDrainState(): void;
/** The drain's bounds in ms from PLANDESK_DRAIN_SECONDS and PLANDESK_DRAIN_NOTICE_SECONDS. Throws for a malformed value. */
export declare function parseDrainSettings(env: Record<string, string | undefined>): { boundMs: number; noticeMs: number };
/** The requests a server is answering. */
export interface RequestTracker {
  open(): number;
  closeAfterAnswer(): void;
}
/** Counts the requests `server` is answering; once draining, answers carry `Connection: close`. */
export declare function trackRequests(server: Server): RequestTracker;
/** Drains `server`; returns whether every request finished within the bound, how many were open, and the drain's duration in ms. */
export declare function drainServer(
  server: Server,
  tracker: RequestTracker,
  opts: { reason: string; noticeMs: number; boundMs: number; log?: (line: string) => void },
): Promise<{ finished: boolean; open: number; ms: number }>;
