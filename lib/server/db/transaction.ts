import { DomainError, type ErrorCode } from "../../errors/domain-error";
import type { Prisma, PrismaClient } from "../../generated/prisma/client";
import { resolveDatabaseUrl } from "./database-url";
import { prisma } from "./db";
import { poolerMode } from "./pooler";
import { signalCommitOf } from "./commit-signal";
import { log } from "../../net/log.mjs";
import { countTransactionRetry } from "../metrics/metrics";

/**
 * One way to run a unit of work against the database, used by every service (docs/style.md §13):
 * an interactive transaction, retried when a conditional write lost a race or the database
 * asked for a retry, with typed refusals that can either commit or roll back.
 *
 * - Return `ok(value)` to commit and return `value`.
 * - Return `refuse(code, message, details)` to COMMIT what the body wrote (an audit event, a saved
 *   idempotent answer, a stop of the run) and then throw the DomainError.
 * - Throw a DomainError to ROLL BACK and throw it (nothing the body wrote survives).
 * - Throw `LostRace` (or let a unique constraint / serialization failure / busy error escape) to
 *   roll back and run the body again from the start; the retry decides afresh, so the loser of a
 *   race gets the typed refusal its new reading implies.
 */

/** A transaction client (inside `$transaction`). */
export type Tx = Prisma.TransactionClient;
/** A client outside a transaction (the process-wide one, or a test's own). */
export type Db = PrismaClient;
/** Either: the reads a function does may run inside a caller's transaction or outside any. */
export type DbOrTx = Tx | Db;

/** Thrown inside a transaction when a conditional write lost a race: roll back and decide again. */
export class LostRace extends Error {
  constructor(what: string) {
    super(`lost a race: ${what}`);
    this.name = "LostRace";
  }
}

/** Outcome of a transaction body: a value to return, or a refusal to throw after the commit. */
export type Result<T> = { ok: true; value: T } | { ok: false; error: DomainError };

/** A successful outcome. */
export const ok = <T>(value: T): Result<T> => ({ ok: true, value });

/** A refusal whose writes are committed before it is thrown. */
export const refuse = <T = never>(code: ErrorCode, message: string, details: Record<string, unknown> = {}): Result<T> => ({
  ok: false,
  error: new DomainError(code, message, details),
});

/** Attempts of one transaction before a retryable failure is given up (a typed 503 `busy`, nothing saved). */
const MAX_ATTEMPTS = 12;

const SQLITE = resolveDatabaseUrl().provider === "sqlite";
/** Behind a transaction pooler every transaction names its level (lib/server/db/pooler.ts). */
const TRANSACTION_POOLER = poolerMode() === "transaction";

/**
 * How a transaction keeps its decision correct on PostgreSQL
 * (docs/design.md "Transactions and locks"); on SQLite both are the same, one writer at a time
 * (`takeWriteLock`).
 *
 * - `"serializable"` (the default): SERIALIZABLE. Every transaction behaves as if it ran alone,
 *   which the read-then-decide bodies of the rarer decisions (admin changes, task revisions,
 *   one live plan per task, desk rules) rely on; a transaction PostgreSQL aborts to keep that
 *   (40001, or a deadlock 40P01) is retried from the start, so its second reading decides.
 * - `"row-locks"`: READ COMMITTED, for the decision path (claim, outcome, approve, reject,
 *   edit). The body takes, before it reads anything it decides on, the row locks of what it
 *   decides about in the one order — the task, then the run (`lockRun`), then
 *   the run's approvals, then the invoice — and puts every other condition in its writes'
 *   WHERE. Each statement after a lock sees everything committed before the lock was granted, so
 *   two decisions about one run take turns, and decisions about different runs never conflict
 *   (SERIALIZABLE's predicate locks made approvals of distinct runs abort each other and retry
 *   in storms). Each such transaction names, beside it, the anomaly its locks prevent.
 */
export type Isolation = "serializable" | "row-locks";

/** Options of one transaction: its isolation on PostgreSQL (see `Isolation`; default `"serializable"`). */
export type TransactionOptions = { isolation?: Isolation };

/** Interactive transactions wait for the database lock (20 s) rather than fail fast. */
const WAIT = { maxWait: 20_000, timeout: 20_000 } as const;

/**
 * The `$transaction` options for `isolation`. Typed as the SQLite client's (whose types the one
 * `Db` type carries, and which knows no isolation levels but Serializable); at run time on
 * PostgreSQL the PostgreSQL client receives them. `"row-locks"` names no level: every connection
 * of `createPrisma` defaults to READ COMMITTED (lib/server/db/create-prisma.ts `PG_SESSION_DEFAULTS`), so
 * its `BEGIN` is not followed by a `SET TRANSACTION` statement (one statement less per decision).
 * Behind a transaction pooler (PLANDESK_DATABASE_POOLER=transaction) no connection default holds,
 * so `"row-locks"` names READ COMMITTED: `BEGIN` then `SET TRANSACTION ISOLATION LEVEL READ
 * COMMITTED`, whatever the server's or role's default.
 */
