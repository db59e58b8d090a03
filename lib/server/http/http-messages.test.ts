import { describe, expect, it } from "vitest";
import { rejectBodySchema } from "../../api/bodies";
import { isDomainError } from "../../errors/domain-error";
import { readJson } from "./http";

const refusal = async (body: unknown) => {
  try {
    await readJson(new Request("http://x/api", { method: "POST", body: JSON.stringify(body), headers: { "content-type": "application/json" } }), rejectBodySchema);
  } catch (e) {
    if (isDomainError(e)) return e;
    throw e;
  }
  throw new Error("expected a refusal");
};

describe("a refused body says what is wrong in plain words (issue 14)", () => {
  it("an empty or over-long rejection reason", async () => {
    const empty = await refusal({ planVersion: 1, reason: "" });
    expect(empty.code).toBe("bad_request");
    expect(empty.message).toBe("Give the agent a reason (at least 3 characters).");
    const long = await refusal({ planVersion: 1, reason: "x".repeat(2001) });
    expect(long.message).toBe("Keep the reason under 2,000 characters.");
    expect(long.message).not.toMatch(/Too big/);
  });
});
