import { describe, expect, it } from "vitest";
import { MAX_FILTER_MINOR, parseQueueFilters, queueFilterParams } from "./queue-views";

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
