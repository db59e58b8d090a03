/**
 * Query plans of captured statements, and the whole-table reads in them — shared by the
 * decision path's plan test (app/api/decision-path-plans.test.ts) and the outcome queries'
 * benchmark (scripts/bench-outcome-queries.ts). docs/design.md "Storage and scale": no request path reads a
 * whole table.
 */
import Database from "better-sqlite3";
import pg from "pg";

/** A statement as Prisma's query event gives it: SQL text and its parameters as a JSON array. */
export interface PlannedStatement {
  sql: string;
  params: string;
}

/** Where to explain: the dialect and the database (URL; for SQLite also the file). */
export interface PlanTarget {
  provider: "sqlite" | "postgresql";
  url: string;
  file?: string;
}

/**
 * Statements that read no table: transaction control, session settings, SQLite pragmas, the write
 * lock's no-op update (`WHERE 0`, lib/server/db/transaction.ts), advisory locks, and a read whose
 * condition is false (`WHERE 1=0`: Prisma's `in: []`).
 */
export function readsNoTable(sql: string): boolean {
  const s = sql.trim();
  return /^(BEGIN|COMMIT|ROLLBACK|SAVEPOINT|RELEASE|SET |SELECT 1$|PRAGMA)/i.test(s) || /pg_advisory|write_lock|WHERE 0$|WHERE 1=0\b/i.test(s);
}

/**
 * The plan of `s` as text, one node per line: SQLite's `EXPLAIN QUERY PLAN` rows indented by
 * depth, or PostgreSQL's `EXPLAIN` with the captured parameters bound. With `forbidSeqScan`
 * PostgreSQL plans under `enable_seqscan = off`, so a `Seq Scan` in the plan means no index can
 * serve the statement whatever the table's size (a small test database would otherwise be read
 * sequentially because that is cheaper). A statement that cannot be explained returns
 * "(not explained: …)".
 */
export async function explainStatement(target: PlanTarget, s: PlannedStatement, opts: { forbidSeqScan?: boolean } = {}): Promise<string> {
  let params: unknown[] = [];
  try {
    params = JSON.parse(s.params) as unknown[];
  } catch {
    params = [];
  }
  if (target.provider === "postgresql") {
    const c = new pg.Client({ connectionString: target.url });
    await c.connect();
    try {
      if (opts.forbidSeqScan) await c.query("SET enable_seqscan = off");
      const r = await c.query(`EXPLAIN ${s.sql}`, params.map((p) => (p !== null && typeof p === "object" ? JSON.stringify(p) : p)));
      return r.rows.map((x: Record<string, string>) => x["QUERY PLAN"]).join("\n");
    } catch (e) {
      return `(not explained: ${e instanceof Error ? e.message : String(e)})`;
    } finally {
      await c.end();
    }
  }
  const db = new Database(target.file!, { readonly: true });
  try {
    const bind = params.map((p) => (typeof p === "boolean" ? (p ? 1 : 0) : p !== null && typeof p === "object" ? JSON.stringify(p) : p));
    const rows = db.prepare(`EXPLAIN QUERY PLAN ${s.sql}`).all(...bind) as { id: number; parent: number; detail: string }[];
    const depth = new Map<number, number>([[0, -1]]);
    return rows
      .map((r) => {
        const d = (depth.get(r.parent) ?? -1) + 1;
        depth.set(r.id, d);
        return `${"  ".repeat(d)}${r.detail}`;
      })
      .join("\n");
  } catch (e) {
    return `(not explained: ${e instanceof Error ? e.message : String(e)})`;
  } finally {
    db.close();
  }
}

/**
 * The whole-table reads in `plan`, as short phrases: SQLite `SCAN <table>` without an index
 * (`SCAN` of a subquery, `json_each`, a constant row or an INSERT's VALUES reads no table, nor
 * does the statement `sql`, when given, that takes the first rows of a table in its integer
 * key's order with no condition and nothing to sort); PostgreSQL `Seq Scan on
 * <table>` — with `seqScanRowsAbove`, only where the planner expects more rows than that (a plan
 * on real statistics, where reading a small table whole is right); without it, every one (a plan
 * under `forbidSeqScan`).
 */
export function wholeTableReads(provider: PlanTarget["provider"], plan: string, opts: { seqScanRowsAbove?: number; sql?: string } = {}): string[] {
  if (provider === "postgresql") {
    return [...plan.matchAll(/Seq Scan on (\w+)[^\n]*rows=(\d+)/g)]
      .filter((m) => opts.seqScanRowsAbove === undefined || Number(m[2]) > opts.seqScanRowsAbove)
      .map((m) => `Seq Scan on ${m[1]} (~${m[2]} rows)`);
  }
  // The first rows of a table in its key order (`ORDER BY <integer key> LIMIT n`, no condition, nothing sorted) read n rows, not the table.
  const firstRowsInKeyOrder = opts.sql !== undefined && /WHERE 1=1 ORDER BY [^()]+ LIMIT/i.test(opts.sql.replace(/\s+/g, " ")) && !/USE TEMP B-TREE/.test(plan);
  return plan
    .split("\n")
    .map((l) => l.trim())
    .filter((l) => /^SCAN /.test(l) && !/USING (COVERING )?INDEX|USING INTEGER PRIMARY KEY|CONSTANT ROW|VALUES CLAUSE|^SCAN json_each|^SCAN sub\b/.test(l))
    .filter(() => !firstRowsInKeyOrder);
}
