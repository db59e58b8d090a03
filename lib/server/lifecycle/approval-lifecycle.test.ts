/**
 * The approval lifecycle applies the table of lib/lifecycle/approval-state.ts as conditional updates on a
 * real database: an event moves only records in a state it may start from, and the count says
 * how many moved (a lost race is a 0, never a second transition).
 */
import { beforeAll, describe, expect, it } from "vitest";
import { prisma } from "../db/db";
import { inTransaction, ok } from "../db/transaction";
import { prepareTestDatabase } from "../../../testing/test-support";
import { giveApproval, moveApprovals } from "./approval-lifecycle";

let runId = "";

beforeAll(async () => {
  await prepareTestDatabase();
  runId = (await prisma.run.findFirstOrThrow({ where: { status: "pending_review" }, select: { id: true } })).id;
});

const give = (id: string, stepId: string) =>
  inTransaction(async (tx) =>
    ok(
      await giveApproval(tx, {
        id,
        runId,
        stepId,
        planVersion: 99,
        tool: "send_reply",
        args: {},
        digest: "0".repeat(64),
        boundTaskRevision: 1,
        approverId: null,
        authority: { kind: "policy" },
        acknowledged: [],
        expiresAt: new Date(Date.now() + 3_600_000),
      }),
    ),
  );
const stateOf = async (id: string) => (await prisma.approval.findUniqueOrThrow({ where: { id } })).state;
const move = (event: Parameters<typeof moveApprovals>[1], where: Parameters<typeof moveApprovals>[2]) => inTransaction(async (tx) => ok(await moveApprovals(tx, event, where)));

describe("approval lifecycle", () => {
  it("gives approvals as active; consume needs a claim first; a consumed approval never moves again", async () => {
    const a = await give("apr_life_a", "s_life_a");
    expect(a.state).toBe("active");
    expect(await move("consume", { id: a.id })).toBe(0);
    expect(await stateOf(a.id)).toBe("active");
    expect(await move("claim", { id: a.id })).toBe(1);
    expect(await move("invalidate", { id: a.id })).toBe(0);
    expect(await move("consume", { id: a.id })).toBe(1);
    for (const e of ["claim", "invalidate", "expire", "carry", "consume"] as const) expect(await move(e, { id: a.id })).toBe(0);
    expect(await stateOf(a.id)).toBe("consumed");
  });

  it("two claims of one approval at once: exactly one moves it", async () => {
    const b = await give("apr_life_b", "s_life_b");
    const counts = await Promise.all([move("claim", { id: b.id }), move("claim", { id: b.id }), move("claim", { id: b.id })]);
    expect(counts.sort()).toEqual([0, 0, 1]);
    expect(await stateOf(b.id)).toBe("claimed");
  });
});
