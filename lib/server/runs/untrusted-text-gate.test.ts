/**
 * The untrusted-text table (testing/fixtures/untrusted-text-table.ts) through the submission,
 * against this file's own database (SQLite, or PostgreSQL with PLANDESK_TEST_DB=postgres): each
 * case is a ticket opened through the ticketing door with its text parts, and the agent's plan
 * is submitted with the seeded gate policy (notes and escalations are approved by the policy
 * alone). A step copying a planted instruction waits for a person and no approval is written for
 * it; a note paraphrasing an ordinary customer message is approved by the policy as before, and a
 * note copying the message whole waits for a person (a copy, by design).
 */
import { nanoid } from "nanoid";
import { beforeAll, describe, expect, it } from "vitest";
import { DEMO_AGENT_TOOLS } from "../../demo/desk-data";
import type { DerivedArg } from "../../validation/contract-rules";
import type { ValidationIssue } from "../../validation/types";
import { ORDINARY, PLANTED } from "../../../testing/fixtures/untrusted-text-table";
import { prepareTestDatabase, TEST_NOW } from "../../../testing/test-support";
import type { AgentCaller } from "../auth/viewer";
import { prisma } from "../db/db";
import { DEMO_AGENT_ID } from "../demo/seed";
import { openTask } from "../tasks/open-task";
import { submitRun } from "./submit-run";

const agent: AgentCaller = { id: DEMO_AGENT_ID, name: "Freight desk agent", allowedTools: [...DEMO_AGENT_TOOLS], keyId: "key_demo" };
const integration = { kind: "integration" as const, id: "int_demo" };

beforeAll(async () => {
  await prepareTestDatabase();
});

/** Opens a ticket of Nordkapp Logistics with these parts and submits `steps(ticketId)` for its task. */
async function submitFor(label: string, parts: { source: "customer_message" | "attachment" | "staff" | "system"; text: string }[], steps: (ticketId: string) => unknown[]) {
  const ticketId = `ut-${label}-${nanoid(6)}`;
  const { task } = await openTask({ ticketId, accountId: "acc_nordkapp", subject: `Untrusted text: ${label}`, parts }, integration, { at: TEST_NOW });
  const { run } = await submitRun(agent, task.id, { taskRevision: task.revision, steps: steps(ticketId) as never }, null, TEST_NOW);
  const approvals = await prisma.approval.count({ where: { runId: run.id } });
  const stored = await prisma.planVersion.findFirstOrThrow({ where: { runId: run.id, version: 1 } });
  const issues = (stored.validation as unknown as { issues: ValidationIssue[] }).issues;
  return { run, approvals, issues };
}

describe("the submission: planted instructions copied into a step wait for a person", () => {
  it(`${PLANTED.length} planted instructions in seven languages: no copying step approved by the gate policy alone, no approval written`, async () => {
    const approvedAlone: string[] = [];
    for (const c of PLANTED) {
      const { run, approvals } = await submitFor(c.id, c.parts, (ticketId) => [
        { id: "note", tool: "add_ticket_note", args: { ticketId, note: `Customer message, verbatim: ${c.copy}` }, rationale: "Keep the customer's words on the ticket." },
        { id: "esc", tool: "escalate_ticket", args: { ticketId, team: "management", note: c.copy }, rationale: "The customer asks for management." },
      ]);
      const auto = run.steps.filter((s) => s.gate !== "approval_required").map((s) => s.id);
      if (auto.length > 0 || approvals > 0 || run.status !== "pending_review") approvedAlone.push(`${c.id}: ${run.status}, auto ${auto.join(",")}, ${approvals} approvals`);
    }
    expect(approvedAlone).toEqual([]);
  });

  it("the stored issue names the copied span and the part it came from (what the run page highlights)", async () => {
    const c = PLANTED.find((p) => p.id === "no-plain")!;
    const { issues } = await submitFor(c.id, c.parts, (ticketId) => [{ id: "esc", tool: "escalate_ticket", args: { ticketId, team: "management", note: c.copy }, rationale: "Asked for." }]);
    const issue = issues.find((i) => i.code === "derived_from_untrusted_text" && i.stepId === "esc")!;
    const [source] = issue.details!.sources as DerivedArg[];
    expect(source).toMatchObject({ arg: "note", via: "overlap", partIndex: 1, source: "customer_message" });
    const span = source.spans![0];
    expect(c.copy.slice(span.start, span.end)).toBe(c.parts[1].text.slice(span.partStart, span.partEnd));
    expect(span.words).toBeGreaterThanOrEqual(20);
  });
});

describe("the submission: ordinary customer messages raise no false alarm", () => {
  it(`${ORDINARY.length} ordinary messages in seven languages: the note paraphrasing each is approved by the policy as before, the note copying it waits for a person`, async () => {
    const falseAlarms: string[] = [];
    const missedCopies: string[] = [];
    for (const c of ORDINARY) {
      const { run, issues } = await submitFor(c.id, [{ source: "customer_message", text: c.message }], (ticketId) => [
        { id: "note", tool: "add_ticket_note", args: { ticketId, note: c.note }, rationale: "Record the request." },
        { id: "copy", tool: "add_ticket_note", args: { ticketId, note: `Customer: ${c.message}` }, rationale: "Keep the customer's words." },
      ]);
      const gate = Object.fromEntries(run.steps.map((s) => [s.id, s.gate]));
      const flagged = issues.filter((i) => i.code === "instruction_in_source" || (i.code === "derived_from_untrusted_text" && i.stepId === "note")).map((i) => i.code);
      if (flagged.length > 0 || gate.note !== "auto") falseAlarms.push(`${c.id}: ${flagged.join(",")} gate ${gate.note}`);
      if (gate.copy !== "approval_required") missedCopies.push(c.id);
    }
    expect(falseAlarms).toEqual([]);
    expect(missedCopies).toEqual([]);
  });
});
