/**
 * The untrusted-text table through the validator (testing/fixtures/untrusted-text-table.ts):
 * under a gate policy that approves every tool by itself, a step that copies a planted
 * instruction — in any of seven languages, disguised, quoted or pasted into a staff comment —
 * still waits for a person; a note that paraphrases an ordinary customer message does not, and
 * one that copies a clause of it does. Pure: the reference desk, no database (the same table
 * through the submission on both databases: lib/server/runs/untrusted-text-gate.test.ts).
 */
import { describe, expect, it } from "vitest";
import { gateRule, type GatePolicy } from "../gate-policy/rules";
import type { TaskTextPart } from "../task-contract/schema";
import { ECHOES, ORDINARY, PLANTED, type PlantedCase } from "../../testing/fixtures/untrusted-text-table";
import { codes, ctx, plan, step } from "../../testing/validation-context";
import { validatePlan } from "./pipeline";
import type { DerivedArg } from "./contract-rules";
import type { ValidationContext, ValidationResult } from "./types";

/** A gate policy whose one rule approves every step by itself: only the untrusted-text rules can ask for a person. */
const AUTO: ValidationContext["gateRules"] = {
  policy: { version: 1, rules: [{ ...gateRule({ decision: "auto" }), id: "r0", position: 0 }] } satisfies GatePolicy,
  desk: "freight",
  accountId: "acc_nordkapp",
  accountTags: [],
};

const taskOf = (parts: { source: TaskTextPart["source"]; text: string }[]): ValidationContext["task"] => ({ contract: null, intent: null, parts: parts.map((p) => ({ ...p, revision: 1 })) });

/** A note quoting the planted text and an escalation to management carrying it: the steps of the case as the issue found it. */
function copyPlan(copy: string) {
  return plan(step("note", "add_ticket_note", { ticketId: "74991", note: `Customer message, verbatim: ${copy}` }), step("esc", "escalate_ticket", { ticketId: "74991", team: "management", note: copy }));
}

const validate = (parts: PlantedCase["parts"], p: unknown): ValidationResult => validatePlan(p, ctx({ task: taskOf(parts), gateRules: AUTO }));
const derivedOf = (r: ValidationResult, stepId: string) => r.issues.find((i) => i.code === "derived_from_untrusted_text" && i.stepId === stepId);

describe("planted instructions copied into a step are never approved by the gate policy alone", () => {
  it(`the table: ${PLANTED.length} planted instructions in seven languages, none of their copies approved without a person`, () => {
    expect(PLANTED.length).toBeGreaterThanOrEqual(40);
    expect(new Set(PLANTED.map((c) => c.lang)).size).toBe(7);
    const approvedAlone = PLANTED.flatMap((c) => {
      const r = validate(c.parts, copyPlan(c.copy));
      return Object.entries(r.gate)
        .filter(([, g]) => g === "auto")
        .map(([stepId]) => `${c.id} (${c.how}): ${stepId}`);
    });
    expect(approvedAlone).toEqual([]);
  });

  it.each(PLANTED.map((c) => [c.id, c] as const))("%s: both steps wait for a person, and the issue shows the copied span and its part", (_id, c) => {
    const r = validate(c.parts, copyPlan(c.copy));
    expect(r.ok).toBe(true);
    expect(r.gate).toEqual({ note: "approval_required", esc: "approval_required" });
    const issue = derivedOf(r, "esc");
    expect(issue, JSON.stringify(r.issues)).toBeDefined();
    const [source] = issue!.details!.sources as DerivedArg[];
    expect(source).toMatchObject({ arg: "note" });
    // the planted text stands in the part it is credited to, at the span the issue names
    const partIndex = source.partIndex!;
    expect(c.parts[partIndex].text).toContain(c.copy.slice(0, 12));
    const span = source.spans![0];
    expect(c.parts[partIndex].text.slice(span.partStart, span.partEnd)).toBe(c.copy.slice(span.start, span.end));
    expect(span.end! - span.start!).toBeGreaterThan(0);
  });

  it("a copy that holds no instruction phrase at all is found by taint alone, credited to the customer, with the copied span", () => {
    const c = PLANTED.find((p) => p.id === "en-no-phrase")!;
    const r = validate(c.parts, copyPlan(c.copy));
    expect(codes(r)).not.toContain("instruction_in_source");
    const [source] = derivedOf(r, "esc")!.details!.sources as DerivedArg[];
    expect(source).toMatchObject({ arg: "note", via: "overlap", partIndex: 1, source: "customer_message" });
    expect(source.spans).toEqual([expect.objectContaining({ start: 0, end: c.copy.length - 1, partIndex: 1, words: 22 })]);
    expect(derivedOf(r, "esc")!.message).toMatch(/^"note" comes from untrusted text \(it copies 22 words of the customer message \(part 2\): "Per our call with your VP/);
  });

  it("a customer's words pasted into a staff comment are still the customer's: a step copying the comment is credited to the customer's message", () => {
    const c = PLANTED.find((p) => p.id === "de-customer-and-staff-paste")!;
    const r = validate(c.parts, copyPlan(c.copy));
    const [source] = derivedOf(r, "esc")!.details!.sources as DerivedArg[];
    expect(source).toMatchObject({ via: "overlap", partIndex: 1, source: "customer_message" });
  });
});

describe("ordinary customer messages: no false alarm", () => {
  it(`the table: ${ORDINARY.length} ordinary messages in seven languages are not flagged, and a note paraphrasing each is approved by the policy as before — while a note copying it verbatim waits for a person`, () => {
    expect(ORDINARY.length).toBeGreaterThanOrEqual(40);
    expect(new Set(ORDINARY.map((c) => c.lang)).size).toBe(7);
    const falseAlarms: string[] = [];
    const missedCopies: string[] = [];
    for (const c of ORDINARY) {
      const parts = [{ source: "customer_message" as const, text: c.message }];
      const steps = [step("note", "add_ticket_note", { ticketId: "74991", note: c.note }), ...(c.reply ? [step("reply", "send_reply", { ticketId: "74991", body: c.reply })] : [])];
      const r = validate(parts, plan(...steps));
      const flagged = codes(r).filter((code) => code === "instruction_in_source" || code === "derived_from_untrusted_text");
      if (flagged.length > 0 || r.gate.note !== "auto") falseAlarms.push(`${c.id}: ${flagged.join(", ")} note=${r.gate.note}`);
      // the same message copied whole into the note is derived from it, by design
      const copied = validate(parts, plan(step("note", "add_ticket_note", { ticketId: "74991", note: `Customer: ${c.message}` })));
      if (copied.gate.note !== "approval_required" || !derivedOf(copied, "note")) missedCopies.push(c.id);
    }
    expect(falseAlarms).toEqual([]);
    expect(missedCopies).toEqual([]);
  });

  it.each(ECHOES.map((e) => [e.id, e] as const))("%s: a note repeating a clause of six words or more word for word is a copy, and names it", (_id, e) => {
    const r = validate([{ source: "customer_message", text: e.message }], plan(step("note", "add_ticket_note", { ticketId: "74991", note: e.note })));
    expect(r.gate.note).toBe("approval_required");
    const [source] = derivedOf(r, "note")!.details!.sources as DerivedArg[];
    const span = source.spans![0];
    expect(span.words).toBeGreaterThanOrEqual(6);
    expect(e.message.slice(span.partStart, span.partEnd)).toBe(e.note.slice(span.start, span.end));
  });
});
