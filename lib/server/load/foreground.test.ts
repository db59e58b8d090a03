import { describe, expect, it } from "vitest";
import { enterForeground, foregroundInFlight, yieldToForeground } from "./foreground";

describe("foreground first", () => {
  it("bulk work waits while a foreground request is in flight and goes on when it is answered", async () => {
    const release = enterForeground();
    expect(foregroundInFlight()).toBe(1);
    let resumed = false;
    const waiting = yieldToForeground(60_000).then(() => (resumed = true));
    await new Promise((r) => setImmediate(r));
    await new Promise((r) => setImmediate(r));
    expect(resumed).toBe(false);
    release();
    release(); // a second call changes nothing
    await waiting;
    expect(resumed).toBe(true);
    expect(foregroundInFlight()).toBe(0);
  });

  it("never starves: the wait ends at its bound while requests keep coming", async () => {
    const release = enterForeground();
    const started = Date.now();
    await yieldToForeground(30);
    expect(Date.now() - started).toBeGreaterThanOrEqual(25);
    expect(foregroundInFlight()).toBe(1);
    release();
  });

  it("does not wait when nothing is in flight", async () => {
    let resumed = false;
    const waiting = yieldToForeground(60_000).then(() => (resumed = true));
    await new Promise((r) => setImmediate(r));
    await new Promise((r) => setImmediate(r));
    expect(resumed).toBe(true);
    await waiting;
  });
});
