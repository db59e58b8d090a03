import { describe, expect, it } from "vitest";
import { describeDenial } from "./denials";

describe("describeDenial", () => {
  it("names a missing role", () => {
    expect(describeDenial({ action: "admin.create_user", code: "forbidden", reason: "This needs the admin role", missing: { kind: "role", anyOf: ["admin"] }, endpoint: "POST /api/admin/users" })).toEqual({
      action: "admin.create_user",
      endpoint: "POST /api/admin/users",
      missing: "role admin",
      code: "forbidden",
      reason: "This needs the admin role",
    });
    expect(describeDenial({ action: "view denials", missing: { kind: "role", anyOf: ["supervisor", "admin"] } }).missing).toBe("role supervisor or admin");
  });

  it("names an approve grant and its ceiling with the amount asked", () => {
    const d = describeDenial({
      action: "approve",
      stepId: "s1",
      tool: "issue_refund",
      missing: { code: "over_limit", tool: "issue_refund", limit: { minor: 50000, currency: "USD" }, amount: { minor: 50001, currency: "USD" } },
    });
    expect(d.missing).toBe("approve grant for issue_refund above $500.00 (asked $500.01)");
    expect(describeDenial({ action: "approve", missing: { code: "no_grant", tool: "apply_credit" } }).missing).toBe("approve grant for apply_credit");
  });

  it("names author grants from an edit's authorship issues", () => {
    const d = describeDenial({
      action: "author",
      issues: [
        { code: "authorship_denied", details: { tool: "issue_refund", denial: "over_limit", limit: { minor: 200000, currency: "USD" }, amount: { minor: 200001, currency: "USD" } } },
        { code: "authorship_denied", details: { tool: "waive_fee", denial: "no_grant" } },
        { code: "something_else" },
      ],
    });
    expect(d.missing).toBe("author grant for issue_refund above $2,000.00 (asked $2,000.01); author grant for waive_fee");
  });

  it("names missing credentials and origins", () => {
    expect(describeDenial({ action: "POST /api/runs/r/edits", missing: { kind: "session" } }).missing).toBe("a signed-in session");
    expect(describeDenial({ missing: { kind: "session" }, userDisabled: true }).missing).toMatch(/disabled/);
    expect(describeDenial({ missing: { kind: "person" } }).missing).toMatch(/agent keys are refused/);
    expect(describeDenial({ missing: { kind: "agent_key" }, credential: "revoked_key" }).missing).toBe("a valid agent API key (the key is revoked)");
    expect(describeDenial({ missing: { kind: "agent_key" }, credential: "session_cookie" }).missing).toMatch(/session cookie is refused/);
    expect(describeDenial({ missing: { kind: "same_origin", origin: "https://evil.example" } }).missing).toBe("a same-origin request (Origin: https://evil.example)");
    expect(describeDenial({ missing: { kind: "same_origin", origin: null } }).missing).toBe("a same-origin request (Origin: missing)");
    expect(describeDenial({ missing: { kind: "agent_key" }, credential: "integration_key" }).missing).toBe("a valid agent API key (an integration key is refused on the agent API)");
  });

  it("says when a refused credential's repeats of the minute were counted instead of listed", () => {
    expect(describeDenial({ missing: { kind: "agent_key" }, credential: "revoked_key", repeatsCounted: true }).missing).toBe(
      "a valid agent API key (the key is revoked); repeats in the same minute are counted, not listed",
    );
  });

  it("reads the shapes other writers use, and never throws on junk", () => {
    expect(describeDenial({ action: "reconcile", stepId: "s1", role: "operator" }).missing).toBe("role supervisor or admin");
    expect(describeDenial({ action: "report_outcome", code: "invalid_claim_token" }).missing).toBe("a valid claim token for this step");
    expect(describeDenial({ action: "revise_task", missing: "role supervisor" }).missing).toBe("role supervisor");
    expect(describeDenial({ action: "POST /api/x", code: "forbidden", reason: "Only the editor" })).toMatchObject({ action: "POST /api/x", missing: "forbidden" });
    for (const junk of [null, undefined, 42, "x", [], { missing: { code: "over_limit", limit: "?" } }, { issues: [null, 1] }]) {
      expect(() => describeDenial(junk)).not.toThrow();
    }
    expect(describeDenial(null).action).toBe("unknown action");
  });
});
