import type { RecordInput } from "../../records/record-kinds";
import { applyRecords } from "../records/apply-records";
import { atStakeFacts, runStepRows, type RunStepRow } from "../plans/write-run-steps";
import type { Step } from "../../plan/schema";
import { builtinTools } from "../../tools/builtin-tools";
import {
  scaleAccount,
  scaleInvoice,
  scaleNoiseEvent,
  scaleRun,
  scaleRunCreatedAt,
  SCALE_DESKS,
  SCALE_DESTINATIONS,
  scaleShipment,
  scaleSizes,
  scaleTicket,
  scaleUser,
  type ScaleAudit,
  type ScaleContext,
  type ScaleRunRows,
  type ScaleSizes,
} from "../../demo/scale-desk";
import Database from "better-sqlite3";
import { resolveDatabaseUrl } from "../db/database-url";
import { insertRows, jsonText } from "../db/insert-rows";
import { prisma as defaultPrisma, type PrismaClient } from "../db/db";
import { DEMO_AGENT_ID, DEMO_INTEGRATION_ID } from "./seed";
import { openTask } from "../tasks/open-task";
import { isDomainError } from "../../errors/domain-error";

/** Progress of one table: rows written so far of `total`, milliseconds since the seed began. */
export type ScaleProgress = (table: string, done: number, total: number, elapsedMs: number) => void;

/** What `seedScaleDesk` wrote (rows per table) and how long it took, or that the desk was already there. */
export interface ScaleSeedReport {
  skipped: boolean;
  counts: Record<string, number>;
  ms: number;
}

/** Rows of one batch: records per door call, audit events per transaction (ROWS_PER_INSERT × INSERTS_PER_TX). */
const ROWS_PER_INSERT = 1000;
const INSERTS_PER_TX = 5;

/** Records per round of the scale desk's door loads (each desk's share applied in chunks of the door's own size). */
const DOOR_CHUNK = 5000;

/** Tickets the scale seed opens at a time through the ticketing door on PostgreSQL (its pool holds 10 connections). */
const TICKET_DOOR_CONCURRENCY = 8;
/** Attempts of one ticket at the door when it answers `busy` (a loaded database), before the seed gives up. */
const DOOR_BUSY_ATTEMPTS = 8;

/** A group of rows for `BulkWriter.write`: the SQL table name and the rows. */
function ins<T extends object>(table: string, rows: T[]): Insert {
  return { table, rows: rows as unknown as Record<string, unknown>[] };
}

/** A table's rows to insert: the SQL table name and rows of column values (a JSON column's value as its object). */
type Insert = { table: string; rows: Record<string, unknown>[] };

/**
 * Inserts groups of rows, each group in one transaction. On PostgreSQL (and wherever the fast path
 * is off) through `insertRows` (multi-row `INSERT … VALUES` through `$executeRaw`) in the one
 * Prisma client — the portable path. Not `createMany`: Prisma 7's client keeps heap it never
 * gives back for every `createMany` on PostgreSQL (measured: ~2.5 MB per 1,000 rows after a full
 * GC, against none for the raw insert), so the scale desk's ~1.5 million rows exhausted a 4 GB
 * heap. On SQLite through one better-sqlite3 connection with a prepared INSERT per table, written
 * in the formats Prisma's SQLite adapter uses (DateTime as ISO text with "+00:00", Boolean as 0/1,
 * Json as its JSON text): about twenty times faster for the million rows of the scale desk. Rows
 * give every column they mean to set (createdAt included: the database defaults are not Prisma's
 * format); a column one row of a group gives and another does not is NULL in the other.
 */
class BulkWriter {
  private sqlite: Database.Database | null = null;
  private statements = new Map<string, Database.Statement>();

  constructor(
    fast: boolean,
    url: string,
    private readonly db: PrismaClient,
  ) {
    const { provider, file } = resolveDatabaseUrl({ DATABASE_URL: url });
    if (fast && provider === "sqlite" && file) {
      this.sqlite = new Database(file);
      this.sqlite.pragma("busy_timeout = 15000");
    }
  }

