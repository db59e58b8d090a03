import { describe, expect, it } from "vitest";
import { formatDateShift, formatFormula, formatInstantIn } from "./format";

describe("one date presentation (issue 14)", () => {
  it("weekday, day, month, year and the shift in days", () => {
    expect(formatDateShift("2026-12-07", "2026-12-03")).toBe("Mon 7 Dec 2026 (+4 days)");
    expect(formatDateShift("2026-12-02", "2026-12-03")).toBe("Wed 2 Dec 2026 (−1 day)");
    expect(formatDateShift("2026-12-03", "2026-12-03")).toBe("Thu 3 Dec 2026");
    expect(formatDateShift("2026-12-03")).toBe("Thu 3 Dec 2026");
    expect(formatDateShift("2027-01-01", "2026-12-31")).toBe("Fri 1 Jan 2027 (+1 day)");
    expect(formatDateShift("soon", "2026-12-03")).toBe("soon");
  });
});

describe("computed money for people", () => {
  it("reads known minor units as money and appends the result", () => {
    const total = { minor: 318000, currency: "USD" as const };
    expect(formatFormula("318000 × 2/6", [total], { minor: 106000, currency: "USD" })).toBe("$3,180.00 × 2/6 = $1,060.00");
    expect(formatFormula("1200 × 3", [], { minor: 3600, currency: "USD" })).toBe("1200 × 3 = $36.00");
    expect(formatFormula("318000 × 2/6", [{ minor: 318000, currency: "EUR" }], { minor: 106000, currency: "USD" })).toBe("318000 × 2/6 = $1,060.00");
  });
});

describe("formatInstantIn (the operator's time zone next to UTC)", () => {
  it("shows the instant in the viewer's zone with its abbreviation, across a day boundary", () => {
    expect(formatInstantIn("2026-12-03T14:05:00Z", "Europe/Oslo")).toBe("3 Dec 2026, 15:05 CET");
    expect(formatInstantIn("2026-07-03T23:30:00Z", "Europe/Oslo")).toBe("4 Jul 2026, 01:30 CEST");
    expect(formatInstantIn("2026-12-03T02:00:00Z", "America/New_York")).toMatch(/^2 Dec 2026, 21:00 (EST|GMT-5)$/);
  });
  it("adds nothing for UTC, an unknown zone or an unreadable instant", () => {
    expect(formatInstantIn("2026-12-03T14:05:00Z", "UTC")).toBeNull();
    expect(formatInstantIn("2026-12-03T14:05:00Z", "Etc/UTC")).toBeNull();
    expect(formatInstantIn("2026-12-03T14:05:00Z", "Mars/Olympus")).toBeNull();
    expect(formatInstantIn("not a date", "Europe/Oslo")).toBeNull();
  });
});
