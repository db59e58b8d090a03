import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { REFUND_ORDER_BINDINGS, REFUND_ORDER_TOOL } from "../../testing/fixtures/bound-tools";
import { referenceDesk } from "../../testing/fixtures/reference-desk";
import { ctx, NOW, plan, step } from "../../testing/validation-context";
import type { AccountSnapshot, MoneyHold } from "../desk/snapshot";
import { validatePlan } from "../validation/pipeline";
import type { ValidationIssue } from "../validation/types";
import { toolNames } from "./builtin-tools";
import { draftsFromMcpTools, normaliseInputSchema } from "./json-schema-tool";
import { mergeAdminBindings } from "./tool-bindings";
import { catalogWith } from "./versioned-catalog";

/*
 * Same checks, same words: an imported `refund_order` bound to a declared `order` (balance, closed
 * status, owner) is judged by the one validator exactly as `issue_refund` is judged on an invoice
 * with the same balance, status, owner and money in flight — the same issue codes, severities and
 * argument paths (the invoice's `invoice_not_open` is the order's `record_closed`).
 */

/** A catalog with refund_order bound by the admin's bindings (as the import stores it). */
const merged = mergeAdminBindings(normaliseInputSchema(REFUND_ORDER_TOOL.inputSchema), REFUND_ORDER_BINDINGS);
if (!merged.ok) throw new Error("fixture bindings do not merge");
const catalog = catalogWith(
  draftsFromMcpTools([{ ...REFUND_ORDER_TOOL, inputSchema: merged.schema }], "test", new Set(toolNames)).drafts.map((d) => ({ ...d, catalogVersion: 1 })),
  1,
);

interface Scenario {
  balance: number;
  currency: "USD" | "EUR";
  closed: boolean;
  owner: "acc_nordkapp" | "acc_halvorsen";
  exists: boolean;
  holds: { runId: string; minor: number; state: MoneyHold["state"]; currency: "USD" | "EUR" }[];
  refunds: { minor: number; currency: "USD" | "EUR" }[];
}

const currency = fc.constantFrom<"USD" | "EUR">("USD", "EUR");
const scenario: fc.Arbitrary<Scenario> = fc.record({
  balance: fc.integer({ min: 0, max: 10_000 }),
  currency,
  closed: fc.boolean(),
  owner: fc.constantFrom<"acc_nordkapp" | "acc_halvorsen">("acc_nordkapp", "acc_halvorsen"),
  exists: fc.boolean(),
  holds: fc.array(fc.record({ runId: fc.constantFrom("run_other", "run_self"), minor: fc.integer({ min: 1, max: 6_000 }), state: fc.constantFrom<MoneyHold["state"]>("active", "claimed", "written"), currency }), { maxLength: 3 }),
  refunds: fc.array(fc.record({ minor: fc.integer({ min: 0, max: 12_000 }), currency }), { minLength: 1, maxLength: 3 }),
});

/** Scenarios that reach each shared check for sure (the random ones then vary them). */
const base: Scenario = { balance: 4_000, currency: "USD", closed: false, owner: "acc_nordkapp", exists: true, holds: [], refunds: [{ minor: 1_000, currency: "USD" }] };
const EXAMPLES: Scenario[] = [
  { ...base, exists: false },
  { ...base, closed: true },
  { ...base, refunds: [{ minor: 0, currency: "USD" }] },
  { ...base, refunds: [{ minor: 1_000, currency: "EUR" }] },
  { ...base, refunds: [{ minor: 4_001, currency: "USD" }] },
  { ...base, holds: [{ runId: "run_other", minor: 3_500, state: "active", currency: "USD" }] },
  { ...base, holds: [{ runId: "run_other", minor: 1_000, state: "written", currency: "USD" }] },
  { ...base, refunds: [{ minor: 2_500, currency: "USD" }, { minor: 2_500, currency: "USD" }] },
  { ...base, owner: "acc_halvorsen" },
];

const holdsOf = (s: Scenario): MoneyHold[] => s.holds.map((h, i) => ({ runId: h.runId, stepId: `s${i}`, approvalId: `apr_${i}`, amount: { minor: h.minor, currency: h.currency }, state: h.state, approvedAt: NOW.toISOString() }));

