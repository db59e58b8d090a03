import { createHash } from "node:crypto";
import { nanoid } from "nanoid";
import { DomainError } from "../../errors/domain-error";
import type { Prisma } from "../../generated/prisma/client";
import { canonicalJson } from "../../plan/canonical-json";
import type { DbOrTx, Tx } from "../db/transaction";

/**
 * Idempotency keys, one mechanism for every operation that takes one (submission, approval,
 * claim, the demo executor's write): the answer to a key is saved in `idempotency_record`
 * (unique per scope + key) in the SAME transaction as the effects it reports, together with the
 * hash of the request it answered. A repeat of the same request returns the saved answer and
 * does nothing new; the same key with another request is refused (409 `idempotency_conflict`),
 * never answered with what it did not ask for. A racing duplicate fails on the unique key, its
 * transaction is retried (lib/server/db/transaction.ts) and then finds the saved answer. A
 * refusal that may change saves no answer but binds the key to its request (`bindKey`).
 * Source: docs/design.md §5 ("a repeated click or callback with the same idempotency key returns the
 * saved result and dispatches nothing new").
 */

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

/** SHA-256 (hex) of the canonical JSON of `request`: what an idempotency key stands for. */
export function requestHashOf(request: unknown): string {
  try {
    return createHash("sha256").update(canonicalJson(request), "utf8").digest("hex");
  } catch {
    return "unhashable";
  }
}

/** A saved answer: the HTTP status and body it had. */
export interface SavedAnswer<T = unknown> {
  status: number;
  body: T;
}

/**
 * The saved answer for `key` in `scope`, or null when none is saved (or only reserved by a
 * transaction still running). Errors: 409 `idempotency_conflict` when the key answered another
 * request (`requestHash` differs).
 */
export async function findSavedAnswer<T = unknown>(db: DbOrTx, scope: string, key: string, requestHash: string): Promise<SavedAnswer<T> | null> {
  const rec = await db.idempotencyRecord.findUnique({ where: { scope_key: { scope, key } } });
  if (!rec) return null;
  if (rec.requestHash && rec.requestHash !== requestHash) {
    throw new DomainError("idempotency_conflict", "This idempotency key was already used for a different request; use a new key for a new request.", {
      idempotencyKey: key,
    });
  }
  if (rec.status === 0) return null; // bound to this request by a refusal, no answer saved (`bindKey`)
  return { status: rec.status, body: rec.body as T };
}

/**
 * Binds `key` in `scope` to the request `requestHash` without saving an answer (status 0): what a
 * refusal that may change does (a submission refused against live data). The same request with
 * the key is then decided afresh (`findSavedAnswer` answers null), another request is refused 409
 * `idempotency_conflict`, and the answer a later success saves replaces the binding
 * (`saveAnswerOverBinding`). A key already bound or answered is left as it is.
 */
export async function bindKey(db: DbOrTx, scope: string, key: string, requestHash: string): Promise<void> {
  try {
    await db.idempotencyRecord.create({ data: { id: nanoid(), scope, key, requestHash, status: 0, body: {} } });
  } catch (e) {
    if (!(e instanceof Error && "code" in e && (e as { code?: unknown }).code === "P2002")) throw e;
  }
}

/** `saveAnswer` for a key `bindKey` may have bound to this same request: the binding becomes the answer; otherwise a new record. */
export async function saveAnswerOverBinding(tx: Tx, scope: string, key: string, requestHash: string, answer: SavedAnswer): Promise<void> {
  const bound = await tx.idempotencyRecord.updateMany({
    where: { scope, key, requestHash, status: 0 },
    data: { status: answer.status, body: answer.body as Prisma.InputJsonValue },
  });
  if (bound.count === 0) await saveAnswer(tx, scope, key, requestHash, answer);
}

/**
 * Saves the answer for `key` in `scope` inside the transaction that made its effects. A second
 * transaction saving the same key fails on the unique constraint (`P2002`) and is retried.
 */
export async function saveAnswer(tx: Tx, scope: string, key: string, requestHash: string, answer: SavedAnswer): Promise<void> {
  await tx.idempotencyRecord.create({
    data: { id: nanoid(), scope, key, requestHash, status: answer.status, body: answer.body as Prisma.InputJsonValue },
  });
}
