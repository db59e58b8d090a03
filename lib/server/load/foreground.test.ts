import { describe, expect, it } from "vitest";
import { asForeground, foregroundInFlight, idleWhile, yieldToForeground } from "./foreground";

/** A promise and its resolver. */
function deferred() {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}
const turns = async (n: number) => {
  for (let i = 0; i < n; i++) await new Promise((r) => setImmediate(r));
};

describe("foreground first", () => {
  it("bulk work waits while a foreground request is in flight and goes on when it is answered", async () => {
    const answer = deferred();
    const request = asForeground(() => answer.promise);
    expect(foregroundInFlight()).toBe(1);
    let resumed = false;
    const waiting = yieldToForeground(60_000).then(() => (resumed = true));
    await turns(3);
    expect(resumed).toBe(false);
    answer.resolve();
    await request;
    await waiting;
    expect(resumed).toBe(true);
    expect(foregroundInFlight()).toBe(0);
  });

  it("a request that fails is no longer counted", async () => {
    await expect(asForeground(async () => Promise.reject(new Error("refused")))).rejects.toThrow("refused");
    expect(foregroundInFlight()).toBe(0);
  });

  it("never starves: the wait ends at its bound while requests keep coming", async () => {
    const answer = deferred();
    const request = asForeground(() => answer.promise);
    const started = Date.now();
    await yieldToForeground(30);
    expect(Date.now() - started).toBeGreaterThanOrEqual(25);
    expect(foregroundInFlight()).toBe(1);
    answer.resolve();
    await request;
  });

  it("a long poll's wait is not counted, and the request is counted again when it reads", async () => {
    const poll = deferred();
    const seen: number[] = [];
    const request = asForeground(async () => {
      seen.push(foregroundInFlight());
      await idleWhile(poll.promise);
      seen.push(foregroundInFlight());
    });
    await turns(2);
    expect(foregroundInFlight()).toBe(0);
    let resumed = false;
    const bulk = yieldToForeground(60_000).then(() => (resumed = true));
    await turns(3);
    expect(resumed).toBe(true);
    poll.resolve();
    await request;
    await bulk;
    expect(seen).toEqual([1, 1]);
    expect(foregroundInFlight()).toBe(0);
  });

  it("does not wait when nothing is in flight", async () => {
    let resumed = false;
    const waiting = yieldToForeground(60_000).then(() => (resumed = true));
    await turns(2);
    expect(resumed).toBe(true);
    await waiting;
  });
});