/** The issues of the argument-bounds and task-contract stages as comparable rows: code (the invoice's closed code as the order's), severity, path with the record argument named alike. */
function rows(issues: ValidationIssue[]): string[] {
  return issues
    .filter((i) => i.stage === "argument_bounds" || i.stage === "task_contract")
    .map((i) => [i.code === "invoice_not_open" ? "record_closed" : i.code, i.severity, i.stepId, (i.path ?? "").replace(/\.invoiceId$/, ".record").replace(/\.orderId$/, ".record"), i.needsAcknowledgement ? "ack" : ""].join(" "))
    .sort();
}

function builtIn(s: Scenario): ValidationIssue[] {
  const desk: AccountSnapshot = { ...referenceDesk(NOW), invoices: { in_p: { id: "in_p", accountId: s.owner, status: s.closed ? "paid" : "open", total: { minor: s.balance, currency: s.currency }, openBalance: { minor: s.balance, currency: s.currency }, fees: [] } }, inFlight: { in_p: holdsOf(s) } };
  const steps = s.refunds.map((r, i) => step(`r${i}`, "issue_refund", { invoiceId: s.exists ? "in_p" : "in_gone", amount: r, reason: "Broken" }));
  return validatePlan(plan(...steps), ctx({ desk, runId: "run_self" })).issues;
}

function declared(s: Scenario): ValidationIssue[] {
  const desk: AccountSnapshot = {
    ...referenceDesk(NOW),
    declared: { order: { o_p: { kind: "order", id: "o_p", accountId: s.owner, title: "O-1", available: { minor: s.balance, currency: s.currency }, holds: holdsOf(s), status: s.closed ? "refunded" : "open", closed: s.closed, window: null } } },
  };
  const steps = s.refunds.map((r, i) => step(`r${i}`, "refund_order", { orderId: s.exists ? "o_p" : "o_gone", amount: r, reason: "Broken" }));
  return validatePlan(plan(...steps), ctx({ desk, runId: "run_self", catalog, agentAllowedTools: [...(ctx().agentAllowedTools ?? []), "refund_order"] })).issues;
}

describe("a declared tool is checked as the equivalent built-in", () => {
  it("refund_order on an order and issue_refund on an invoice of the same balance, status, owner and money in flight: the same issues", () => {
    const seen = new Set<string>();
    fc.assert(
      fc.property(scenario, (s) => {
        const got = rows(declared(s));
        expect(got).toEqual(rows(builtIn(s)));
        for (const r of got) seen.add(r.split(" ")[0]);
      }),
      { numRuns: 300, examples: EXAMPLES.map((e) => [e]) },
    );
    // the runs reached every check the two share
    for (const code of ["unknown_id", "record_closed", "amount_not_positive", "currency_mismatch", "amount_exceeds_balance", "amount_exceeds_available", "money_in_flight", "amounts_exceed_balance", "cross_account_target"]) expect(seen, code).toContain(code);
  });

  it("the words differ only in the record's name", () => {
    const s: Scenario = { balance: 4_000, currency: "USD", closed: false, owner: "acc_halvorsen", exists: true, holds: [{ runId: "run_other", minor: 3_000, state: "active", currency: "USD" }], refunds: [{ minor: 2_000, currency: "USD" }] };
    const messages = (issues: ValidationIssue[]) => issues.filter((i) => i.code === "amount_exceeds_available" || i.code === "cross_account_target").map((i) => i.message);
    expect(messages(builtIn(s))).toEqual([
      "Issue refund of $20.00 is more than what is left on invoice in_p: open $40.00 − $30.00 approved in run run_other = $10.00 available",
      "invoice in_p belongs to Halvorsen Freight, not to Nordkapp Logistics (the account on ticket #74991)",
    ].map((m) => m.replace("Issue refund", "Refund")));
    expect(messages(declared(s))).toEqual([
      "Refund order of $20.00 is more than what is left on order o_p: available $40.00 − $30.00 approved in run run_other = $10.00 available",
      "order o_p belongs to Halvorsen Freight, not to Nordkapp Logistics (the account on ticket #74991)",
    ]);
  });
});
