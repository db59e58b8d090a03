/**
 * The run_step backfill against this file's own database (SQLite, or PostgreSQL with
 * PLANDESK_TEST_DB=postgres): runs stored before run_step existed get their rows from the current
 * plan version, once.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { prisma } from "../db/db";
import { prepareTestDatabase } from "../../../testing/test-support";
import { backfillRunSteps } from "./backfill-run-steps";

beforeAll(async () => {
  await prepareTestDatabase();
});

describe("backfillRunSteps", () => {
  it("writes the rows of runs that have none, as the live path writes them, and a second pass finds nothing", async () => {
    const before = await prisma.runStep.findMany({ orderBy: [{ runId: "asc" }, { position: "asc" }] });
    expect(before.length).toBeGreaterThan(0);
    const runIds = [...new Set(before.map((r) => r.runId))];
    await prisma.runStep.deleteMany({}); // as a database upgraded from before run_step
    expect(await backfillRunSteps(2)).toBe(runIds.length); // in pages of two runs
    const after = await prisma.runStep.findMany({ orderBy: [{ runId: "asc" }, { position: "asc" }] });
    const shape = (rows: typeof before) => rows.map(({ id: _id, ...r }) => r);
    expect(shape(after)).toEqual(shape(before));
    expect(await backfillRunSteps()).toBe(0);
  });
});
