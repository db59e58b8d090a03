import { beforeAll, describe, expect, it } from "vitest";
import { prisma } from "./db";
import { prepareTestDatabase } from "../../../testing/test-support";

beforeAll(async () => {
  await prepareTestDatabase(undefined, { seed: false });
});

describe("one SQLite connection shared by concurrent requests", () => {
  it("never lets a request read another's uncommitted rows, nor lose its write to another's rollback", async () => {
    let release!: () => void;
    const hold = new Promise<void>((r) => (release = r));
    let inside!: () => void;
    const started = new Promise<void>((r) => (inside = r));
    const failing = prisma
      .$transaction(async (tx) => {
        await tx.customerAccount.create({ data: { desk: "freight", id: "acc_uncommitted", name: "Never committed" } });
        inside();
        await hold;
        throw new Error("roll back");
      })
      .catch((e: Error) => e.message);
    await started;
    // Prisma queries are lazy: `.then` sends them now, while the transaction is still open.
    const read = prisma.customerAccount.findUnique({ where: { desk_id: { desk: "freight", id: "acc_uncommitted" } } }).then((r) => r);
    const write = prisma.customerAccount.create({ data: { desk: "freight", id: "acc_outside", name: "Written outside" } }).then((r) => r);
    await new Promise((r) => setTimeout(r, 50));
    release();
    expect(await failing).toBe("roll back");
    expect(await read).toBeNull();
    await write;
    expect(await prisma.customerAccount.findUnique({ where: { desk_id: { desk: "freight", id: "acc_outside" } } })).toMatchObject({ name: "Written outside" });
    expect(await prisma.customerAccount.findUnique({ where: { desk_id: { desk: "freight", id: "acc_uncommitted" } } })).toBeNull();
  });

  it("a read outside a transaction does not wait for an open write transaction, and sees only what is committed", async () => {
    let release!: () => void;
    const hold = new Promise<void>((r) => (release = r));
    let inside!: () => void;
    const started = new Promise<void>((r) => (inside = r));
    const writer = prisma.$transaction(async (tx) => {
      await tx.customerAccount.create({ data: { desk: "freight", id: "acc_slow_writer", name: "Committed later" } });
      inside();
      await hold;
    });
    await started;
    // the transaction is still open: the read answers now, from the last committed state
    const read = await prisma.customerAccount.findUnique({ where: { desk_id: { desk: "freight", id: "acc_slow_writer" } } });
    expect(read).toBeNull();
    release();
    await writer;
    expect(await prisma.customerAccount.findUnique({ where: { desk_id: { desk: "freight", id: "acc_slow_writer" } } })).toMatchObject({ name: "Committed later" });
  });
});
