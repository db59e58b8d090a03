/**
 * Text tells the truth: the promise scan reads a reply as it is displayed (bidi overrides
 * applied), and hidden characters in any text argument are flagged `hidden_characters`.
 */
import { describe, expect, it } from "vitest";
import { validatePlan } from "./pipeline";
import { ctx, plan, step, validArgs } from "../../testing/validation-context";

const reply = (body: string) => plan(step("r", "send_reply", { ...validArgs.send_reply, body }));
const issues = (body: string) => validatePlan(reply(body), ctx()).issues;

describe("hidden text", () => {
  it("a right-to-left override that displays 'refund' is scanned as 'refund': unbacked_commitment needs acknowledgement", () => {
    const found = issues("Hello, we will \u202ednufer\u202c you $150.00 this week.");
    expect(found.map((i) => i.code)).toContain("unbacked_commitment");
    expect(found.find((i) => i.code === "unbacked_commitment")?.needsAcknowledgement).toBe(true);
  });

  it("flags invisible and direction characters in any text argument, naming them", () => {
    const found = issues("Hello, we will \u202ednufer\u202c you $150.00 this week.").find((i) => i.code === "hidden_characters")!;
    expect(found).toMatchObject({ severity: "warning", needsAcknowledgement: true, stage: "content", path: "steps.0.args.body" });
    expect((found.details!.characters as { name: string }[]).map((c) => c.name)).toEqual(["RLO", "PDF"]);
    const note = validatePlan(plan(step("n", "add_ticket_note", { ...validArgs.add_ticket_note, note: "rm -rf\u00a0/srv/app" })), ctx()).issues;
    expect(note.find((i) => i.code === "hidden_characters")?.message).toContain("NBSP");
  });

  it("plain text raises no hidden_characters", () => {
    expect(issues("Thanks for your message; we are looking into it.").map((i) => i.code)).not.toContain("hidden_characters");
  });
});
