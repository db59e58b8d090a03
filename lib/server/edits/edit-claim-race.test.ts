/**
 * An edit racing the executor's claim of the same approved run: whichever commits first wins, and
 * the loser gets the refusal that names what happened. An edit that loses is refused
 * `run_not_pending` (the run is executing now), never `stale_plan_version` pointing at its own
 * base version. Real parallel calls on the test database (SQLite and PostgreSQL).
 */
import { nanoid } from "nanoid";
import { beforeAll, describe, expect, it } from "vitest";
import { buildDemoDesk, DEMO_AGENT_TOOLS } from "../../demo/desk-data";
import { isDomainError } from "../../errors/domain-error";
import { claimStep } from "../claims/claim-step";
import { prisma } from "../db/db";
import { DEMO_AGENT_ID } from "../demo/seed";
import { submitRun } from "../runs/submit-run";
import { loadViewer, type AgentCaller, type Viewer } from "../auth/viewer";
import { prepareTestDatabase } from "../../../testing/test-support";
import { submitEdit } from "./submit-edit";

const agent: AgentCaller = { id: DEMO_AGENT_ID, name: "Freight desk agent", allowedTools: [...DEMO_AGENT_TOOLS], keyId: "key_demo" };
let senior: Viewer;

beforeAll(async () => {
  await prepareTestDatabase(new Date());
  senior = (await loadViewer("usr_senior"))!;
});

async function approvedNoteRun() {
  const s = buildDemoDesk(new Date()).runs.find((x) => x.key === "note-75004")!;
  const task = await prisma.task.findUniqueOrThrow({ where: { id: `task_${s.ticketId}` } });
  return (await submitRun(agent, task.id, { taskRevision: task.revision, steps: s.steps, addition: true }, `race:${nanoid()}`)).run;
}

describe("an edit racing a claim", () => {
  it("the losing edit is refused run_not_pending, never stale_plan_version at its own base", async () => {
    const codes: string[] = [];
    for (let i = 0; i < 8; i++) {
      const run = await approvedNoteRun();
      expect(run.status).toBe("approved");
      const step = run.steps[0];
      const steps = run.steps.map((s) => ({ id: s.id, tool: s.tool, args: { ...s.args, note: `Edited in race ${i}.` } }));
      const [edit, claim] = await Promise.allSettled([
        submitEdit(senior, run.id, { baseVersion: 1, steps }),
        claimStep(agent, run.id, step.id, { digest: step.digest, taskRevision: run.boundTaskRevision }, null),
      ]);
      if (edit.status === "rejected") {
        expect(isDomainError(edit.reason), String(edit.reason)).toBe(true);
        codes.push(edit.reason.code);
        expect(claim.status).toBe("fulfilled");
      }
      if (claim.status === "rejected") expect(edit.status).toBe("fulfilled");
    }
    for (const c of codes) expect(c).toBe("run_not_pending");
  });

  it("an edit after the claim committed is refused run_not_pending", async () => {
    const run = await approvedNoteRun();
    const step = run.steps[0];
    await claimStep(agent, run.id, step.id, { digest: step.digest, taskRevision: run.boundTaskRevision }, null);
    const steps = run.steps.map((s) => ({ id: s.id, tool: s.tool, args: { ...s.args, note: "Too late." } }));
    await expect(submitEdit(senior, run.id, { baseVersion: 1, steps })).rejects.toMatchObject({ code: "run_not_pending" });
  });
});
