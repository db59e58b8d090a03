import os from "node:os";
import path from "node:path";
import fs from "node:fs";
import { describe, expect, it } from "vitest";
import { datamodelFor, deploy, diffSql, migrationDirs, MIGRATIONS } from "./migrate";
import { postgresVariant } from "./prisma-schemas.mjs";
import { createPrisma } from "../lib/server/db/db";
import { resolveDatabaseUrl } from "../lib/server/db/database-url";
import { dropPgTestDatabase, freshTestDatabaseUrl, recreatePgTestDatabase } from "../testing/test-databases";

const ROOT = path.resolve(__dirname, "..");
const SCHEMA = fs.readFileSync(path.join(ROOT, "prisma", "schema.prisma"), "utf8");

/** This run's dialect (PLANDESK_TEST_DB): a fresh, empty database URL and how to remove it. */
async function emptyDatabase(): Promise<{ url: string; remove: () => Promise<void> }> {
  const url = freshTestDatabaseUrl();
  const { provider, file } = resolveDatabaseUrl({ DATABASE_URL: url });
  if (provider === "postgresql") {
    await recreatePgTestDatabase(url);
    return { url, remove: () => dropPgTestDatabase(url) };
  }
  return { url, remove: async () => void ["", "-wal", "-shm"].forEach((s) => fs.rmSync(file! + s, { force: true })) };
}

describe("migrations", () => {
  it("migrate an empty database of this run's dialect, record themselves, and leave a working client", async () => {
    const { url, remove } = await emptyDatabase();
    const dialect = resolveDatabaseUrl({ DATABASE_URL: url }).provider;
    try {
      const applied = await deploy(url);
      expect(applied).toEqual(migrationDirs(dialect));
      expect(await deploy(url)).toEqual([]); // second run: nothing pending

      const db = createPrisma(url, { poolMax: 2 });
      const rows = await db.$queryRawUnsafe<{ migration_name: string; finished_at: string | null }[]>(
        'SELECT migration_name, finished_at FROM "_prisma_migrations" ORDER BY migration_name',
      );
      expect(rows.map((r) => r.migration_name)).toEqual(applied);
      expect(rows.every((r) => r.finished_at)).toBe(true);
      await db.customerAccount.create({ data: { desk: "freight", id: "acc_x", name: "X" } });
      await db.ticket.create({ data: { desk: "freight", id: "1", accountId: "acc_x", subject: "s" } });
      expect(await db.ticket.findMany({ include: { account: true } })).toMatchObject([{ id: "1", account: { name: "X" } }]);
      await db.invoice.create({ data: { desk: "freight", id: "in_1", accountId: "acc_x", status: "open", currency: "USD", totalMinor: 2_147_483_647, openMinor: 0, fees: [{ code: "X", amount: { minor: 1, currency: "USD" } }], dueDate: "2026-04-01" } });
      expect((await db.invoice.findUniqueOrThrow({ where: { desk_id: { desk: "freight", id: "in_1" } } })).fees).toEqual([{ code: "X", amount: { minor: 1, currency: "USD" } }]);
      await db.$disconnect();
    } finally {
      await remove();
    }
  }, 120_000);

  it("say which data directory is unusable and why", async () => {
    const blocker = path.join(os.tmpdir(), `plandesk-blocker-${process.pid}`);
    fs.writeFileSync(blocker, "a file, not a directory");
    try {
      await expect(deploy(`file:${blocker}/sub/plandesk.db`)).rejects.toThrow(/data directory .*plandesk-blocker.* is not writable/);
    } finally {
      fs.rmSync(blocker, { force: true });
    }
  });
});

