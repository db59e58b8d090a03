import { describe, expect, it } from "vitest";
import { getTool } from "../tools/builtin-tools";
import { displayValue, fieldLabel, isProse, wordDiff } from "./field-display";

describe("a changed argument as people read it (issue 14)", () => {
  const resched = getTool("reschedule_delivery")!.fields;
  it("labels paths from the tool catalog", () => {
    expect(fieldLabel(["args", "window", "from"], resched)).toBe("Delivery window, first day");
    expect(fieldLabel(["args", "body"], getTool("send_reply")!.fields)).toBe("Reply");
    expect(fieldLabel(["args", "items", 2, "sku"])).toBe("items, item 3, sku");
  });

  it("money with its currency, dates with weekday and shift", () => {
    expect(displayValue({ minor: 148900, currency: "USD" })).toBe("$1,489.00");
    expect(displayValue({ minor: 1489, currency: "NOK" })).toBe("NOK\u00A014.89");
    expect(displayValue("2026-12-07", "2026-12-03")).toBe("Mon 7 Dec 2026 (+4 days)");
    expect(displayValue("2026-12-03")).toBe("Thu 3 Dec 2026");
    expect(displayValue(undefined)).toBe("(none)");
  });

  it("highlights changed words, not the whole paragraph", () => {
    const parts = wordDiff("We will deliver on Thursday as planned.", "We will deliver on Monday as planned.");
    expect(parts.filter((p) => p.kind === "removed").map((p) => p.text.trim())).toEqual(["Thursday"]);
    expect(parts.filter((p) => p.kind === "added").map((p) => p.text.trim())).toEqual(["Monday"]);
    expect(parts.filter((p) => p.kind === "same").map((p) => p.text).join("")).toContain("as planned.");
    expect(isProse("We will deliver on Thursday", "We will deliver on Monday")).toBe(true);
    expect(isProse("2026-12-03", "2026-12-07")).toBe(false);
  });
});

describe("whitespace-only changes are visible", () => {
  it("a moved space and a space turned into a no-break space are whitespace-only changes, shown with visible whitespace", async () => {
    const { showWhitespace, whitespaceOnlyChange, wordDiff: diff } = await import("./field-display");
    expect(whitespaceOnlyChange("rm -rf /srv/app_cache", "rm -rf /srv/app _cache")).toBe(true);
    expect(whitespaceOnlyChange("refund you", "refund\u00a0you")).toBe(true);
    expect(whitespaceOnlyChange("refund you", "refund them")).toBe(false);
    expect(showWhitespace("rm -rf /srv/app _cache")).toBe("rm␣-rf␣/srv/app␣_cache");
    expect(showWhitespace("refund\u00a0you")).toBe("refund⟨NBSP⟩you");
    // the word diff of prose keeps a whitespace change as its own part
    const parts = diff("we will refund you the full amount today", "we will refund you  the full amount today");
    expect(parts.some((p) => p.kind !== "same" && p.text.trim() === "")).toBe(true);
  });
});
