import { describe, expect, it } from "vitest";
import { axisWidth, compactCount, niceCeil } from "./chart-axis";

describe("chart axis labels", () => {
  it("counts read compactly: 2400 is 2.4k, never clipped digits", () => {
    expect([0, 7, 999, 1000, 1500, 2400, 12_000, 999_000, 1_500_000, 24_000_000].map(compactCount)).toEqual(["0", "7", "999", "1k", "1.5k", "2.4k", "12k", "999k", "1.5M", "24M"]);
    expect(compactCount(-2400)).toBe("-2.4k");
    expect(compactCount(Number.NaN)).toBe("–");
  });

  it("the axis is wide enough for the longest label the data can produce", () => {
    // 11 px digits are about 7 px wide: the width always holds every character of the label.
    for (const max of [0, 5, 40, 400, 2400, 9_999, 99_999, 250_000, 2_400_000]) {
      const label = compactCount(niceCeil(max));
      expect(axisWidth(max), `max ${max} (${label})`).toBeGreaterThanOrEqual(label.length * 7 + 8);
    }
    // a plain formatter (no compaction) gets the room its long labels need
    expect(axisWidth(2400, { format: String })).toBeGreaterThanOrEqual("2500".length * 7 + 8);
    expect(axisWidth(2400, { format: String })).toBeGreaterThan(32); // the old fixed width clipped "2400"
  });

  it("nice ceilings", () => {
    expect([0, 1, 3, 7, 11, 24, 2400, 2600].map(niceCeil)).toEqual([0, 1, 5, 10, 20, 25, 2500, 5000]);
  });
});
