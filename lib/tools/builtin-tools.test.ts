import { describe, expect, it } from "vitest";
import { getTool, isToolName, toolCatalog, toolNames } from "./builtin-tools";
import { referenceDesk, REFERENCE_NOW } from "../../testing/fixtures/reference-desk";
import { one, validArgs } from "../../testing/validation-context";

const desk = referenceDesk(REFERENCE_NOW);

describe("tool catalog", () => {
  it("registers the seven tools of docs/design.md with their effects and default gates", () => {
    const table = Object.fromEntries(toolNames.map((n) => [n, [toolCatalog[n].effect, toolCatalog[n].gate]]));
    expect(table).toEqual({
      add_ticket_note: ["internal", "auto"],
      reschedule_delivery: ["reversible", "approval"],
      send_reply: ["customer_visible", "approval"],
      issue_refund: ["irreversible", "approval"],
      apply_credit: ["irreversible", "approval"],
      waive_fee: ["irreversible", "approval"],
      escalate_ticket: ["internal", "auto"],
      cancel_shipment: ["irreversible", "approval"],
    });
  });

  it("looks tools up exactly, never through the prototype", () => {
    for (const n of toolNames) expect(getTool(n)?.name).toBe(n);
    for (const bad of ["constructor", "__proto__", "toString", "Issue_Refund", "issue_refund ", ""]) {
      expect(getTool(bad)).toBeUndefined();
      expect(isToolName(bad)).toBe(false);
    }
  });

  for (const name of toolNames) {
    describe(name, () => {
      const tool = toolCatalog[name];
      const args = validArgs[name];

      it("has fields naming exactly its schema keys, in order, with labels", () => {
        expect(tool.fields.map((f) => f.name)).toEqual(Object.keys(tool.argsSchema.shape));
        for (const f of tool.fields) expect(f.label.length).toBeGreaterThan(0);
        expect(tool.label.length).toBeGreaterThan(0);
        expect(tool.description.length).toBeGreaterThan(10);
      });

      it("accepts valid args unchanged (no transforms, so digests agree)", () => {
        const parsed = tool.argsSchema.safeParse(args);
        expect(parsed.success).toBe(true);
        expect(parsed.data).toEqual(args);
        expect(tool.checkBounds(tool.argsSchema.parse(args), { desk, now: REFERENCE_NOW })).toEqual([]);
      });

      it("is strict: an unknown field is an error, never dropped", () => {
        const r = tool.argsSchema.safeParse({ ...args, surprise: 1 });
        expect(r.success).toBe(false);
        expect(r.error?.issues[0].code).toBe("unrecognized_keys");
      });

      it("gives form-friendly messages for missing fields", () => {
        // Through the pipeline: the shared moneySchema says "Invalid input" for a missing
        // amount OBJECT (a form always sends one); the pipeline rewrites it from the label.
        const r = one(name, {});
        expect(r.ok).toBe(false);
        expect(r.issues.length).toBe(tool.fields.length);
        for (const issue of r.issues) {
          expect(issue.code).toBe("missing_field");
          expect(issue.message).toMatch(/ (is|are) required$/);
        }
      });

      it("resolves its target in the desk, or null for an unknown id", () => {
        const parsed = tool.argsSchema.parse(args);
        const target = tool.target(parsed, desk);
        expect(target).not.toBeNull();
        const idField = tool.fields.find((f) => f.kind.endsWith("_id"))!;
        expect(target!.id).toBe((args as Record<string, unknown>)[idField.name]);
        expect(tool.target({ ...parsed, [idField.name]: "nope" }, desk)).toBeNull();
      });

      it("declares the money it moves", () => {
        const parsed = tool.argsSchema.parse(args);
        const moves = "amount" in tool.argsSchema.shape;
        expect(tool.amount(parsed)).toEqual(moves ? (args as { amount: unknown }).amount : undefined);
      });
    });
  }

  it("money fields: a cleared amount is missing, never 0", () => {
    const schema = toolCatalog.issue_refund.argsSchema;
    for (const amount of [{ currency: "USD" }, { minor: null, currency: "USD" }, { minor: "", currency: "USD" }]) {
      const r = schema.safeParse({ ...validArgs.issue_refund, amount });
      expect(r.success).toBe(false);
      expect(r.error!.issues[0].message).toBe("Amount is required");
    }
  });

  it("escalate_ticket lists its teams as options", () => {
    const team = toolCatalog.escalate_ticket.fields.find((f) => f.name === "team")!;
    expect(team.options?.map((o) => o.value)).toEqual(["billing", "claims", "customs", "operations", "management"]);
  });
});
