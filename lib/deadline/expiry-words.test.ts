import { describe, expect, it } from "vitest";
import { formatExpiry, isExpiredAt, serverOffsetMs, serverTimeAt } from "./expiry-words";
import { formatAge, formatTimeLeft } from "../text/format";

const at = "2026-04-01T12:00:00.000Z";
const t = (iso: string) => new Date(iso);

describe("expiry in words", () => {
  it("never says 'expires expired'; under a minute either side has its own words", () => {
    expect(formatExpiry(at, t("2026-04-01T09:58:00Z"))).toBe("expires in 2 h 2 min");
    expect(formatExpiry(at, t("2026-04-01T11:59:30Z"))).toBe("expires in under a minute");
    expect(formatExpiry(at, t("2026-04-01T12:00:00Z"))).toBe("expired just now");
    expect(formatExpiry(at, t("2026-04-01T12:03:10Z"))).toBe("expired 3 min ago");
    for (const now of ["2026-04-01T11:00:00Z", "2026-04-01T12:00:00Z", "2026-04-01T13:00:00Z"]) expect(formatExpiry(at, t(now))).not.toMatch(/expires expired|expired 0 min/);
  });

  it("expired exactly at expiresAt, on the server's clock", () => {
    expect(isExpiredAt(at, t("2026-04-01T11:59:59.999Z"))).toBe(false);
    expect(isExpiredAt(at, t("2026-04-01T12:00:00.000Z"))).toBe(true);
    // a browser 30 s behind the server: the server's clock is browser time + 30 s
    const offset = serverOffsetMs("2026-04-01T11:59:50Z", t("2026-04-01T11:59:20Z").getTime());
    expect(offset).toBe(30_000);
    expect(isExpiredAt(at, new Date(t("2026-04-01T11:59:35Z").getTime() + offset))).toBe(true);
  });

  it("a browser clock hours off still words the queue's deadlines and ages as the server does", () => {
    const expiresAt = "2026-04-01T14:00:00.000Z";
    const createdAt = "2026-04-01T11:30:00.000Z";
    const serverNow = "2026-04-01T12:00:00.000Z"; // the queue page's serverNow
    for (const skewHours of [-5, -3, 3, 7]) {
      const browserAtLoad = t(serverNow).getTime() + skewHours * 3_600_000;
      const offset = serverOffsetMs(serverNow, browserAtLoad);
      // 30 s later (the queue's tick), read on the browser's own clock
      const now = serverTimeAt(browserAtLoad + 30_000, offset);
      expect(formatExpiry(expiresAt, now)).toBe("expires in 1 h 59 min");
      expect(formatTimeLeft(expiresAt, now)).toBe(formatTimeLeft(expiresAt, t("2026-04-01T12:00:30Z")));
      expect(formatAge(createdAt, now)).toBe(formatAge(createdAt, t("2026-04-01T12:00:30Z")));
      // what the browser's own clock would have said
      expect(formatExpiry(expiresAt, new Date(browserAtLoad + 30_000))).not.toBe("expires in 1 h 59 min");
    }
  });
});
