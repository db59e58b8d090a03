import { describe, expect, it } from "vitest";
import { carryOverEdits, type CarryStep } from "./carry-over";

const reply = (id: string, body: string, extra: Record<string, unknown> = {}): CarryStep => ({ id, tool: "send_reply", args: { ticketId: "74994", body, ...extra } });
const refund = (id: string, minor: number, input?: string): CarryStep => ({
  id,
  tool: "issue_refund",
  args: { invoiceId: "in_1", amount: input === undefined ? { minor, currency: "USD" } : { minor, currency: "USD", input }, reason: "Goodwill" },
});

describe("carryOverEdits", () => {
  it("keeps a typed value on a step the newer version still has, and takes the newer version's other values", () => {
    const base = [reply("s1", "Hello"), refund("s2", 1000)];
    const mine = [reply("s1", "Hello, I typed this"), refund("s2", 1000)];
    const newer = [reply("s1", "Hello", { note: "theirs" }), refund("s2", 2000)];
    const r = carryOverEdits(base, mine, newer);
    expect(r.steps).toEqual([reply("s1", "Hello, I typed this", { note: "theirs" }), refund("s2", 2000)]);
    expect(r.kept).toEqual([{ stepId: "s1", tool: "send_reply", arg: "body", overridesNewer: false }]);
    expect(r.lost).toEqual([]);
  });

  it("puts the person's value over the newer version's when both changed the same argument, and says so", () => {
    const r = carryOverEdits([reply("s1", "Hello")], [reply("s1", "Mine")], [reply("s1", "Theirs")]);
    expect(r.steps[0].args.body).toBe("Mine");
    expect(r.kept).toEqual([{ stepId: "s1", tool: "send_reply", arg: "body", overridesNewer: true }]);
  });

  it("keeps a money amount as typed (its text too), and does not count the typed text alone as a change", () => {
    const typed = carryOverEdits([refund("s2", 1000)], [refund("s2", 5000, "50.00")], [refund("s2", 1000)]);
    expect(typed.steps[0].args.amount).toEqual({ minor: 5000, currency: "USD", input: "50.00" });
    expect(typed.kept.map((k) => k.arg)).toEqual(["amount"]);
    const same = carryOverEdits([refund("s2", 1000)], [refund("s2", 1000, "10.00")], [refund("s2", 3000)]);
    expect(same.kept).toEqual([]);
    expect(same.steps[0].args.amount).toEqual({ minor: 3000, currency: "USD" });
  });

  it("an empty field the form adds is not a change", () => {
    const r = carryOverEdits([reply("s1", "Hello")], [reply("s1", "Hello", { note: "" })], [reply("s1", "Newer")]);
    expect(r.kept).toEqual([]);
    expect(r.steps).toEqual([reply("s1", "Newer")]);
  });

  it("says which changes no longer apply: a step the newer version removed, or gave another tool", () => {
    const base = [reply("s1", "Hello"), refund("s2", 1000)];
    const mine = [reply("s1", "Mine"), refund("s2", 4000, "40.00")];
    const newer = [{ id: "s1", tool: "add_note", args: { ticketId: "74994", body: "Hello" } }];
    const r = carryOverEdits(base, mine, newer);
    expect(r.steps).toEqual(newer);
    expect(r.kept).toEqual([]);
    expect(r.lost).toEqual([
      { kind: "arg_gone", stepId: "s1", tool: "send_reply", arg: "body", value: "Mine" },
      { kind: "step_removed", stepId: "s2", tool: "issue_refund", args: { amount: { minor: 4000, currency: "USD", input: "40.00" } } },
    ]);
  });

  it("appends steps the person added, and says a removal of a step the newer version still has was not applied", () => {
    const base = [reply("s1", "Hello"), refund("s2", 1000)];
    const mine = [reply("s1", "Hello"), reply("new-a", "Added by me")];
    const newer = [reply("s1", "Hello"), refund("s2", 1500), reply("s3", "Theirs")];
    const r = carryOverEdits(base, mine, newer);
    expect(r.steps.map((s) => s.id)).toEqual(["s1", "s2", "s3", "new-a"]);
    expect(r.added).toEqual(["new-a"]);
    expect(r.lost).toEqual([{ kind: "removal_not_applied", stepId: "s2", tool: "issue_refund" }]);
  });

  it("changes nothing when the person changed nothing", () => {
    const newer = [reply("s1", "Newer")];
    expect(carryOverEdits([reply("s1", "Hello")], [reply("s1", "Hello")], newer)).toEqual({ steps: newer, kept: [], added: [], lost: [] });
  });
});
