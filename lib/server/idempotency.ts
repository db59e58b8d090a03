import { DomainError } from "../errors";

/**
 * The `Idempotency-Key` header of a request, or null. Keys are 1–200 visible ASCII characters.
 * Errors: 400 `bad_request` for a key outside that.
 */
export function idempotencyKeyOf(req: Request): string | null {
  const key = req.headers.get("idempotency-key");
  if (key === null) return null;
  if (!/^[\x21-\x7e]{1,200}$/.test(key)) {
    throw new DomainError("bad_request", "Idempotency-Key must be 1–200 visible ASCII characters.");
  }
  return key;
}
