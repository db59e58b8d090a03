/**
 * The queue's `accountId` filter is a literal, case-sensitive prefix on both databases: LIKE
 * wildcards typed by a person match only themselves.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { prisma } from "../db/db";
import { prepareTestDatabase } from "../../../testing/test-support";
import { queueFilterWhere } from "./queue-filters";

const count = (accountId: string) => prisma.run.count({ where: queueFilterWhere({ accountId }, undefined, new Date()) });

beforeAll(async () => {
  await prepareTestDatabase();
});

describe("the queue's accountId filter", () => {
  it("% and _ are characters, not wildcards: they match no run of the desk", async () => {
    expect(await prisma.run.count()).toBeGreaterThan(5);
    for (const p of ["%", "_", "%%", "acc%", "acc_%", "\\"]) expect(await count(p), p).toBe(0);
  });

  it("a prefix matches exactly the accounts that start with it, case-sensitively on both databases", async () => {
    const fjord = await prisma.run.count({ where: { accountId: "acc_fjord" } });
    expect(fjord).toBeGreaterThan(0);
    expect(await count("acc_fjord")).toBe(fjord);
    expect(await count("acc_fj")).toBe(fjord);
    expect(await count("ACC_FJORD")).toBe(0);
    expect(await count("acc_")).toBe(await prisma.run.count({ where: { accountId: { gte: "acc_", lt: "acc`" } } }));
    expect(await count("accXfjord")).toBe(0);
  });
});
