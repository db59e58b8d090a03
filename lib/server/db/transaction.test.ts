/**
 * A decision that keeps losing to concurrent ones is refused as a typed 503 `busy` (nothing
 * saved, Retry-After), never an untyped 500; a failure that is not a conflict is thrown at once.
 */
import { describe, expect, it } from "vitest";
import { isDomainError } from "../../errors/domain-error";
import { LostRace, withRetry } from "./transaction";

describe("withRetry", () => {
  it("retries a serialization conflict, then answers busy with a retry hint", async () => {
    let attempts = 0;
    const conflict = Object.assign(new Error("TransactionWriteConflict"), { cause: { kind: "TransactionWriteConflict", originalCode: "40001" } });
    const err = await withRetry(async () => {
      attempts++;
      throw conflict;
    }).catch((e: unknown) => e);
    expect(isDomainError(err)).toBe(true);
    expect(err).toMatchObject({ code: "busy", status: 503, details: { retryAfterSeconds: 1 } });
    expect(attempts).toBeGreaterThan(1);
  }, 20_000);

  it("a race lost once is decided again and succeeds", async () => {
    let attempts = 0;
    const value = await withRetry(async () => {
      if (++attempts === 1) throw new LostRace("first reading");
      return "second reading decides";
    });
    expect([value, attempts]).toEqual(["second reading decides", 2]);
  });

  it("an error that is not a conflict is thrown at once", async () => {
    let attempts = 0;
    await expect(
      withRetry(async () => {
        attempts++;
        throw new Error("boom");
      }),
    ).rejects.toThrow("boom");
    expect(attempts).toBe(1);
  });
});
