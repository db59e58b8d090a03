/**
 * A saved plan reads back as it was written, on both databases
 * (docs/design.md "Storage and scale"): the JSON columns are `json` on PostgreSQL, not `jsonb`, so object keys keep the order
 * the agent or the person wrote them in — also when the plan is read as a run's nested relation
 * (`loadRun`), which is how the run page, the approval and the agent's GET run see it. Prisma's
 * `relationJoins` would build those nested rows with `JSONB_BUILD_OBJECT` and re-order the keys.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { DEMO_AGENT_TOOLS } from "../../demo/desk-data";
import type { AgentCaller } from "../auth/viewer";
import { prisma } from "../db/db";
import { DEMO_AGENT_ID } from "../demo/seed";
import { submitRun } from "../runs/submit-run";
import { prepareTestDatabase } from "../../../testing/test-support";
import { loadRun } from "./load-run";

const agent: AgentCaller = { id: DEMO_AGENT_ID, name: "Freight desk agent", allowedTools: [...DEMO_AGENT_TOOLS], keyId: "key_demo" };

beforeAll(async () => {
  await prepareTestDatabase();
});

describe("a saved plan reads back as written", () => {
  it("its arguments keep their key order when the plan is read with its run (nested), as when read alone", async () => {
    const task = await prisma.task.findUniqueOrThrow({ where: { id: "task_75016" } });
    // "ticketId" before "note": jsonb would put the shorter key first
    const steps = [{ id: "s_note", tool: "add_ticket_note", args: { ticketId: "75016", note: "Written in this order." } }];
    const { run } = await submitRun(agent, task.id, { taskRevision: task.revision, steps }, null);
    const nested = await loadRun(run.id);
    const stored = nested.planVersions.find((v) => v.version === nested.planVersion)!.steps as { args: Record<string, unknown> }[];
    expect(Object.keys(stored[0].args)).toEqual(["ticketId", "note"]);
    const alone = await prisma.planVersion.findUniqueOrThrow({ where: { runId_version: { runId: run.id, version: nested.planVersion } } });
    expect(Object.keys((alone.steps as { args: Record<string, unknown> }[])[0].args)).toEqual(["ticketId", "note"]);
  });
});
