import { describe, expect, it } from "vitest";
import { z } from "zod";
import { toolCatalog } from "./builtin-tools";
import { textLimit } from "./text-limit";

describe("textLimit (character counters come from the tool's own schema)", () => {
  it("reads the limits of the built-in tools' text arguments", () => {
    expect(textLimit(toolCatalog.send_reply.argsSchema.shape.body)).toBe(10000);
    expect(textLimit(toolCatalog.issue_refund.argsSchema.shape.reason)).toBe(1000);
    expect(textLimit(toolCatalog.add_ticket_note.argsSchema.shape.note)).toBe(4000);
  });
  it("sees through optional and nullable, and has no limit for other kinds", () => {
    expect(textLimit(z.string().max(12).optional())).toBe(12);
    expect(textLimit(z.string().max(7).nullable())).toBe(7);
    expect(textLimit(z.string())).toBeUndefined();
    expect(textLimit(z.number().max(5))).toBeUndefined();
    expect(textLimit(toolCatalog.issue_refund.argsSchema.shape.amount)).toBeUndefined();
    expect(textLimit(undefined)).toBeUndefined();
  });
});
