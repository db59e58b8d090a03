import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { approvalProgress, evaluateGate, policyDeadlines, requirementsOf, type GateSubject } from "./evaluate";
import { defaultGateRules } from "./defaults";
import { authorsOf } from "./authors";
import { gatePolicyDraftSchema, gateRule, GATE_RULE_DECISIONS, type GatePolicy, type GateRule, type GateRuleInput } from "./rules";
import { toolCatalog } from "../tools/builtin-tools";

const base: GateRuleInput = gateRule({ decision: "one" });
const policy = (...rules: Partial<GateRuleInput>[]): GatePolicy => ({ version: 7, rules: rules.map((r, i): GateRule => ({ ...base, ...r, id: `r${i}`, position: i })) });
const refund = (minor: number, over: Partial<GateSubject> = {}): GateSubject => ({
  tool: "issue_refund",
  effect: "reversible",
  defaultGate: "approval",
  amount: { minor, currency: "USD" },
  desk: "freight",
  accountId: "acc_a",
  accountTags: [],
  ...over,
});

describe("evaluateGate", () => {
  it("no matching rule: the tool's built-in default (auto for internal tools, else one approver, author may approve)", () => {
    expect(evaluateGate(policy(), { ...refund(1), tool: "add_ticket_note", defaultGate: "auto", effect: "internal", amount: undefined })).toMatchObject({ decision: "auto", approvalsRequired: 0, ruleId: null });
    expect(evaluateGate(policy(), refund(100))).toMatchObject({ decision: "one", approvalsRequired: 1, authorMayApprove: true, ruleId: null, policyVersion: 7 });
  });

  it("an amount band: refunds of $1,000 and more need two approvers; below stays one (lower bound inclusive, upper exclusive)", () => {
    const p = policy({ tool: "issue_refund", decision: "one" }, { tool: "issue_refund", minAmountMinor: 100000, decision: "two", authorMayApprove: false });
    expect(evaluateGate(p, refund(99999))).toMatchObject({ decision: "one", ruleId: "r0" });
    expect(evaluateGate(p, refund(100000))).toMatchObject({ decision: "two", approvalsRequired: 2, authorMayApprove: false, ruleId: "r1" });
    const band = policy({ tool: "waive_fee", maxAmountMinor: 2500, accountTag: "good_standing", decision: "auto" });
    const fee = (minor: number, tags: string[]) => ({ ...refund(minor), tool: "waive_fee", accountTags: tags });
    expect(evaluateGate(band, fee(2499, ["good_standing"])).decision).toBe("auto");
    expect(evaluateGate(band, fee(2500, ["good_standing"])).decision).toBe("one");
    expect(evaluateGate(band, fee(100, [])).decision).toBe("one");
  });

  it("the most specific rule wins; equally specific rules: the lower position", () => {
    const p = policy({ tool: "issue_refund", decision: "two" }, { tool: "issue_refund", accountId: "acc_a", desk: "freight", decision: "one" }, { tool: "issue_refund", accountId: "acc_a", desk: "freight", decision: "auto" });
    expect(evaluateGate(p, refund(5))).toMatchObject({ decision: "one", ruleId: "r1" });
    expect(evaluateGate(p, refund(5, { accountId: "acc_b" }))).toMatchObject({ decision: "two", ruleId: "r0" });
  });

  it("a banded rule never matches a step that moves no money; a currency rule only its currency", () => {
    const p = policy({ minAmountMinor: 0, decision: "two" }, { currency: "EUR", decision: "auto" });
    expect(evaluateGate(p, { ...refund(0), tool: "send_reply", amount: undefined }).ruleId).toBeNull();
    expect(evaluateGate(p, refund(10, { amount: { minor: 10, currency: "EUR" } })).ruleId).toBe("r0"); // tie: lower position
    expect(evaluateGate(policy({ currency: "EUR", decision: "auto" }), refund(10)).ruleId).toBeNull();
  });

  it("fail closed: an irreversible tool is never auto, whatever the rule and amount (property)", () => {
    fc.assert(
      fc.property(fc.constantFrom(...GATE_RULE_DECISIONS), fc.integer({ min: 0, max: 10_000_000 }), fc.boolean(), (decision, minor, author) => {
        const r = evaluateGate(policy({ decision, authorMayApprove: author }), refund(minor, { effect: "irreversible" }));
        expect(r.approvalsRequired).toBeGreaterThanOrEqual(1);
        expect(r.forcedByIrreversible).toBe(decision === "auto");
      }),
    );
  });

  it("the same policy gives the same decision whatever order its rules are listed in, when specificities differ (property)", () => {
    fc.assert(
      fc.property(fc.shuffledSubarray([0, 1, 2, 3], { minLength: 4, maxLength: 4 }), fc.integer({ min: 0, max: 300000 }), (order, minor) => {
        const rules: Partial<GateRuleInput>[] = [
          { decision: "one" },
          { tool: "issue_refund", decision: "auto" },
          { tool: "issue_refund", minAmountMinor: 100000, decision: "two" },
          { tool: "issue_refund", minAmountMinor: 200000, accountId: "acc_a", decision: "one", authorMayApprove: false },
        ];
        const a = evaluateGate(policy(...rules), refund(minor));
        const b = evaluateGate(policy(...order.map((i) => rules[i])), refund(minor));
        expect([b.decision, b.authorMayApprove]).toEqual([a.decision, a.authorMayApprove]);
      }),
    );
  });

  it("today's policy as data (version 1 rules) decides exactly as the built-in defaults", () => {
    const seeded: GatePolicy = { version: 1, rules: defaultGateRules(Object.values(toolCatalog)).map((r, i) => ({ ...r, id: `d${i}`, position: i })) };
    for (const t of Object.values(toolCatalog)) {
      const s: GateSubject = { tool: t.name, effect: t.effect, defaultGate: t.gate, amount: { minor: 150000, currency: "USD" }, desk: "freight", accountId: "acc_a", accountTags: [] };
      const a = evaluateGate(seeded, s);
      const b = evaluateGate({ version: 0, rules: [] }, s);
      expect([a.decision, a.authorMayApprove]).toEqual([b.decision, b.authorMayApprove]);
    }
  });
});

