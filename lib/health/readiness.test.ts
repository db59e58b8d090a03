import { describe, expect, it } from "vitest";
import { decideReadiness, DEFAULT_READY_TIMEOUT_MS, pendingMigrations, readyTimeoutMs } from "./readiness";

describe("decideReadiness", () => {
  it("is ready when the database answers, nothing is pending and the process is not draining", () => {
    expect(decideReadiness({ database: "ok", pendingMigrations: [], draining: false })).toEqual({ status: "ready" });
  });

  it("names every reason that holds, in a fixed order", () => {
    expect(decideReadiness({ database: "ok", pendingMigrations: ["20270101000000_next"], draining: false })).toEqual({ status: "not_ready", reasons: ["migrations_pending"] });
    expect(decideReadiness({ database: "ok", pendingMigrations: [], draining: true })).toEqual({ status: "not_ready", reasons: ["draining"] });
    expect(decideReadiness({ database: "ok", pendingMigrations: ["m"], draining: true })).toEqual({ status: "not_ready", reasons: ["migrations_pending", "draining"] });
    expect(decideReadiness({ database: "unreachable", pendingMigrations: null, draining: true })).toEqual({ status: "not_ready", reasons: ["database_unreachable", "draining"] });
  });

  it("says nothing of migrations when the database did not answer", () => {
    expect(decideReadiness({ database: "unreachable", pendingMigrations: ["m"], draining: false })).toEqual({ status: "not_ready", reasons: ["database_unreachable"] });
    expect(decideReadiness({ database: "unreachable", pendingMigrations: null, draining: false })).toEqual({ status: "not_ready", reasons: ["database_unreachable"] });
  });
});

describe("pendingMigrations", () => {
  it("lists the build's migrations the database lacks, oldest first; the database's extra ones are not pending", () => {
    expect(pendingMigrations(["a", "b", "c"], ["a"])).toEqual(["b", "c"]);
    expect(pendingMigrations(["a", "b"], ["a", "b", "z_newer_release"])).toEqual([]);
    expect(pendingMigrations(["a"], [])).toEqual(["a"]);
  });
});

describe("readyTimeoutMs", () => {
  it("defaults to 2 s and takes PLANDESK_READY_TIMEOUT_MS", () => {
    expect(readyTimeoutMs({})).toBe(DEFAULT_READY_TIMEOUT_MS);
    expect(DEFAULT_READY_TIMEOUT_MS).toBe(2000);
    expect(readyTimeoutMs({ PLANDESK_READY_TIMEOUT_MS: " 500 " })).toBe(500);
  });

  it("refuses a value that is not a whole number of ms from 50 to 60000", () => {
    for (const v of ["abc", "1.5", "-1", "10", "60001"]) expect(() => readyTimeoutMs({ PLANDESK_READY_TIMEOUT_MS: v }), v).toThrow(/PLANDESK_READY_TIMEOUT_MS/);
  });
});
