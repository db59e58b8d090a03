import os from "node:os";
import path from "node:path";
import fs from "node:fs";
import { describe, expect, it } from "vitest";
import { deploy } from "./migrate";
import { createPrisma } from "../lib/server/db";

describe("migrations", () => {
  it("migrate an empty database, record themselves, and leave a working client", async () => {
    const file = path.join(os.tmpdir(), `plandesk-migrate-${process.pid}-${Date.now()}.db`);
    try {
      const applied = await deploy(`file:${file}`);
      expect(applied.length).toBeGreaterThan(0);
      expect(await deploy(`file:${file}`)).toEqual([]); // second run: nothing pending

      const db = createPrisma(`file:${file}`);
      const rows = await db.$queryRawUnsafe<{ migration_name: string; finished_at: string | null }[]>(
        "SELECT migration_name, finished_at FROM _prisma_migrations",
      );
      expect(rows.map((r) => r.migration_name)).toEqual(applied);
      expect(rows.every((r) => r.finished_at)).toBe(true);
      await db.customerAccount.create({ data: { id: "acc_x", name: "X" } });
      await db.ticket.create({ data: { id: "1", accountId: "acc_x", subject: "s" } });
      expect(await db.ticket.findMany({ include: { account: true } })).toMatchObject([{ id: "1", account: { name: "X" } }]);
      await db.$disconnect();
    } finally {
      for (const s of ["", "-wal", "-shm"]) fs.rmSync(file + s, { force: true });
    }
  });

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
