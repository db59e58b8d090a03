import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { takeToken, type BucketState } from "./token-bucket";

const rule = { capacity: 60, refillPerSecond: 10 };
const t0 = new Date("2026-12-05T06:00:00Z");
const at = (ms: number) => new Date(t0.getTime() + ms);

describe("the token bucket of an agent key", () => {
  it("a burst of 60 passes, the 61st is refused with Retry-After 1; a tenth of a second later one more passes", () => {
    let state: BucketState | null = null;
    for (let i = 0; i < 60; i++) {
      const d = takeToken(state, rule, t0);
      expect(d.allowed).toBe(true);
      state = d.state;
    }
    const refused = takeToken(state, rule, t0);
    expect(refused).toMatchObject({ allowed: false, retryAfterSeconds: 1 });
    expect(takeToken(refused.state, rule, at(100)).allowed).toBe(true);
  });

  it("refusals take nothing: hammering past the rate does not delay recovery", () => {
    let state: BucketState | null = { tokens: 0, refilledAt: t0 };
    for (let ms = 0; ms < 90; ms += 10) state = takeToken(state, rule, at(ms)).state;
    expect(takeToken(state, rule, at(100)).allowed).toBe(true);
  });

  it("over any sequence of requests, at most capacity + elapsed × rate pass", () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 50 }), { minLength: 1, maxLength: 400 }), (gaps) => {
        let state: BucketState | null = null;
        let ms = 0;
        let passed = 0;
        for (const g of gaps) {
          ms += g;
          const d = takeToken(state, rule, at(ms));
          state = d.state;
          if (d.allowed) passed++;
          else expect(d.retryAfterSeconds).toBeGreaterThanOrEqual(1);
        }
        expect(passed).toBeLessThanOrEqual(rule.capacity + Math.floor((ms / 1000) * rule.refillPerSecond) + 1e-9);
      }),
    );
  });
});
