/**
 * How each kind of transaction keeps its decision (docs/design.md "Transactions and locks"): on
 * PostgreSQL a row-lock transaction runs READ COMMITTED and every other one SERIALIZABLE, even on
 * a database whose default is serializable (every connection sets its own default when it opens,
 * lib/server/db/create-prisma.ts `PG_SESSION_DEFAULTS`); on SQLite one writer runs at a time, so two
 * read-then-write transactions at once never lose an update.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { prepareTestDatabase } from "../../../testing/test-support";
import { resolveDatabaseUrl } from "./database-url";
import { createPrisma, prisma } from "./db";
import { inTransaction, ok, type Isolation } from "./transaction";

const { provider, url } = resolveDatabaseUrl();

beforeAll(async () => {
  await prepareTestDatabase(undefined, { seed: false });
});

describe("isolation of the two kinds of transaction", () => {
  it(provider === "postgresql" ? "PostgreSQL: row locks run READ COMMITTED, the rest SERIALIZABLE, whatever the database's default" : "SQLite: two read-then-write transactions at once, of either kind, lose no update", async () => {
    if (provider === "postgresql") {
      const name = new URL(url).pathname.slice(1);
      await prisma.$executeRawUnsafe(`ALTER DATABASE "${name}" SET default_transaction_isolation = 'serializable'`);
      const db = createPrisma(url, { poolMax: 2 }); // new connections, which get the database's new default
      try {
        const level = (isolation: Isolation) =>
          inTransaction(async (tx) => ok(((await tx.$queryRawUnsafe(`SHOW transaction_isolation`)) as { transaction_isolation: string }[])[0].transaction_isolation), db, { isolation });
        expect(await level("row-locks")).toBe("read committed");
        expect(await level("serializable")).toBe("serializable");
        // outside a transaction a statement runs at the connection's default, READ COMMITTED
        expect(((await db.$queryRawUnsafe(`SHOW transaction_isolation`)) as { transaction_isolation: string }[])[0].transaction_isolation).toBe("read committed");
      } finally {
        await db.$disconnect();
      }
      return;
    }
    await prisma.$executeRawUnsafe(`CREATE TABLE "isolation_probe" ("id" INTEGER PRIMARY KEY, "n" INTEGER NOT NULL)`);
    await prisma.$executeRawUnsafe(`INSERT INTO "isolation_probe" ("id", "n") VALUES (1, 0)`);
    const increment = (isolation: Isolation) =>
      inTransaction(
        async (tx) => {
          const [{ n }] = (await tx.$queryRawUnsafe(`SELECT "n" FROM "isolation_probe" WHERE "id" = 1`)) as { n: number | bigint }[];
          await new Promise((r) => setTimeout(r, 5)); // the other transaction has every chance to read meanwhile
          await tx.$executeRawUnsafe(`UPDATE "isolation_probe" SET "n" = ${Number(n) + 1} WHERE "id" = 1`);
          return ok(null);
        },
        prisma,
        { isolation },
      );
    await Promise.all([...Array.from({ length: 4 }, () => increment("row-locks")), ...Array.from({ length: 4 }, () => increment("serializable"))]);
    const [{ n }] = (await prisma.$queryRawUnsafe(`SELECT "n" FROM "isolation_probe" WHERE "id" = 1`)) as { n: number | bigint }[];
    expect(Number(n)).toBe(8);
  });
});