describe("requirementsOf, policyDeadlines, approvalProgress, authorsOf", () => {
  it("an unknown tool is treated as irreversible; deadlines take the shortest among gated steps only", () => {
    const p = policy({ tool: "send_reply", decision: "one", expirySeconds: 7200, escalateSeconds: 3600 }, { tool: "add_ticket_note", decision: "auto", expirySeconds: 120 });
    const reqs = requirementsOf(
      [
        { id: "a", tool: "send_reply", args: {} },
        { id: "b", tool: "add_ticket_note", args: {} },
        { id: "c", tool: "nope", args: {} },
      ],
      (n) => (n === "nope" ? undefined : toolCatalog[n as keyof typeof toolCatalog]),
      { policy: p, desk: "freight", accountId: "acc_a", accountTags: [] },
    );
    expect(reqs.c.decision).toBe("one");
    expect(reqs.b.decision).toBe("auto");
    expect(policyDeadlines(reqs)).toEqual({ expirySeconds: 7200, escalateSeconds: 3600 });
  });

  it("progress counts distinct people", () => {
    expect(approvalProgress(2, ["u1", "u1", null])).toEqual({ required: 2, given: 1, approverIds: ["u1"], missing: 1 });
  });

  it("the authors of a step: its user author and everyone with operator provenance on it", () => {
    expect(authorsOf({ author: { kind: "user", userId: "b" }, provenance: { x: { kind: "operator", userId: "a", at: "2026-01-01T00:00:00Z" }, y: { kind: "model" } } })).toEqual(["a", "b"]);
    expect(authorsOf({ author: { kind: "model" }, provenance: {} })).toEqual([]);
  });

  it("the draft schema refuses an empty band, escalation after expiry, and a missing note", () => {
    const bad = gatePolicyDraftSchema.safeParse({ baseVersion: 1, note: "", rules: [{ ...base, minAmountMinor: 5, maxAmountMinor: 5 }, { ...base, expirySeconds: 600, escalateSeconds: 900 }] });
    expect(bad.success).toBe(false);
    expect(bad.error!.issues.map((i) => i.path.join("."))).toEqual(expect.arrayContaining(["rules.0.maxAmountMinor", "rules.1.escalateSeconds", "note"]));
  });
});
