import { describe, expect, it } from "vitest";
import { renderLoadMarkdown, type LoadEntry, type LoadMeasurement } from "./bench-load-support";

const m = (name: string, connections: number, rps: number, p50: number, p99: number): LoadMeasurement => ({
  name,
  connections,
  requests: rps * 6,
  seconds: 6,
  rps,
  p50,
  p90: p99,
  p99,
  max: p99,
  non2xx: 0,
  errors: 0,
  statuses: { 200: rps * 6 },
  rssPeakMB: 250,
});
const entry = (config: string, results: LoadMeasurement[], peakMB = 250): LoadEntry => {
  const [db, size, inst] = config.split("/");
  return { config, db, size, instances: Number(inst[0]), at: "2026-12-01T05:00:00Z", durationSeconds: 6, rss: { idleMB: 100, peakMB }, fixtures: { claimSteps: 1, reviewRuns: 1 }, results, wallSeconds: 100 };
};

describe("bench:load report (bench/results/load.md)", () => {
  it("checks issue #11's targets from the measured figures and says which were missed", () => {
    const md = renderLoadMarkdown([
      entry("sqlite/demo/1x", [m("bare", 8, 400, 10, 60), m("claim", 8, 100, 40, 150), m("bare", 64, 600, 90, 300), m("claim", 64, 360, 150, 900), m("approve", 8, 50, 60, 200), m("edit", 8, 50, 70, 200)]),
      entry("sqlite/scale/1x", [m("bare", 8, 400, 10, 60), m("claim", 8, 90, 50, 160), m("approve", 8, 40, 120, 300), m("edit", 8, 45, 80, 250)], 320),
    ]);
    expect(md).toContain("| claim ≥ 0.5× bare req/s at 64 connections (SQLite, demo) | 0.60× | met |");
    expect(md).toContain("| claim p99 ≤ 3× bare p99 at 8 connections (SQLite, demo) | 2.50× | met |");
    expect(md).toContain("| claim: median at scale ≤ 1.5× demo (SQLite, 8 connections) | 1.25×");
    expect(md).toMatch(/\| approve: median at scale ≤ 1\.5× demo .* 2\.00× .*\| \*\*missed\*\* \|/);
    expect(md).toContain("| two instances on PostgreSQL ≥ 1.3× one instance's claims/s (64 connections) | n/a× | not measured |");
    expect(md).toMatch(/server RSS ≤ 300 MB.*\| 320 MB; n\/a MB \| \*\*missed\*\* \|/);
    expect(md).toContain("## sqlite/scale/1x");
  });
});
