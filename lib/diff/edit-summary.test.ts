import { describe, expect, it } from "vitest";
import fc from "fast-check";
import type { Step } from "../plan/schema";
import { summariseEdits, type PlanVersionInput } from "./edit-summary";

const step = (id: string, tool: string, args: Record<string, unknown>): Step => ({ id, tool, args, provenance: {}, author: { kind: "model" } });
const refund = (minor: number) => step("refund", "issue_refund", { invoiceId: "in_74310", amount: { minor, currency: "USD" }, reason: "Second charge" });
const reply = step("reply", "send_reply", { ticketId: "74310", body: "We have refunded $1,060.00." });
const note = step("note", "add_ticket_note", { ticketId: "74310", body: "Checked the invoice." });
const v = (version: number, createdById: string | null, ...steps: Step[]): PlanVersionInput => ({ version, createdById, createdAt: `2026-12-06T10:0${version}:00.000Z`, steps });

describe("summariseEdits", () => {
  it("is empty while the agent's plan is the only version", () => {
    expect(summariseEdits([v(1, null, refund(106000), reply)])).toEqual([]);
  });

  it("names who, when and the amount before and after, in minor units", () => {
    const edits = summariseEdits([v(1, null, refund(106000), reply), v(2, "usr_op", refund(100000), reply)]);
    expect(edits).toEqual([
      {
        version: 2,
        fromVersion: 1,
        editorId: "usr_op",
        at: "2026-12-06T10:02:00.000Z",
        steps: [
          {
            stepId: "refund",
            tool: "issue_refund",
            position: 1,
            from: 1,
            changes: ["changed"],
            fields: [{ path: "args.amount", segments: ["args", "amount"], kind: "changed", before: { minor: 106000, currency: "USD" }, after: { minor: 100000, currency: "USD" } }],
          },
        ],
      },
    ]);
  });

  it("lists added, moved and removed steps, one entry per edit, oldest first", () => {
    const edits = summariseEdits([
      v(3, "usr_senior", reply, refund(106000), note),
      v(1, null, refund(106000), reply),
      v(2, "usr_op", refund(106000), reply, note),
      v(4, "usr_senior", reply, note),
    ]);
    expect(edits.map((e) => [e.fromVersion, e.version, e.editorId])).toEqual([
      [1, 2, "usr_op"],
      [2, 3, "usr_senior"],
      [3, 4, "usr_senior"],
    ]);
    expect(edits[0].steps).toEqual([{ stepId: "note", tool: "add_ticket_note", position: 3, from: null, changes: ["added"], fields: [] }]);
    expect(edits[1].steps.map((s) => [s.stepId, s.changes, s.from, s.position])).toEqual([["refund", ["moved"], 1, 2]]);
    expect(edits[2].steps).toEqual([{ stepId: "refund", tool: "issue_refund", position: null, from: 2, changes: ["removed"], fields: [] }]);
  });

  it("starts after the agent's last version", () => {
    const edits = summariseEdits([v(1, "usr_op", refund(1)), v(2, null, refund(106000)), v(3, "usr_op", refund(5))]);
    expect(edits.map((e) => e.version)).toEqual([3]);
  });

  it("property: every touched step of every edit is named, none that stayed the same", () => {
    const amount = fc.integer({ min: 1, max: 10_000_000 });
    fc.assert(
      fc.property(amount, amount, fc.boolean(), (a, b, withNote) => {
        const after = withNote ? [refund(b), reply, note] : [refund(b), reply];
        const [edit] = summariseEdits([v(1, null, refund(a), reply), v(2, "usr_op", ...after)]);
        const named = edit.steps.map((s) => s.stepId).sort();
        const expected = [...(a !== b ? ["refund"] : []), ...(withNote ? ["note"] : [])].sort();
        expect(named).toEqual(expected);
        for (const s of edit.steps.filter((x) => x.stepId === "refund")) {
          expect(s.fields[0].before).toEqual({ minor: a, currency: "USD" });
          expect(s.fields[0].after).toEqual({ minor: b, currency: "USD" });
        }
      }),
    );
  });
});
