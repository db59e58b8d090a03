import { describe, expect, it } from "vitest";
import { accountKey, addressKey, countAttempt, type LimitWindow } from "./sign-in-limit";

const rule = { max: 3, windowSeconds: 60 };
const t0 = new Date("2026-04-01T09:00:00Z");
const at = (s: number) => new Date(t0.getTime() + s * 1000);

describe("sign-in limit windows (issue #13)", () => {
  it("the attempt after `max` is refused, once as the lockout, with the seconds left in the window", () => {
    let w: LimitWindow | null = null;
    const decisions = [0, 1, 2, 3, 4].map((s) => {
      const d = countAttempt(w, rule, at(s));
      w = d.window;
      return d;
    });
    expect(decisions.map((d) => d.allowed)).toEqual([true, true, true, false, false]);
    expect(decisions.map((d) => d.lockedNow)).toEqual([false, false, false, true, false]);
    expect(decisions[3].retryAfterSeconds).toBe(57);
  });

  it("refused attempts never extend the window: the lockout ends when the window does", () => {
    let w: LimitWindow | null = null;
    for (let s = 0; s < 59; s++) w = countAttempt(w, rule, at(s)).window; // an attacker hammering all minute
    const afterWindow = countAttempt(w, rule, at(60));
    expect(afterWindow.allowed).toBe(true);
    expect(afterWindow.window).toEqual({ windowStart: at(60), attempts: 1 });
  });

  it("counter keys: IPv4 as is, IPv6 per /64, anything else unknown; accounts by lower-case email", () => {
    expect(addressKey("203.0.113.7")).toBe("address:203.0.113.7");
    expect(addressKey("2001:db8:0:1:aaaa::1")).toBe(addressKey("2001:0db8:0000:0001:ffff:1:2:3"));
    expect(addressKey("2001:db8:0:1::1")).not.toBe(addressKey("2001:db8:0:2::1"));
    expect(addressKey("__proto__")).toBe("address:unknown");
    expect(addressKey(null)).toBe("address:unknown");
    expect(accountKey("  Operator@Plandesk.TEST ")).toBe("account:operator@plandesk.test");
    expect(accountKey("x".repeat(5000)).length).toBe("account:".length + 320);
  });
});
