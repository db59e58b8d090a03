import { describe, expect, it } from "vitest";
import { z } from "zod";
import { stepWithoutStrictNulls, withoutNullKeys, withoutStrictNulls } from "./strict-nulls";

const schema = z.object({ invoiceId: z.string(), note: z.string().optional(), tags: z.array(z.string()).optional(), memo: z.string().nullable().optional(), due: z.string() });

describe("strict-mode nulls mean absent", () => {
  it("drops null for an optional, non-nullable argument and keeps everything else", () => {
    expect(withoutStrictNulls({ invoiceId: "in_1", note: null, tags: null, memo: null, due: null, extra: null }, schema)).toEqual({ invoiceId: "in_1", memo: null, due: null, extra: null });
  });
  it("drops a step's own null fields and its arguments' optional nulls", () => {
    const step = { id: "s1", tool: "t", args: { invoiceId: "in_1", tags: null }, title: null, rationale: null, dependsOn: null };
    expect(stepWithoutStrictNulls(step, () => schema)).toEqual({ id: "s1", tool: "t", args: { invoiceId: "in_1" } });
  });
  it("leaves non-objects alone", () => {
    expect(withoutNullKeys([1, null])).toEqual([1, null]);
    expect(withoutStrictNulls("x", schema)).toBe("x");
  });
});
