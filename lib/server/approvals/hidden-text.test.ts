/**
 * Text tells the truth, on this file's own database (SQLite, or PostgreSQL with
 * PLANDESK_TEST_DB=postgres): a reply "we will \u202ednufer\u202c you $150.00" (a right-to-left
 * override, displayed as "refund") is stored as sent, flagged `hidden_characters`, and the
 * promise scan reads it as displayed, so approving needs both acknowledgements; a whitespace-only
 * edit (a space moved in a shell command, a space turned no-break) is a change: its approval is
 * withdrawn and the diff names it, and the no-break space is flagged. The cards and the review
 * screen show the same (e2e/hidden-text.spec.ts); docs/design.md §1.6 (content).
 */
import { nanoid } from "nanoid";
import { beforeAll, describe, expect, it } from "vitest";
import { DEMO_AGENT_TOOLS } from "../../demo/desk-data";
import type { StepInput } from "../../plan/schema";
import { prisma } from "../db/db";
import { DEMO_AGENT_ID } from "../demo/seed";
import { submitEdit } from "../edits/submit-edit";
import { getRunDetails } from "../runs/get-run-details";
import { submitRun } from "../runs/submit-run";
import { loadViewer, type AgentCaller, type Viewer } from "../auth/viewer";
import { editable, prepareTestDatabase, refused, TEST_NOW } from "../../../testing/test-support";
import { approveSteps } from "./approve-steps";

const agent: AgentCaller = { id: DEMO_AGENT_ID, name: "Freight desk agent", allowedTools: [...DEMO_AGENT_TOOLS], keyId: "key_demo" };
let senior: Viewer;

async function submit(ticketId: string, steps: StepInput[]) {
  const task = await prisma.task.findUniqueOrThrow({ where: { id: `task_${ticketId}` } });
  return (await submitRun(agent, task.id, { taskRevision: task.revision, steps, addition: true }, `t:${nanoid()}`, TEST_NOW)).run;
}

beforeAll(async () => {
  await prepareTestDatabase();
  senior = (await loadViewer("usr_senior"))!;
});

describe("hidden text, stored and decided", () => {
  it("a right-to-left override is stored as sent, flagged, read as displayed ('refund'), and approving needs both acknowledgements", async () => {
    const body = "we will \u202ednufer\u202c you $150.00";
    const run = await submit("74994", [{ id: "r1", tool: "send_reply", args: { ticketId: "74994", body }, rationale: "The customer asked." }]);
    expect(run.steps[0].args.body).toBe(body);
    const { validation } = await getRunDetails(run.id, senior, TEST_NOW);
    const hidden = validation.issues.find((i) => i.code === "hidden_characters");
    expect(hidden).toMatchObject({ stepId: "r1", severity: "warning", needsAcknowledgement: true, details: { count: 2 } });
    expect(hidden!.message).toContain("RLO");
    const promise = validation.issues.find((i) => i.code === "unbacked_commitment");
    expect(promise).toMatchObject({ stepId: "r1", needsAcknowledgement: true });
    expect(promise!.message).toContain("refund you $150.00");
    expect(promise!.message).not.toContain("dnufer");

    const approve = (acknowledgedWarnings: { code: string; stepId: string }[]) => approveSteps(senior, run.id, { planVersion: 1, stepIds: "all", idempotencyKey: `rlo-${nanoid()}`, acknowledgedWarnings }, TEST_NOW);
    expect((await refused(approve([]))).code).toBe("acknowledgement_required");
    expect((await refused(approve([{ code: "unbacked_commitment", stepId: "r1" }]))).code).toBe("acknowledgement_required");
    expect((await refused(approve([{ code: "hidden_characters", stepId: "r1" }]))).code).toBe("acknowledgement_required");
    await approve([
      { code: "unbacked_commitment", stepId: "r1" },
      { code: "hidden_characters", stepId: "r1" },
    ]);
    expect(await prisma.approval.count({ where: { runId: run.id, state: "active" } })).toBe(1);
  });

  it("a whitespace-only edit is a change: the moved space and the no-break space withdraw the approvals, the diff names both, the no-break space is flagged", async () => {
    const reply = "We will write again today.";
    const run = await submit("74995", [
      { id: "n1", tool: "add_ticket_note", args: { ticketId: "74995", note: "rm -rf /srv/app/labels/ tmp" }, rationale: "The depot's clean-up." },
      { id: "r1", tool: "send_reply", args: { ticketId: "74995", body: reply }, rationale: "The customer asked." },
    ]);
    await approveSteps(senior, run.id, { planVersion: 1, stepIds: "all", idempotencyKey: `ws-${run.id}` }, TEST_NOW);
    const steps = editable(run.steps as never);
    steps[0].args.note = "rm -rf /srv/app /labels/tmp";
    steps[1].args.body = "We will write again\u00a0today.";
    const res = await submitEdit(senior, run.id, { baseVersion: 1, steps }, TEST_NOW);
    expect(res.unchanged).toBe(false);
    expect(res.planVersion.steps.map((s) => (s.args as { note?: string; body?: string }).note ?? (s.args as { body?: string }).body)).toEqual(["rm -rf /srv/app /labels/tmp", "We will write again\u00a0today."]);
    expect(res.reapproval).toMatch(/step 1.*step 2|steps? 1 and 2/);
    expect(JSON.stringify(res.diff)).toContain("\u00a0today");
    // no person's approval carries over (the note is auto-gated: the policy approves it again itself)
    expect(await prisma.approval.count({ where: { runId: run.id, planVersion: 2, state: "active", approverId: { not: null } } })).toBe(0);
    expect(await prisma.approval.count({ where: { runId: run.id, planVersion: 1, approverId: "usr_senior", state: "active" } })).toBe(0);
    expect(res.validation.issues.find((i) => i.code === "hidden_characters")).toMatchObject({ stepId: "r1", needsAcknowledgement: true });
    expect(res.validation.issues.find((i) => i.code === "hidden_characters")!.message).toContain("NBSP");
  });
});
