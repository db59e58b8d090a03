import { describe, expect, it } from "vitest";
import { MAX_FILTER_MINOR, normalizeQueueSearch, parseQueueFilters, queueFilterParams } from "./queue-views";

describe("queue filters from the page's URL", () => {
  it("keeps a well-formed view and filters, and writes them back the same", () => {
    const f = parseQueueFilters({ view: "mine", tool: "issue_refund", accountId: "acc_halv", minAmountMinor: "50000", maxAgeHours: "24" });
    expect(f).toEqual({ view: "mine", tool: "issue_refund", accountId: "acc_halv", minAmountMinor: 50000, maxAgeHours: 24 });
    expect(Object.fromEntries(queueFilterParams(f))).toEqual({ view: "mine", tool: "issue_refund", accountId: "acc_halv", minAmountMinor: "50000", maxAgeHours: "24" });
  });

  it("drops what the database could not compare (amounts beyond 32 bits, ages beyond the cap) instead of failing the page", () => {
    expect(parseQueueFilters({ minAmountMinor: String(MAX_FILTER_MINOR) })).toEqual({ minAmountMinor: MAX_FILTER_MINOR });
    expect(parseQueueFilters({ minAmountMinor: String(MAX_FILTER_MINOR + 1), maxAgeHours: "99999999999" })).toEqual({});
  });

  it("drops unknown views, malformed ids and non-numbers", () => {
    expect(parseQueueFilters({ view: "everything", tool: "a b", accountId: "<script>", minAgeHours: "1e3", maxAmountMinor: ["1", "2"] })).toEqual({});
  });
});

describe("the queue's search and order in the URL", () => {
  it("keeps the search (without a leading #, trimmed) and the at-stake order; the default order is left out", () => {
    const f = parseQueueFilters({ q: "  #74991 ", sort: "at_stake" });
    expect(f).toEqual({ q: "74991", sort: "at_stake" });
    expect(queueFilterParams(f).toString()).toBe("q=74991&sort=at_stake");
    expect(queueFilterParams({ sort: "newest" }).toString()).toBe("");
  });

  it("drops an empty search and an unknown order", () => {
    expect(parseQueueFilters({ q: " # ", sort: "cheapest" })).toEqual({});
    expect(normalizeQueueSearch("x".repeat(100))).toHaveLength(64);
  });
});