  /** Inserts every group's rows in ONE transaction. */
  async write(groups: Insert[]): Promise<void> {
    if (!this.sqlite) {
      if (groups.every((g) => g.rows.length === 0)) return;
      // A bulk load, not a request: a batch of thousands of rows may take longer than Prisma's
      // default 5 s transaction timeout on a busy PostgreSQL (it expired mid-way at full scale).
      await this.db.$transaction(
        async (tx) => {
          for (const g of groups) {
            if (g.rows.length === 0) continue;
            const cols = [...new Set(g.rows.flatMap((r) => Object.keys(r)))];
            await insertRows(tx, g.table, cols, g.rows.map((r) => Object.fromEntries(cols.map((c) => [c, rowValue(r[c])]))));
          }
        },
        { maxWait: 30_000, timeout: 300_000 },
      );
      return;
    }
    const db = this.sqlite;
    db.transaction(() => {
      for (const g of groups) {
        if (g.rows.length === 0) continue;
        const cols = [...new Set(g.rows.flatMap((r) => Object.keys(r)))];
        const key = `${g.table}:${cols.join(",")}`;
        let stmt = this.statements.get(key);
        if (!stmt) {
          stmt = db.prepare(`INSERT INTO "${g.table}" (${cols.map((c) => `"${c}"`).join(", ")}) VALUES (${cols.map(() => "?").join(", ")})`);
          this.statements.set(key, stmt);
        }
        for (const row of g.rows) stmt.run(cols.map((c) => sqliteValue(row[c])));
      }
    }).immediate();
  }

  close() {
    this.sqlite?.close();
  }
}

/** A value as `insertRows` binds it: a JSON column's object (or array) as its JSON text, anything else as it is. */
function rowValue(v: unknown): unknown {
  return v !== null && typeof v === "object" && !(v instanceof Date) ? jsonText(v) : v;
}

/** A value as Prisma's SQLite adapter stores it. */
function sqliteValue(v: unknown): unknown {
  if (v === undefined || v === null) return null;
  if (v instanceof Date) return v.toISOString().replace("Z", "+00:00");
  if (typeof v === "boolean") return v ? 1 : 0;
  if (typeof v === "object") return JSON.stringify(v);
  return v;
}

/**
 * Adds the desk of real size (lib/demo/scale-desk.ts) on top of the demo desk
 * (which must be seeded first: its agent, users and holidays are used). Deterministic for
 * (`seed`, `now`). Account data comes in through the records door (`applyRecords`) and tickets
 * through the ticketing door (`openTask`), as every team's do; the generated runs, users and
 * audit history are only inserts (plain Prisma `createMany` in batches inside transactions, the
 * same on SQLite and PostgreSQL; the audit log stays append-only). The generated audit events are
 * inserted in time order, so their `seq` follows `createdAt` as it does in a live desk; the doors'
 * own event (`task_opened`) carries the time it was written. Idempotent: when the first scale
 * account exists, nothing is written (`skipped`). `factor` scales every size (1 = 10,000 accounts,
 * 100,000 tickets, 200,000 invoices and shipments, 20,000 runs, ~1,000,000 audit events).
 * `portable` forces the portable path (`insertRows`) on SQLite too (see `BulkWriter`). `db` and `url`
 * (default: the process-wide client and DATABASE_URL) name another database, e.g. in tests.
 */
