import type {
  SqlDriverAdapter,
  SqlMigrationAwareDriverAdapterFactory,
  SqlQuery,
  Transaction,
} from "@prisma/driver-adapter-utils";

/**
 * Why this exists: the better-sqlite3 adapter uses ONE connection per client and serialises
 * transactions with a mutex, but a query sent outside a transaction does not wait for that
 * mutex — it runs on the same connection inside whatever transaction is open, sees its
 * uncommitted rows, and is undone if that transaction rolls back. This wrapper makes every
 * statement outside a transaction wait until no transaction is open, so each request sees only
 * committed data and its own writes survive another request's rollback.
 *
 * Reads do not wait behind a write transaction: with `opts.reader` a second
 * connection to the same file serves every SELECT sent outside a transaction. In WAL mode it reads
 * the last committed state without waiting for the writer (never another request's uncommitted
 * rows), so a page or a GET is not queued behind a claim's transaction. Statements inside a
 * transaction, and every write, stay on the one writing connection.
 *
 * Deadlock guard: code that, inside `$transaction`, queries through the global client instead of
 * `tx` would wait for its own transaction (writes) or not see its own uncommitted rows (reads);
 * a wait gives up after `waitMs` with an error naming the cause instead of hanging.
 */
export function gateSqliteFactory(
  inner: SqlMigrationAwareDriverAdapterFactory,
  waitMs = 30_000,
  opts: { reader?: boolean } = {},
): SqlMigrationAwareDriverAdapterFactory {
  return {
    provider: inner.provider,
    adapterName: inner.adapterName,
    connect: async () => gateAdapter(await inner.connect(), waitMs, opts.reader ? await inner.connect() : undefined),
    connectToShadowDb: async () => gateAdapter(await inner.connectToShadowDb(), waitMs),
  };
}

/** A statement that only reads (a plain SELECT): safe on the reading connection. */
const READ_ONLY = /^\s*SELECT\b/i;

/** A FIFO lock over one connection: one holder at a time (a transaction or one statement). */
class ConnectionLock {
  #tail: Promise<void> = Promise.resolve();

  acquire(waitMs: number): Promise<() => void> {
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    const previous = this.#tail;
    this.#tail = previous.then(() => held);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        reject(new Error("Database connection busy for too long (a query outside a transaction waited for a transaction that never finished)"));
      }, waitMs);
      timer.unref?.();
      previous.then(() => {
        clearTimeout(timer);
        resolve(release);
      });
    });
  }
}

function gateAdapter(adapter: SqlDriverAdapter, waitMs: number, reader?: SqlDriverAdapter): SqlDriverAdapter {
  const lock = new ConnectionLock();
  const exclusive = async <T>(fn: () => Promise<T>): Promise<T> => {
    const release = await lock.acquire(waitMs);
    try {
      return await fn();
    } finally {
      release();
    }
  };
  const gated: SqlDriverAdapter = {
    provider: adapter.provider,
    adapterName: adapter.adapterName,
    queryRaw: (q: SqlQuery) => (reader && READ_ONLY.test(q.sql) ? reader.queryRaw(q) : exclusive(() => adapter.queryRaw(q))),
    executeRaw: (q: SqlQuery) => exclusive(() => adapter.executeRaw(q)),
    executeScript: (script: string) => exclusive(() => adapter.executeScript(script)),
    dispose: async () => {
      await reader?.dispose();
      await adapter.dispose();
    },
    startTransaction: async (isolationLevel) => {
      const release = await lock.acquire(waitMs);
      let tx: Transaction;
      try {
        tx = await adapter.startTransaction(isolationLevel);
      } catch (e) {
        release();
        throw e;
      }
      let done = false;
      const finish = () => {
        if (!done) {
          done = true;
          release();
        }
      };
      return Object.assign(Object.create(Object.getPrototypeOf(tx)), tx, {
        options: tx.options,
        provider: tx.provider,
        adapterName: tx.adapterName,
        queryRaw: (q: SqlQuery) => tx.queryRaw(q),
        executeRaw: (q: SqlQuery) => tx.executeRaw(q),
        commit: async () => {
          try {
            await tx.commit();
          } finally {
            finish();
          }
        },
        rollback: async () => {
          try {
            await tx.rollback();
          } finally {
            finish();
          }
        },
        createSavepoint: tx.createSavepoint ? (n: string) => tx.createSavepoint!(n) : undefined,
        rollbackToSavepoint: tx.rollbackToSavepoint ? (n: string) => tx.rollbackToSavepoint!(n) : undefined,
        releaseSavepoint: tx.releaseSavepoint ? (n: string) => tx.releaseSavepoint!(n) : undefined,
      }) as Transaction;
    },
  };
  if (adapter.getConnectionInfo) gated.getConnectionInfo = () => adapter.getConnectionInfo!();
  return gated;
}