describe("one schema, a migration history per dialect", () => {
  it("both histories name the same migrations, with the same schema snapshots", () => {
    const sqlite = migrationDirs("sqlite");
    expect(migrationDirs("postgresql")).toEqual(sqlite);
    for (const name of sqlite) {
      expect(fs.readFileSync(path.join(MIGRATIONS.postgresql, name, "schema.prisma"), "utf8"), name).toBe(fs.readFileSync(path.join(MIGRATIONS.sqlite, name, "schema.prisma"), "utf8"));
    }
    expect(fs.readFileSync(path.join(MIGRATIONS.postgresql, "migration_lock.toml"), "utf8")).toMatch(/provider = "postgresql"/);
  });

  it("the last snapshot of each dialect is prisma/schema.prisma: no schema change lacks its migrations", async () => {
    for (const dialect of ["sqlite", "postgresql"] as const) {
      const last = migrationDirs(dialect).at(-1)!;
      const snapshot = fs.readFileSync(path.join(MIGRATIONS[dialect], last, "schema.prisma"), "utf8");
      expect(await diffSql(dialect, snapshot, SCHEMA), `${dialect}: run npm run db:migration -- <name>`).toBe("");
    }
  }, 60_000);

  it("a schema change diffs into each dialect's own SQL, without a database", async () => {
    const changed = SCHEMA.replace(/model Holiday \{/, "model Depot {\n  id    String @id\n  name  String\n  opens DateTime\n}\n\nmodel Holiday {");
    const sqlite = await diffSql("sqlite", SCHEMA, changed);
    const pg = await diffSql("postgresql", SCHEMA, changed);
    expect(sqlite).toMatch(/CREATE TABLE "Depot"/);
    expect(pg).toMatch(/CREATE TABLE "Depot"/);
    expect(pg).toMatch(/TIMESTAMP\(3\)/);
    expect(sqlite).not.toMatch(/TIMESTAMP\(3\)/);
  }, 60_000);

  it("the PostgreSQL client's schema is the source schema with the provider, the output and json columns changed", () => {
    const pg = postgresVariant(SCHEMA);
    expect(pg).toContain('provider = "postgresql"');
    expect(pg).toContain('output       = "../../lib/generated/prisma-pg"');
    // Every Json field is stored as json (text kept as written, key order included), as on SQLite.
    expect(pg.match(/ Json\?? @db\.Json/g)?.length).toBe(SCHEMA.match(/^\s+\w+\s+Json\??/gm)?.length);
    const back = datamodelFor(pg, "sqlite").replace(/^\/\/ GENERATED.*\n/, "").replace("../../lib/generated/prisma-pg", "../lib/generated/prisma").replace(/ @db\.Json/g, "");
    expect(back).toBe(SCHEMA);
    expect(datamodelFor(SCHEMA, "postgresql")).toBe(pg.replace(/^\/\/ GENERATED.*\n/, "").replace("../../lib/generated/prisma-pg", "../lib/generated/prisma"));
  });

  it("per_desk_record_ids keeps the data: each ticket, invoice and shipment takes its account's desk, each task its ticket's", async () => {
    const { url, remove } = await emptyDatabase();
    const before = migrationDirs(resolveDatabaseUrl({ DATABASE_URL: url }).provider).filter((d) => d < "20261205174916_per_desk_record_ids").at(-1)!;
    try {
      await deploy(url, { through: before });
      const old = createPrisma(url, { poolMax: 2 });
      // rows as the release before the migration stored them (global ids, no desk on ticket, task, invoice or shipment)
      for (const sql of [
        `INSERT INTO "customer_account" ("id", "name", "desk") VALUES ('acc_f', 'Freight AS', 'freight'), ('acc_r', 'Retail Ltd', 'retail')`,
        `INSERT INTO "ticket" ("id", "accountId", "subject") VALUES ('1001', 'acc_f', 'Freight ticket'), ('1002', 'acc_r', 'Retail ticket')`,
        `INSERT INTO "task" ("id", "ticketId", "body", "updatedAt") VALUES ('task_1001', '1001', 'f', CURRENT_TIMESTAMP), ('task_1002', '1002', 'r', CURRENT_TIMESTAMP)`,
        `INSERT INTO "invoice" ("id", "accountId", "status", "currency", "totalMinor", "openMinor", "fees", "dueDate") VALUES ('in_f', 'acc_f', 'open', 'USD', 100, 50, '[]', '2026-04-01'), ('in_r', 'acc_r', 'open', 'USD', 7, 7, '[]', '2026-04-01')`,
        `INSERT INTO "shipment" ("id", "accountId", "destination", "windowFrom", "windowTo", "status", "address") VALUES ('sh_r', 'acc_r', 'NO-OSL', '2026-04-01', '2026-04-02', 'scheduled', 'Dock 1')`,
      ]) {
        await old.$executeRawUnsafe(sql);
      }
      await old.$disconnect(); // the SQLite file unlocked for the table rebuilds
      expect(await deploy(url)).toContain("20261205174916_per_desk_record_ids");
      const db = createPrisma(url, { poolMax: 2 });
      expect(await db.ticket.findMany({ select: { desk: true, id: true, accountId: true }, orderBy: { id: "asc" } })).toEqual([
        { desk: "freight", id: "1001", accountId: "acc_f" },
        { desk: "retail", id: "1002", accountId: "acc_r" },
      ]);
      expect(await db.task.findMany({ select: { id: true, desk: true, ticketId: true }, orderBy: { id: "asc" } })).toEqual([
        { id: "task_1001", desk: "freight", ticketId: "1001" },
        { id: "task_1002", desk: "retail", ticketId: "1002" },
      ]);
      expect(await db.invoice.findMany({ select: { desk: true, id: true, openMinor: true }, orderBy: { id: "asc" } })).toEqual([
        { desk: "freight", id: "in_f", openMinor: 50 },
        { desk: "retail", id: "in_r", openMinor: 7 },
      ]);
      expect(await db.shipment.findUniqueOrThrow({ where: { desk_id: { desk: "retail", id: "sh_r" } }, select: { account: { select: { name: true } } } })).toEqual({ account: { name: "Retail Ltd" } });
      // and now the same ids live on both desks
      await db.customerAccount.create({ data: { desk: "freight", id: "acc_r", name: "Freight's own acc_r" } });
      await db.ticket.create({ data: { desk: "freight", id: "1002", accountId: "acc_r", subject: "Freight's own 1002" } });
      await db.invoice.create({ data: { desk: "freight", id: "in_r", accountId: "acc_r", status: "open", currency: "USD", totalMinor: 9, openMinor: 9, fees: [], dueDate: "2026-04-01" } });
      expect(await db.invoice.count({ where: { id: "in_r" } })).toBe(2);
      await db.$disconnect();
    } finally {
      await remove();
    }
  }, 120_000);

  it("holiday_per_desk_ids keeps the data: a desk's holiday stays its own, the shared calendar's (desk null) becomes every desk's", async () => {
    const { url, remove } = await emptyDatabase();
    const before = migrationDirs(resolveDatabaseUrl({ DATABASE_URL: url }).provider).filter((d) => d < "20261205221422_holiday_per_desk_ids").at(-1)!;
    try {
      await deploy(url, { through: before });
      const old = createPrisma(url, { poolMax: 2 });
      // rows as the release before the migration stored them (global holiday ids, desk null = every desk's calendar)
      for (const sql of [
        `INSERT INTO "desk" ("id", "name") VALUES ('retail', 'Retail')`, // 'freight' is a desk row since the desks migration
        `INSERT INTO "holiday" ("id", "destination", "date", "name", "desk", "sourceVersion") VALUES ('hol_f', 'NO-OSL', '2026-05-17', 'Constitution Day', 'freight', 3), ('hol_r', 'SE-GOT', '2026-06-06', 'National Day', 'retail', 1)`,
        `INSERT INTO "holiday" ("id", "destination", "date", "name") VALUES ('hol_shared', 'DE-HAM', '2026-10-03', 'Unity Day')`,
      ]) {
        await old.$executeRawUnsafe(sql);
      }
      await old.$disconnect(); // the SQLite file unlocked for the table rebuild
      expect(await deploy(url)).toContain("20261205221422_holiday_per_desk_ids");
      const db = createPrisma(url, { poolMax: 2 });
      expect(await db.holiday.findMany({ select: { desk: true, id: true, destination: true, date: true, sourceVersion: true }, orderBy: [{ id: "asc" }, { desk: "asc" }] })).toEqual([
        { desk: "freight", id: "hol_f", destination: "NO-OSL", date: "2026-05-17", sourceVersion: 3n },
        { desk: "retail", id: "hol_r", destination: "SE-GOT", date: "2026-06-06", sourceVersion: 1n },
        { desk: "freight", id: "hol_shared", destination: "DE-HAM", date: "2026-10-03", sourceVersion: null },
        { desk: "retail", id: "hol_shared", destination: "DE-HAM", date: "2026-10-03", sourceVersion: null },
      ]);
      // and now one holiday id lives on both desks, each with its own date
      await db.holiday.create({ data: { desk: "retail", id: "hol_f", destination: "NO-OSL", date: "2026-05-18", name: "Retail's own hol_f" } });
      expect(await db.holiday.findUniqueOrThrow({ where: { desk_id: { desk: "freight", id: "hol_f" } }, select: { date: true } })).toEqual({ date: "2026-05-17" });
      expect(await db.holiday.count({ where: { id: "hol_f" } })).toBe(2);
      await db.$disconnect();
    } finally {
      await remove();
    }
  }, 120_000);

  it("a JSON column reads back with its keys in the order written", async () => {
    const { url, remove } = await emptyDatabase();
    try {
      await deploy(url);
      const db = createPrisma(url, { poolMax: 2 });
      const body = { zeta: 1, alpha: { b: 2, a: 1 }, mid: [{ y: 1, x: 2 }] };
      await db.idempotencyRecord.create({ data: { id: "r1", scope: "s", key: "k", status: 200, body } });
      const row = await db.idempotencyRecord.findUniqueOrThrow({ where: { id: "r1" } });
      expect(JSON.stringify(row.body)).toBe(JSON.stringify(body));
      await db.$disconnect();
    } finally {
      await remove();
    }
  }, 120_000);
});
