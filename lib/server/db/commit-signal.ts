/**
 * Who learns at once that this process committed a change the live feed carries: the polling
 * transport of the live feed (SQLite, or PostgreSQL behind a transaction pooler without a listen
 * URL; lib/server/feed/live-feed.ts) reads the audit events right after such a commit instead of
 * at its next tick, so a decision made on this instance reaches the streams waiting on it (an
 * agent's run events, the console's pages) in milliseconds. Changes committed by other processes
 * still arrive with the poll. PostgreSQL's LISTEN transport needs none of this (NOTIFY is
 * delivered at commit).
 */

/** Transactions (their client objects) that appended an event the live feed carries. */
const liveWrites = new WeakSet<object>();
const listeners = new Set<() => void>();

/** Called by the audit writer inside transaction `tx`: its commit will be signalled. */
export function markLiveWrite(tx: object): void {
  liveWrites.add(tx);
}

/** Called once transaction `tx` committed: tells the listeners when it appended a live event. Never throws. */
export function signalCommitOf(tx: object): void {
  if (!liveWrites.has(tx)) return;
  liveWrites.delete(tx);
  for (const l of listeners) {
    try {
      l();
    } catch {
      /* a listener's failure is its own */
    }
  }
}

/** Calls `listener` after every commit that appended a live event, until the returned function is called. */
export function onLiveCommit(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}
