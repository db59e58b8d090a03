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