function txOptions(isolation: Isolation = "serializable"): typeof WAIT {
  if (SQLITE) return WAIT;
  if (isolation === "row-locks") return TRANSACTION_POOLER ? ({ ...WAIT, isolationLevel: "ReadCommitted" } as typeof WAIT) : WAIT;
  return { ...WAIT, isolationLevel: "Serializable" } as typeof WAIT;
}

/**
 * Runs `body` in one transaction on `db` (default: the process-wide client), retrying at most
 * MAX_ATTEMPTS times with exponential backoff and jitter (capped at 1,000 ms) when it lost a race
 * (`LostRace`), a unique constraint fired (`P2002`), or the database reported a conflict,
 * deadlock or lock timeout (Prisma `P2034`/`P1008`, PostgreSQL 40001/40P01/55P03, SQLite busy).
 * Returns the value of `ok(value)`; throws the DomainError of `refuse(…)` after committing.
 * `options.isolation` chooses how PostgreSQL keeps the decision (`Isolation`).
 */
export async function inTransaction<T>(body: (tx: Tx) => Promise<Result<T>>, db: Db = prisma, options: TransactionOptions = {}): Promise<T> {
  return withRetry(() => inTransactionOnce(body, db, options));
}

/**
 * Runs `attempt` again from the start (at most MAX_ATTEMPTS times, exponential backoff with
 * jitter capped at 1,000 ms) while it fails with a retryable error (`isRetryable`). For decisions
 * that read OUTSIDE a transaction and write inside a short one (`inTransactionOnce`) with their
 * conditions in the writes' WHERE: a write that lost a race throws `LostRace`, and the retry
 * reads and decides afresh. Other errors (DomainErrors included) are thrown at once.
 */
export async function withRetry<T>(attempt: () => Promise<T>): Promise<T> {
  for (let n = 1; ; n++) {
    try {
      return await attempt();
    } catch (e) {
      if (!isRetryable(e)) throw e;
      if (n >= MAX_ATTEMPTS) {
        countTransactionRetry("exhausted");
        log.error({ err: e }, `plandesk: a transaction lost ${n} times to concurrent ones; answering busy`);
        throw new DomainError("busy", "Too many decisions on the same records at once; nothing was saved. Try again in a moment.", { attempts: n, retryAfterSeconds: 1 });
      }
      countTransactionRetry(e instanceof LostRace ? "lost_race" : isUniqueViolation(e) || (e as { cause?: { kind?: string } })?.cause?.kind === "UniqueConstraintViolation" ? "unique" : "conflict");
      await new Promise((r) => setTimeout(r, Math.random() * Math.min(1000, 5 * 2 ** n)));
    }
  }
}

/**
 * One transaction without retry: for use inside `withRetry`, which retries the whole decision.
 * Same contract as `inTransaction` for `ok`/`refuse`/thrown errors and `options`.
 */
export async function inTransactionOnce<T>(body: (tx: Tx) => Promise<Result<T>>, db: Db = prisma, options: TransactionOptions = {}): Promise<T> {
  const opened: { tx?: object } = {};
  const result = await db.$transaction(async (tx) => {
    opened.tx = tx;
    await takeWriteLock(tx);
    return body(tx);
  }, txOptions(options.isolation));
  if (opened.tx) signalCommitOf(opened.tx); // committed: a polling live feed reads it now
  if (!result.ok) throw result.error;
  return result.value;
}

/**
 * On SQLite, makes the transaction a writer from its first statement (what `BEGIN IMMEDIATE`
 * does; the driver adapter opens transactions with a deferred `BEGIN`): a write statement that
 * touches no row still takes the database's write lock. Without it, a transaction that reads
 * first and writes later fails at once with SQLITE_BUSY when another process committed in
 * between, instead of waiting its turn. On PostgreSQL, row locks and conditional updates do that
 * job; nothing is sent.
 */
async function takeWriteLock(tx: Tx): Promise<void> {
  if (SQLITE) await tx.$executeRawUnsafe('UPDATE "idempotency_record" SET "id" = "id" WHERE 0');
}

/** True for failures a fresh attempt can get past (see `inTransaction`). DomainErrors never are. */
export function isRetryable(e: unknown): boolean {
  if (e instanceof LostRace) return true;
  if (e instanceof DomainError) return false;
  const err = e as { code?: string; message?: string; cause?: { code?: string; kind?: string; originalCode?: string } } | null;
  const code = err?.code ?? "";
  if (["P2002", "P2034", "P1008", "40001", "40P01", "55P03"].includes(code)) return true;
  if (["40001", "40P01", "55P03"].includes(err?.cause?.code ?? err?.cause?.originalCode ?? "")) return true;
  // A PostgreSQL serialization failure at COMMIT reaches us as the driver adapter's own error.
  if (err?.cause?.kind === "TransactionWriteConflict" || err?.cause?.kind === "UniqueConstraintViolation") return true;
  return /SQLITE_BUSY|database is locked|SocketTimeout|socket timeout|could not serialize|deadlock detected|TransactionWriteConflict/i.test(err?.message ?? "");
}

/** True when `e` is a unique-constraint violation (Prisma `P2002`). */
export function isUniqueViolation(e: unknown): boolean {
  return (e as { code?: string } | null)?.code === "P2002";
}
