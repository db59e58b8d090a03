import type {
  SqlDriverAdapter,
  SqlMigrationAwareDriverAdapterFactory,
  SqlQuery,
  Transaction,
} from "@prisma/driver-adapter-utils";
import { LRUCache } from "lru-cache";

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
    connect: async () => gateAdapter(cacheStatements(await inner.connect()), waitMs, opts.reader ? cacheStatements(await inner.connect()) : undefined),
    connectToShadowDb: async () => gateAdapter(await inner.connectToShadowDb(), waitMs),
  };
}

/** Prepared statements kept per connection (distinct SQL texts the app sends; ~100 in practice). */
const STATEMENT_CACHE_SIZE = 500;

/** The parts of a better-sqlite3 statement the Prisma adapter uses (`prepare(sql).bind(args)`, then these). */
interface SqliteStatement {
  reader: boolean;
  run(...args: unknown[]): unknown;
  all(...args: unknown[]): unknown[];
  columns(): unknown[];
  raw(toggle?: boolean): SqliteStatement;
}

/**
 * Prepared statements reused (`@prisma/adapter-better-sqlite3` 7.x calls
 * `client.prepare(sql).bind(args)` for every query, so SQLite compiles the same SQL text again
 * each time and the statement is garbage afterwards): the connection's `prepare` is wrapped so
 * one compiled statement per SQL text is kept (bounded LRU) and each call gets a view of it
 * that binds its own arguments at run time. A cached statement is never bound (better-sqlite3
 * allows `bind` once per statement); SQLite recompiles a cached statement itself after a schema
 * change. Only queries the adapter runs through `prepare` are affected; `exec` scripts are not.
 * An adapter without the expected `client` is returned as it is.
 */
function cacheStatements(adapter: SqlDriverAdapter): SqlDriverAdapter {
  const client = (adapter as unknown as { client?: { prepare?: (sql: string) => SqliteStatement } }).client;
  if (!client || typeof client.prepare !== "function") return adapter;
  const prepare = client.prepare.bind(client);
  const cache = new LRUCache<string, SqliteStatement>({ max: STATEMENT_CACHE_SIZE });
  client.prepare = (sql: string) => {
    let stmt = cache.get(sql);
    if (!stmt) {
      stmt = prepare(sql);
      cache.set(sql, stmt);
    }
    const compiled = stmt;
    const bound = (args: unknown[]) => ({
      reader: compiled.reader,
      run: () => compiled.run(...args),
      columns: () => compiled.columns(),
      raw: () => ({ all: () => compiled.raw(true).all(...args) }),
    });
    return { reader: compiled.reader, run: (...args: unknown[]) => compiled.run(...args), bind: (...args: unknown[]) => bound(args.length === 1 && Array.isArray(args[0]) ? args[0] : args) } as unknown as SqliteStatement;
  };
  return adapter;
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
