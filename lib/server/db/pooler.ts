/**
 * What sits between Plandesk and PostgreSQL, from env PLANDESK_DATABASE_POOLER (docs/operations.md
 * "Behind a transaction pooler"):
 *
 * - `"session"` (unset, empty, `session` or `none`): every connection of the pool is one server
 *   session for its whole life — PostgreSQL directly, or a pooler in session mode. Each connection
 *   is set to READ COMMITTED once when it connects and reuses named prepared statements
 *   (lib/server/db/create-prisma.ts), and the live feed LISTENs on DATABASE_URL.
 * - `"transaction"` (`transaction`): a pooler in transaction mode (PgBouncer `pool_mode =
 *   transaction`) may give each transaction, and each statement outside one, a different server
 *   session, so nothing may rely on session state: no session-level SET (every transaction names
 *   its isolation level — one statement more per decision), no named prepared statements (PgBouncer
 *   before 1.21 cannot carry them; Debian 12 ships 1.18), and the live feed LISTENs on
 *   PLANDESK_DATABASE_LISTEN_URL (a direct connection) or, without it, polls the audit events.
 *
 * A wrong setting is never silent in the unsafe direction: serializable transactions name their
 * level in both modes, and in session mode behind a transaction pooler the first named statement
 * that lands on another server session fails loudly ("prepared statement … already exists" or
 * "… does not exist", PostgreSQL 42P05 / 26000).
 */
export type PoolerMode = "session" | "transaction";

/**
 * The pooler mode of `env` (default `process.env`). Errors: throws for any other value of
 * PLANDESK_DATABASE_POOLER, so a misspelt setting stops the process at start instead of running
 * in session mode behind a transaction pooler.
 */
export function poolerMode(env: Record<string, string | undefined> = process.env): PoolerMode {
  const raw = env.PLANDESK_DATABASE_POOLER?.trim().toLowerCase() ?? "";
  if (raw === "" || raw === "session" || raw === "none") return "session";
  if (raw === "transaction") return "transaction";
  throw new Error(`PLANDESK_DATABASE_POOLER must be "transaction", "session" or unset; got "${env.PLANDESK_DATABASE_POOLER}"`);
}

/**
 * Where the live feed LISTENs on PostgreSQL: PLANDESK_DATABASE_LISTEN_URL when set (a direct
 * connection past the pooler), else DATABASE_URL (`databaseUrl`) in session mode, else null —
 * behind a transaction pooler a LISTEN would end with its transaction's server session, so the
 * feed polls the audit events instead (lib/server/feed/live-feed.ts). Errors: throws for a listen
 * URL that is not a PostgreSQL URL.
 */
export function listenUrl(databaseUrl: string, env: Record<string, string | undefined> = process.env): string | null {
  const direct = env.PLANDESK_DATABASE_LISTEN_URL?.trim();
  if (direct) {
    if (!/^postgres(ql)?:\/\//.test(direct)) throw new Error(`PLANDESK_DATABASE_LISTEN_URL must start with postgres:// or postgresql:// (got "${direct.split(":")[0]}:")`);
    return direct;
  }
  return poolerMode(env) === "transaction" ? null : databaseUrl;
}
