import { describe, expect, it } from "vitest";
import { addDaysIso, daysFromNow, formatLongDate, isIsoDate, utcDateOf } from "./dates";

describe("dates", () => {
  it("accepts only real YYYY-MM-DD dates", () => {
    expect(isIsoDate("2026-04-06")).toBe(true);
    expect(isIsoDate("2028-02-29")).toBe(true);
    expect(isIsoDate("2026-02-29")).toBe(false);
    expect(isIsoDate("2026-02-30")).toBe(false);
    expect(isIsoDate("2026-13-01")).toBe(false);
    expect(isIsoDate("2026-00-10")).toBe(false);
    expect(isIsoDate("2026-4-6")).toBe(false);
    expect(isIsoDate("2026-04-06T00:00:00Z")).toBe(false);
    expect(isIsoDate(" 2026-04-06")).toBe(false);
    expect(isIsoDate(20260406)).toBe(false);
    expect(isIsoDate("0000-02-29")).toBe(true);
  });

  it("uses the UTC calendar date", () => {
    expect(utcDateOf(new Date("2026-04-01T23:59:59Z"))).toBe("2026-04-01");
    expect(utcDateOf(new Date("2026-04-01T23:30:00-02:00"))).toBe("2026-04-02");
  });

  it("adds days across month and year ends", () => {
    expect(addDaysIso("2026-04-30", 1)).toBe("2026-05-01");
    expect(addDaysIso("2026-12-31", 1)).toBe("2027-01-01");
    expect(addDaysIso("2026-03-01", -1)).toBe("2026-02-28");
    expect(daysFromNow(new Date("2026-04-01T09:00:00Z"), 4)).toBe("2026-04-05");
  });

  it("formats for people", () => {
    expect(formatLongDate("2026-04-04")).toBe("Saturday, April 4");
  });
});
