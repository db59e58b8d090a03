import { AsyncLocalStorage } from "node:async_hooks";

/*
 * Foreground first (docs/design.md "Systems of record: the one door", decisions during an import):
 * an instance counts the requests in flight that a person or an agent waits on (every route but
 * the streamed bulk ones), and bulk work on the same instance — the records batch — starts its
 * next transaction only when none is in flight, or when it has waited its bound. A decision then
 * shares the instance's CPU and its database connection with at most one short import
 * transaction, never with a queue of them. A request that only waits (a long poll between two
 * reads) does not count while it waits. Per instance: another instance's import is not seen (the
 * database's own scheduling is the bound there).
 */

let inFlight = 0;
let waiters: (() => void)[] = [];

/** One foreground request's mark: counted while `active`. */
interface Mark {
  active: boolean;
}
const current = new AsyncLocalStorage<Mark>();

function wakeIfQuiet() {
  if (inFlight !== 0) return;
  const ready = waiters;
  waiters = [];
  for (const w of ready) w();
}

function leave(mark: Mark) {
  if (!mark.active) return;
  mark.active = false;
  inFlight--;
  // Wake the waiters only if the instance is still quiet after the callbacks already queued
  // (an agent's next call chained on this answer starts first).
  if (inFlight === 0) setImmediate(wakeIfQuiet);
}

/**
 * Runs `work` as one foreground request: counted as in flight until it settles (its answer may
 * still stream afterwards: a stream is not counted). Resolves or rejects as `work` does.
 */
export async function asForeground<T>(work: () => Promise<T>): Promise<T> {
  const mark: Mark = { active: true };
  inFlight++;
  try {
    return await current.run(mark, work);
  } finally {
    leave(mark);
  }
}

/**
 * Awaits `waiting` without counting the calling foreground request meanwhile (a long poll's
 * wait: nothing of the instance is used), and counts it again after. Outside a foreground
 * request it only awaits.
 */
export async function idleWhile<T>(waiting: Promise<T>): Promise<T> {
  const mark = current.getStore();
  if (!mark?.active) return waiting;
  leave(mark);
  try {
    return await waiting;
  } finally {
    mark.active = true;
    inFlight++;
  }
}

/** How many foreground requests are in flight on this instance now. */
export function foregroundInFlight(): number {
  return inFlight;
}

/**
 * Resolves when no foreground request is in flight on this instance, or after `maxWaitMs`
 * (milliseconds), whichever comes first — bulk work never starves. Always yields the event loop
 * at least once.
 */
export async function yieldToForeground(maxWaitMs: number): Promise<void> {
  await new Promise<void>((resolve) => setImmediate(resolve));
  if (inFlight === 0) return;
  await new Promise<void>((resolve) => {
    const timer = setTimeout(() => {
      waiters = waiters.filter((w) => w !== wake);
      resolve();
    }, maxWaitMs);
    const wake = () => {
      clearTimeout(timer);
      resolve();
    };
    waiters.push(wake);
  });
}
