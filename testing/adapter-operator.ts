/*
 * Test support for the adapter tests (not used by production code): the console side played
 * in-process — an agent client over the route handlers, and a person's decisions through the
 * same domain functions the operator API calls.
 */
import { addDays, formatISO } from "date-fns";
import { inProcessFetch } from "./in-process-fetch";
import { createAgentClient, type AgentClient } from "@plandesk/client";
import { approveSteps } from "../lib/server/approvals/approve-steps";
import { rejectRun } from "../lib/server/approvals/reject-run";
import { prisma } from "../lib/server/db/db";
import { submitEdit } from "../lib/server/edits/submit-edit";
import { loadRun } from "../lib/server/plans/load-run";
import { toRunView } from "../lib/server/plans/run-view";
import { loadViewer, type Viewer } from "../lib/server/auth/viewer";
import { reviseTask } from "../lib/server/tasks/revise-task";

/** The demo agent's client, answered by the route handlers in this process. */
export function inProcessAgent(): AgentClient {
  return createAgentClient({ baseUrl: "http://localhost:3999", apiKey: "pd_demo_agent_key", fetch: inProcessFetch });
}

/** ISO date `n` days after `now` (UTC). */
export const isoDay = (n: number, now = new Date()) => formatISO(addDays(now, n), { representation: "date" });

/** The senior operator of the demo desk (approves and authors reschedules and replies). */
export async function senior(): Promise<Viewer> {
  return (await loadViewer("usr_senior"))!;
}

/** Polls until the run exists and waits for review (the agent proposed it); returns its id. */
export async function runProposedFor(callId: string, timeoutMs = 20_000): Promise<string> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const rows = await prisma.run.findMany({ where: { status: "pending_review" }, include: { planVersions: true }, orderBy: { createdAt: "desc" }, take: 20 });
    const hit = rows.find((r) => JSON.stringify(r.planVersions[0]?.steps ?? []).includes(`"id":"${callId}"`));
    if (hit) return hit.id;
    if (Date.now() > until) throw new Error(`no run with step ${callId} was proposed`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** A person moves the reschedule step's window to `day` (from = to) and approves the whole plan. */
export async function editDateAndApprove(runId: string, day: string): Promise<void> {
  const who = await senior();
  const run = toRunView(await loadRun(runId));
  const steps = run.steps.map((s) => ({ id: s.id, tool: s.tool, args: s.tool === "reschedule_delivery" ? { ...s.args, window: { from: day, to: day } } : s.args }));
  const edit = await submitEdit(who, runId, { baseVersion: run.planVersion, steps });
  await approveSteps(who, runId, { planVersion: edit.planVersion.version, stepIds: "all", idempotencyKey: `approve:${runId}` });
}

/** A person approves the plan as proposed. */
export async function approveAsIs(runId: string): Promise<void> {
  const run = toRunView(await loadRun(runId));
  await approveSteps(await senior(), runId, { planVersion: run.planVersion, stepIds: "all", idempotencyKey: `approve:${runId}` });
}

/** A person rejects the run with `reason`. */
export async function reject(runId: string, reason: string): Promise<void> {
  const run = toRunView(await loadRun(runId));
  await rejectRun(await senior(), runId, { planVersion: run.planVersion, reason });
}

/**
 * The demo agent sends a newer plan for `taskId` (one ticket note on `ticketId`), which supersedes
 * its run waiting on that task. Errors: throws with the refusal's code when the plan is refused.
 */
export async function sendNewerPlan(taskId: string, ticketId: string): Promise<void> {
  const agent = inProcessAgent();
  const task = await agent.getTask(taskId);
  if (!task.ok) throw new Error(task.error.code);
  const res = await agent.submitRun(taskId, { taskRevision: task.task.revision, steps: [{ id: "newer", tool: "add_ticket_note", args: { ticketId, note: "A newer plan." } }] });
  if (!res.ok) throw new Error(res.error.code);
}

/** The ticketing integration changes the task (bumps its revision). */
export async function reviseTheTask(taskId: string): Promise<void> {
  await reviseTask(taskId, { comment: "Customer: please deliver to the back entrance instead." }, { kind: "system" });
}

/** The delivery window of a shipment of `desk` (default the demo desk, freight) as stored in account data. */
export async function shipmentWindow(id: string, desk = "freight"): Promise<{ from: string; to: string }> {
  const s = await prisma.shipment.findUniqueOrThrow({ where: { desk_id: { desk, id } } });
  return { from: s.windowFrom, to: s.windowTo };
}
