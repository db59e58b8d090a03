/*
 * Foreground first (docs/design.md "Systems of record: the one door", decisions during an import):
 * an instance counts the requests in flight that a person or an agent waits on (every route but
 * the streamed bulk ones), and bulk work on the same instance — the records batch — starts its
 * next transaction only when none is in flight, or when it has waited its bound. A decision then
 * shares the instance's CPU and its database connection with at most one short import
 * transaction, never with a queue of them. Per instance: another instance's import is not seen
 * (the database's own scheduling is the bound there).
 */

let inFlight = 0;
let waiters: (() => void)[] = [];

/**
 * Marks one foreground request as in flight; call the returned function once when it has been
 * answered (a second call does nothing).
 */
export function enterForeground(): () => void {
  inFlight++;
  let done = false;
  return () => {
    if (done) return;
    done = true;
    inFlight--;
    // Wake the waiters only if the instance is still quiet after the callbacks already queued
    // (an agent's next call chained on this answer starts first).
    if (inFlight === 0) setImmediate(wakeIfQuiet);
  };
}

function wakeIfQuiet() {
  if (inFlight !== 0) return;
  const ready = waiters;
  waiters = [];
  for (const w of ready) w();
}

/** How many foreground requests are in flight on this instance now. */
export function foregroundInFlight(): number {
  return inFlight;
}

/**
 * Resolves when no foreground request is in flight on this instance, or after `maxWaitMs`
 * (milliseconds) whichever comes first — bulk work never starves. Always yields the event loop
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