export async function seedScaleDesk(
  opts: { now?: Date; seed?: number; factor?: number; sizes?: ScaleSizes; onProgress?: ScaleProgress; portable?: boolean; db?: PrismaClient; url?: string } = {},
): Promise<ScaleSeedReport> {
  const prisma = opts.db ?? defaultPrisma;
  const started = Date.now();
  const now = opts.now ?? new Date();
  const seed = opts.seed ?? 11;
  const sizes = opts.sizes ?? scaleSizes(opts.factor ?? 1);
  const progress = opts.onProgress ?? (() => {});
  const elapsed = () => Date.now() - started;
  const first = scaleAccount(seed, 0);
  if (await prisma.customerAccount.findUnique({ where: { desk_id: { desk: first.desk, id: first.id } }, select: { id: true } })) {
    return { skipped: true, counts: {}, ms: elapsed() };
  }
  if (!(await prisma.agent.findUnique({ where: { id: DEMO_AGENT_ID }, select: { id: true } }))) {
    throw new Error("The scale desk goes on top of the demo desk: seed the demo desk first (PLANDESK_DEMO must not be 0).");
  }
  const counts: Record<string, number> = {};
  const holidays: Record<string, string[]> = {};
  // Only the destinations the scale desk ships to, bounded (a few years of holidays each).
  const rows = await prisma.holiday.findMany({ where: { desk: "freight", destination: { in: [...SCALE_DESTINATIONS] } }, select: { destination: true, date: true }, take: 20_000 });
  for (const h of rows) (holidays[h.destination] ??= []).push(h.date);
  const ctx: ScaleContext = { seed, sizes, now, holidays, agentId: DEMO_AGENT_ID };
  const writer = new BulkWriter(!opts.portable, opts.url ?? resolveDatabaseUrl().url, prisma);
  try {
    return await fillAll();
  } finally {
    writer.close();
  }

  async function fillAll(): Promise<ScaleSeedReport> {

  /**
   * Sends `total` generated records through the records door (applyRecords, what
   * `POST /api/v1/records/batch` applies) in chunks, each desk's records for that desk; `make(i)`
   * builds record i. Errors: throws naming the first record the door refused (a bug of the generator).
   */
  async function viaDoor(table: string, total: number, make: (i: number) => { desk: string; record: RecordInput }) {
    for (let done = 0; done < total; ) {
      const byDesk = new Map<string, RecordInput[]>();
      const n = Math.min(DOOR_CHUNK, total - done);
      for (let i = done; i < done + n; i++) {
        const { desk, record } = make(i);
        (byDesk.get(desk) ?? byDesk.set(desk, []).get(desk)!).push(record);
      }
      for (const [desk, records] of byDesk) {
        const outcomes = await applyRecords(desk, records, { db: prisma, now });
        const refused = outcomes.findIndex((o) => !o.ok);
        if (refused >= 0) throw new Error(`scale seed: the records door refused ${records[refused].kind} ${records[refused].id}: ${JSON.stringify(outcomes[refused])}`);
      }
      done += n;
      progress(table, done, total, elapsed());
    }
    counts[table] = (counts[table] ?? 0) + total;
  }

  /**
   * Opens `total` generated tickets' tasks through the ticketing door (`openTask`, what
   * `POST /api/v1/tasks` applies, as the demo integration), each on its account's desk and stamped
   * with the ticket's time. PostgreSQL opens `TICKET_DOOR_CONCURRENCY` at a time (one transaction
   * each, as concurrent integration calls would); SQLite one at a time (its writes queue anyway).
   * Errors: throws naming the first ticket the door refused (a bug of the generator).
   */
  async function viaTicketDoor(total: number, make: (k: number) => ReturnType<typeof scaleTicket>) {
    const integration = { kind: "integration" as const, id: DEMO_INTEGRATION_ID };
    const lanes = resolveDatabaseUrl({ DATABASE_URL: opts.url ?? resolveDatabaseUrl().url }).provider === "postgresql" ? TICKET_DOOR_CONCURRENCY : 1;
    let next = 0;
    let done = 0;
    const lane = async () => {
      for (let k = next++; k < total; k = next++) {
        const t = make(k);
        const desk = scaleAccount(seed, t.accountIndex).desk;
        // A `busy` answer (the door's transactions kept losing to the other lanes' on a loaded
        // database; nothing was saved) is sent again after a growing pause, as an integration
        // would on a 503; anything else is a refusal and stops the seed.
        for (let attempt = 1; ; attempt++) {
          try {
            await openTask({ ticketId: t.id, accountId: t.accountId, subject: t.subject, parts: [{ source: "system", text: t.body }] }, integration, { desk, at: t.createdAt }, prisma);
            break;
          } catch (e) {
            if (isDomainError(e) && e.code === "busy" && attempt < DOOR_BUSY_ATTEMPTS) {
              await new Promise((r) => setTimeout(r, attempt * 200 * (0.5 + Math.random())));
              continue;
            }
            throw new Error(`scale seed: the ticketing door refused ticket ${t.id} on ${desk}: ${(e as Error).message}`);
          }
        }
        if (++done % DOOR_CHUNK === 0 || done === total) progress("tickets", done, total, elapsed());
      }
    };
    await Promise.all(Array.from({ length: lanes }, lane));
    counts.tickets = (counts.tickets ?? 0) + total;
  }

  /** Inserts `total` generated rows of one table in batches; `make(i)` builds row i. */
  async function fill<T>(table: string, total: number, make: (i: number) => T, insert: (rows: T[]) => Insert[]) {
    let done = 0;
    while (done < total) {
      const rows: T[] = [];
      for (let r = 0; r < ROWS_PER_INSERT * INSERTS_PER_TX && done + rows.length < total; r++) rows.push(make(done + rows.length));
      await writer.write(insert(rows));
      done += rows.length;
      progress(table, done, total, elapsed());
    }
    counts[table] = (counts[table] ?? 0) + total;
  }

  // Every desk the scale accounts belong to is a desk row (admins list and assign them).
  for (const id of new Set(SCALE_DESKS)) await prisma.desk.upsert({ where: { id }, create: { id, name: id.charAt(0).toUpperCase() + id.slice(1) }, update: {} });
  // Each scale desk gets its own copy of the ports' calendars (holidays are per desk, under the same ids), through the door.
  const calendar = await prisma.holiday.findMany({ where: { desk: "freight", destination: { in: [...SCALE_DESTINATIONS] }, deletedAt: null }, select: { destination: true, date: true, name: true }, take: 20_000 });
  for (const desk of new Set(SCALE_DESKS)) {
    if (desk === "freight") continue;
    const records: RecordInput[] = calendar.map((h) => ({ op: "put", kind: "holiday", id: `hol_${h.destination}_${h.date}`, sourceVersion: 1, sourceUpdatedAt: now, fields: h }));
    await applyRecords(desk, records, { db: prisma, now });
  }
  // Account data through the records door (as the demo desk's and every team's): version 1 of each record.
  await viaDoor("accounts", sizes.accounts, (i) => {
    const a = scaleAccount(seed, i);
    return { desk: a.desk, record: { op: "put", kind: "account", id: a.id, sourceVersion: 1, sourceUpdatedAt: now, fields: { name: a.name } } };
  });
  // Tickets through the ticketing integration's door (openTask, what POST /api/v1/tasks applies): each
  // opens its task at revision 1, stamped with the ticket's time, and audits task_opened.
  await viaTicketDoor(sizes.tickets, (k) => scaleTicket(seed, k, sizes, now));
  await viaDoor("invoices", sizes.invoices, (j) => {
    const { id, ...fields } = scaleInvoice(seed, j, sizes, now);
    return { desk: scaleAccount(seed, j % sizes.accounts).desk, record: { op: "put", kind: "invoice", id, sourceVersion: 1, sourceUpdatedAt: now, fields } };
  });
  await viaDoor("shipments", sizes.shipments, (j) => {
    const { id, ...fields } = scaleShipment(seed, j, sizes, now);
    return { desk: scaleAccount(seed, j % sizes.accounts).desk, record: { op: "put", kind: "shipment", id, sourceVersion: 1, sourceUpdatedAt: now, fields } };
  });
  await fill(
    "users",
    sizes.users,
    (u) => scaleUser(seed, u),
    (rows) => [
      ins("user", rows.map((u) => ({ ...u, emailVerified: true, disabled: false, createdAt: now, updatedAt: now }))),
      ins(
        "grant",
        rows.flatMap((u) =>
          builtinTools().map(({ name: tool, grantClass }) => ({
            id: `${u.id}_${tool}`,
            userId: u.id,
            tool,
            canApprove: true,
            approveLimitMinor: grantClass === "money" ? 50_000 : null,
            approveLimitCurrency: grantClass === "money" ? "USD" : null,
            canAuthor: grantClass !== "money",
          })),
        ),
      ),
    ],
  );

  // Runs in submission order, with their histories; audit events (theirs and the refusal noise)
  // are held back until no later event can precede them, then inserted in time order.
  const pending: ScaleAudit[] = [];
  let runsDone = 0;
  let eventsWritten = 0;
  const runBatch: ScaleRunRows[] = [];
  // The runs' own events first decide how much noise fills the log up to the target.
  const ownEstimate = Math.round(sizes.runs * 7); // a run writes about 7 events (measured over the generator)
  // Every ticket opened through the door wrote its task_opened event too.
  const noiseTotal = Math.max(0, sizes.auditEvents - ownEstimate - sizes.tickets);
  let noiseNext = 0;
  const noiseTime = (n: number) => now.getTime() - 61 * 86_400_000 + (n / Math.max(1, noiseTotal)) * 61 * 86_400_000;

  async function flushEvents(before: number) {
    pending.sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime() || (a.id < b.id ? -1 : 1));
    let cut = 0;
    while (cut < pending.length && pending[cut].createdAt.getTime() < before) cut++;
    const out = pending.splice(0, cut);
    for (let k = 0; k < out.length; k += ROWS_PER_INSERT * INSERTS_PER_TX) {
      const slice = out.slice(k, k + ROWS_PER_INSERT * INSERTS_PER_TX);
      await writer.write([ins("audit_event", slice)]);
      eventsWritten += slice.length;
    }
    if (out.length) progress("audit events", eventsWritten, sizes.auditEvents, elapsed());
  }

  /** The `run_step` rows of a generated run's current plan version (the same rows submit and edit write). */
  function currentRunSteps(b: ScaleRunRows): Record<string, unknown>[] {
    const run = b.run as unknown as { id: string; planVersion: number };
    const pv = b.planVersions.find((p) => p.version === run.planVersion) as { steps: Step[]; validation: { gate: Record<string, string>; issues?: { code: string; stepId?: string }[] } } | undefined;
    return pv ? (runStepRows(run.id, run.planVersion, pv.steps, pv.validation.gate, pv.validation.issues ?? []) as unknown as Record<string, unknown>[]) : [];
  }

  async function writeRuns(batch: ScaleRunRows[]) {
    if (batch.length === 0) return;
    // The run's at-stake facts come from the same rows as its run_step rows (as writeRunSteps keeps them).
    const stepRows = batch.map(currentRunSteps);
    batch.forEach((b, n) => Object.assign(b.run as object, atStakeFacts(stepRows[n] as unknown as RunStepRow[])));
    await writer.write([
      ins("run", batch.map((b) => b.run)),
      ins("plan_version", batch.flatMap((b) => b.planVersions)),
      ins("plan_edit", batch.flatMap((b) => b.planEdits)),
      ins("approval", batch.flatMap((b) => b.approvals)),
      ins("step_execution", batch.flatMap((b) => b.executions)),
      // the current plan version's steps as rows (queue filters by tool, amount, "beyond my limit")
      ins("run_step", stepRows.flat()),
    ]);
    for (const b of batch) {
      counts.runs = (counts.runs ?? 0) + 1;
      counts.planVersions = (counts.planVersions ?? 0) + b.planVersions.length;
      counts.planEdits = (counts.planEdits ?? 0) + b.planEdits.length;
      counts.approvals = (counts.approvals ?? 0) + b.approvals.length;
      counts.executions = (counts.executions ?? 0) + b.executions.length;
    }
  }

  for (let i = 0; i < sizes.runs; i++) {
    const t0 = scaleRunCreatedAt(i, sizes, now).getTime();
    while (noiseNext < noiseTotal && noiseTime(noiseNext) < t0) pending.push(scaleNoiseEvent(ctx, noiseNext++, noiseTotal));
    const rows = scaleRun(ctx, i);
    if (!rows) continue;
    pending.push(...rows.audits);
    runBatch.push(rows);
    if (runBatch.length >= 500) {
      await writeRuns(runBatch.splice(0));
      runsDone = i + 1;
      progress("runs", runsDone, sizes.runs, elapsed());
      await flushEvents(t0 - 11 * 60_000);
    }
  }
  await writeRuns(runBatch.splice(0));
  progress("runs", sizes.runs, sizes.runs, elapsed());
  while (noiseNext < noiseTotal) pending.push(scaleNoiseEvent(ctx, noiseNext++, noiseTotal));
  await flushEvents(Number.POSITIVE_INFINITY);
  counts.auditEvents = eventsWritten;
  // Fresh statistics for the query planner after a bulk load (plain ANALYZE: SQLite and PostgreSQL).
  await prisma.$executeRawUnsafe("ANALYZE");
  progress("analyze", 1, 1, elapsed());
  return { skipped: false, counts, ms: elapsed() };
}
}
