import { describe, expect, it } from "vitest";
import { formatDateShift, formatFormula } from "./format";

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
