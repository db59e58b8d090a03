import { beforeAll, describe, expect, it } from "vitest";
import { prisma } from "../db/db";
import { prepareTestDatabase, TEST_NOW } from "@/testing/test-support";
import { findNextRun } from "./next-run";

const NOW = new Date(TEST_NOW.getTime() + 60_000);

beforeAll(async () => {
  await prepareTestDatabase(TEST_NOW);
});

describe("findNextRun (approve & next, issue #16)", () => {
  it("walks every waiting run once, soonest deadline first, then wraps to the first", async () => {
    const waiting = await prisma.run.count({ where: { status: "pending_review", expiresAt: { gt: NOW } } });
    expect(waiting).toBeGreaterThan(3);
    const start = await prisma.run.findFirstOrThrow({ where: { status: "pending_review", expiresAt: { gt: NOW } }, orderBy: [{ expiresAt: "asc" }, { id: "asc" }] });
    const seen = [start.id];
    let deadlines = [start.expiresAt.toISOString()];
    for (let i = 0; i < waiting; i++) {
      const next = await findNextRun(seen.at(-1)!, {}, NOW);
      expect(next).not.toBeNull();
      if (next!.id === start.id) break;
      seen.push(next!.id);
      deadlines = [...deadlines, next!.expiresAt];
    }
    expect(new Set(seen).size).toBe(waiting);
    expect([...deadlines].sort()).toEqual(deadlines);
    expect((await findNextRun(seen.at(-1)!, {}, NOW))!.id).toBe(start.id); // wraps around
  });

  it("skips runs that are not waiting: decided, or past their deadline", async () => {
    const runs = await prisma.run.findMany({ where: { status: "pending_review", expiresAt: { gt: NOW } }, orderBy: [{ expiresAt: "asc" }, { id: "asc" }], take: 3 });
    const later = new Date(runs[1].expiresAt.getTime() + 1);
    const next = await findNextRun(runs[0].id, {}, later); // runs[1] has expired by then
    expect(next!.id).not.toBe(runs[1].id);
    expect(new Date(next!.expiresAt).getTime()).toBeGreaterThan(later.getTime());
    const other = await prisma.run.findFirstOrThrow({ where: { status: { not: "pending_review" } } });
    const fromDecided = await findNextRun(other.id, {}, NOW);
    expect(fromDecided).not.toBeNull(); // a decided run still has a next waiting one
    expect(fromDecided!.id).not.toBe(other.id);
  });

  it("stays within the viewer's desk and hides runs of another desk", async () => {
    const run = await prisma.run.findFirstOrThrow({ where: { status: "pending_review" } });
    await expect(findNextRun(run.id, { desk: "no-such-desk" }, NOW)).rejects.toMatchObject({ code: "not_found" });
    const next = await findNextRun(run.id, { desk: run.desk }, NOW);
    const nextRow = await prisma.run.findUniqueOrThrow({ where: { id: next!.id } });
    expect(nextRow.desk).toBe(run.desk);
  });

  it("says null when no other run waits", async () => {
    const run = await prisma.run.findFirstOrThrow({ where: { status: "pending_review" } });
    const farFuture = new Date(TEST_NOW.getTime() + 365 * 24 * 3600_000);
    expect(await findNextRun(run.id, {}, farFuture)).toBeNull();
  });
});
