import { describe, expect, it } from "vitest";
import { runDeadlines, withPolicyDeadlines } from "../plan/policy";

const now = new Date("2026-04-01T09:00:00Z");
const secondsAfter = (d: Date) => (d.getTime() - now.getTime()) / 1000;

describe("withPolicyDeadlines (issue #17: expiry and escalation per rule)", () => {
  it("no rule times: the run keeps lib/plan/policy.ts deadlines", () => {
    const base = runDeadlines(now, false);
    expect(withPolicyDeadlines(now, base, { expirySeconds: null, escalateSeconds: null })).toEqual(base);
  });

  it("a rule shortens expiry (escalating at the usual fraction of it) and never lengthens it", () => {
    const short = withPolicyDeadlines(now, runDeadlines(now, false), { expirySeconds: 4 * 3600, escalateSeconds: null });
    expect(secondsAfter(short.expiresAt)).toBe(4 * 3600);
    expect(secondsAfter(short.escalateAt)).toBe(3 * 3600);
    const long = withPolicyDeadlines(now, runDeadlines(now, true), { expirySeconds: 72 * 3600, escalateSeconds: null });
    expect(secondsAfter(long.expiresAt)).toBe(8 * 3600);
  });

  it("a rule's escalation comes earlier, and never after expiry", () => {
    const r = withPolicyDeadlines(now, runDeadlines(now, false), { expirySeconds: null, escalateSeconds: 1800 });
    expect(secondsAfter(r.escalateAt)).toBe(1800);
    expect(secondsAfter(r.expiresAt)).toBe(24 * 3600);
  });
});
