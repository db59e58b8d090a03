import { describe, expect, it } from "vitest";
import { followFrom } from "./date-window";

describe("followFrom", () => {
  it("moves the last day by as many days as the first day moved", () => {
    expect(followFrom("2026-12-03", "2026-12-07", "2026-12-03")).toBe("2026-12-07");
    expect(followFrom("2026-12-30", "2027-01-02", "2027-01-01")).toBe("2027-01-04");
    expect(followFrom("2026-03-02", "2026-02-27", "2026-03-04")).toBe("2026-03-01");
  });
  it("leaves the last day alone when a date is missing or not real", () => {
    expect(followFrom("", "2026-12-07", "2026-12-03")).toBe("2026-12-03");
    expect(followFrom("2026-12-03", "2026-02-30", "2026-12-03")).toBe("2026-12-03");
    expect(followFrom("2026-12-03", "2026-12-04", "")).toBe("");
  });
});
