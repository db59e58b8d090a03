/**
 * The run lifecycle: one transition table (lib/lifecycle/run-state.ts RUN_EVENTS) that the UI
 * explains and the server obeys. (1) No module but the lifecycle writes `run.status`. (2) Every
 * (state, event) pair, driven through the real services: an event the table allows from a state
 * moves the run to the table's target; one it does not allow leaves the run where it was (with a
 * typed refusal where the service refuses).
 */
import fs from "node:fs";
import path from "node:path";
import { nanoid } from "nanoid";
import { Prisma } from "../../generated/prisma/client";
import { beforeAll, describe, expect, it } from "vitest";
import { DEMO_AGENT_TOOLS } from "../../demo/desk-data";
import { parseAuditData } from "../../audit/events";
import { isDomainError } from "../../errors/domain-error";
import { effectiveStatus, fromStates, RUN_EVENTS, RUN_STATES, toState, type RunEvent, type RunState } from "../../lifecycle/run-state";
import { approveSteps } from "../approvals/approve-steps";
import { rejectRun } from "../approvals/reject-run";
import { claimStep } from "../claims/claim-step";
import { reportOutcome } from "../claims/report-outcome";
import { fenceClaim } from "../claims/fence-claim";
import { sweepDeadlines } from "../deadlines/sweep-deadlines";
import { DEMO_AGENT_ID } from "../demo/seed";
import { prisma } from "../db/db";
import { submitEdit } from "../edits/submit-edit";
import { loadRun } from "../plans/load-run";
import { toRunView, type RunView } from "../plans/run-view";
import { submitRun } from "../runs/submit-run";
import { loadViewer, type AgentCaller, type Viewer } from "../auth/viewer";
import { reviseTask } from "../tasks/revise-task";
import { editable, prepareTestDatabase, TEST_NOW } from "../../../testing/test-support";

const ROOT = path.resolve(__dirname, "../../..");
const agent: AgentCaller = { id: DEMO_AGENT_ID, name: "Freight desk agent", allowedTools: [...DEMO_AGENT_TOOLS], keyId: "key_demo" };
const at = (seconds: number) => new Date(TEST_NOW.getTime() + seconds * 1000);
let supervisor: Viewer;

describe("no module but the lifecycle writes run.status", () => {
  /** Source files of the app (tests and generated code excluded). */
  function sources(dir: string): string[] {
    return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
      const p = path.join(dir, e.name);
      if (e.isDirectory()) return ["generated", "node_modules"].includes(e.name) ? [] : sources(p);
      return /\.tsx?$/.test(e.name) && !/\.test\.tsx?$/.test(e.name) ? [p] : [];
    });
  }
  /** Every `run.<write>(…)` call whose argument mentions `status`, and raw SQL setting it. */
  function statusWrites(text: string): string[] {
    const found: string[] = [];
    const call = /\brun\.(update|updateMany|create|createMany|upsert|updateManyAndReturn|createManyAndReturn)\s*\(/g;
    for (let m; (m = call.exec(text)); ) {
      let depth = 0;
      let i = m.index + m[0].length - 1;
      for (; i < text.length; i++) {
        if (text[i] === "(") depth++;
        else if (text[i] === ")" && --depth === 0) break;
      }
      const arg = text.slice(m.index, i);
      if (/\bstatus\b/.test(arg.replace(/where\s*:\s*\{[^}]*\}/g, ""))) found.push(arg.slice(0, 80));
    }
    for (const m of text.matchAll(/UPDATE\s+"?run"?\s+SET\s+"?status"?\s*=\s*(?!"?status\b)/gi)) found.push(m[0]);
    return found;
  }

  it("finds status writes only in lib/server/lifecycle/run-lifecycle.ts", () => {
    const writers = ["lib", "app", "scripts", "testing"]
      .flatMap((d) => sources(path.join(ROOT, d)))
      .filter((f) => statusWrites(fs.readFileSync(f, "utf8")).length > 0)
      .map((f) => `${path.relative(ROOT, f)} ${statusWrites(fs.readFileSync(f, "utf8")).join(" | ")}`);
    expect(writers.map((w) => w.split(" ")[0])).toEqual(["lib/server/lifecycle/run-lifecycle.ts"]);
  });

  it("the scan sees a write when there is one", () => {
    expect(statusWrites(`await tx.run.updateMany({ where: { id }, data: { status: "approved" } })`)).toHaveLength(1);
    expect(statusWrites(`await tx.run.updateMany({ where: { id, status: "approved" }, data: { escalatedAt: now } })`)).toHaveLength(0);
    expect(statusWrites(`await tx.$executeRaw\`UPDATE "run" SET "status" = 'stopped' WHERE id = 1\``)).toHaveLength(1);
  });
});

/** A fresh ticket and task of the ticket account of #74991, so every run has its own task. */
async function freshTask(): Promise<string> {
  const ticketId = `lc${nanoid(6)}`;
  await prisma.ticket.create({ data: { desk: "freight", id: ticketId, accountId: "acc_nordkapp", subject: "Lifecycle walk" } });
  await prisma.task.create({ data: { desk: "freight", id: `task_${ticketId}`, ticketId, revision: 1, body: "Keep the customer informed." } });
  return ticketId;
}

/** The walk's plan for `ticketId`: note (auto) → reply (approval) → note (auto, needs only the first note). */
const walkSteps = (ticketId: string) => [
  { id: "s1", tool: "add_ticket_note", args: { ticketId, note: "Customer called." } },
  { id: "s2", tool: "send_reply", args: { ticketId, body: "Thanks, we are on it." } },
  { id: "s3", tool: "add_ticket_note", args: { ticketId, note: "Replied." }, dependsOn: ["s1"] },
];

/** Submits the walk's plan for a fresh task. */
async function submit(expiresInSeconds?: number): Promise<RunView> {
  const ticketId = await freshTask();
  return (await submitRun(agent, `task_${ticketId}`, { taskRevision: 1, steps: walkSteps(ticketId), ...(expiresInSeconds ? { expiresInSeconds } : {}) }, null, TEST_NOW)).run;
}

/** The agent submits a newer plan for the run's task (not an addition): the waiting run is superseded. */
async function resubmit(runId: string, now: Date) {
  const run = await view(runId, now);
  return submitRun(agent, run.taskId, { taskRevision: run.boundTaskRevision, steps: walkSteps(run.ticketId) }, null, now);
}

const view = async (runId: string, now: Date) => toRunView(await loadRun(runId), now);
const approveAll = (runId: string, version: number, now: Date) =>
  approveSteps(supervisor, runId, { planVersion: version, stepIds: "all", idempotencyKey: nanoid() }, now);

async function claimNext(runId: string, now: Date) {
  const run = await view(runId, now);
  const next = run.steps.find((s) => !s.execution) ?? run.steps[0];
  return claimStep(agent, runId, next.id, { digest: next.digest, taskRevision: run.boundTaskRevision }, null, now);
}

async function claimAndReport(runId: string, status: "succeeded" | "failed", now: Date) {
  const { claim } = await claimNext(runId, now);
  await reportOutcome(agent, runId, claim.stepId, { token: claim.token, status }, now);
}

/**
 * The executor finishing an executing run: reports `status` on every open claim, then (when the
 * run still executes and the report was a success) claims and reports every step not yet claimed.
 * Does nothing to a run that is not executing.
 */
async function finish(runId: string, status: "succeeded" | "failed", now: Date) {
  const run = await loadRun(runId);
  if (run.status !== "executing") return;
  const open = run.executions.filter((x) => x.status === "claimed");
  for (const e of open) await reportOutcome(agent, runId, e.stepId, { token: e.token, status }, now);
  if (status === "failed" && open.length === 0) await claimAndReport(runId, "failed", now);
  if (status === "succeeded") while ((await loadRun(runId)).status === "executing") await claimAndReport(runId, "succeeded", now);
}

/** Builds a run in `state` through the services, as people and the executor would. */
async function runIn(state: RunState): Promise<string> {
  const t = at(1);
  const run = await submit(state === "expired" ? 60 : undefined);
  const approved = async () => approveAll(run.id, 1, t);
  switch (state) {
    case "pending_review":
      break;
    case "approved":
      await approved();
      break;
    case "executing":
      await approved();
      await claimAndReport(run.id, "succeeded", t); // s1 written
      await claimNext(run.id, t); // s2 claimed, not reported; s3 not claimed
      break;
    case "completed":
      await approved();
      for (let i = 0; i < 3; i++) await claimAndReport(run.id, "succeeded", t);
      break;
    case "failed":
      await approved();
      await claimAndReport(run.id, "failed", t);
      break;
    case "stopped":
      await approved();
      await reviseTask(run.taskId, { comment: "The customer called again." }, { kind: "system" });
      await claimNext(run.id, t).catch(() => undefined);
      break;
    case "rejected":
      await rejectRun(supervisor, run.id, { planVersion: 1, reason: "Not the right plan." }, t);
      break;
    case "expired":
      await sweepDeadlines(at(120));
      break;
    case "superseded":
      await resubmit(run.id, t);
      break;
    case "needs_decision":
      await approved();
      await blockAtDispatch(run.id, t);
      await prisma.task.update({ where: { id: run.taskId }, data: { contract: Prisma.DbNull } }); // a new decision can now pass
      break;
  }
  expect((await view(run.id, t)).status).toBe(state);
  return run.id;
}

/**
 * Makes the next claim of `runId` fail validation at dispatch for a reason no executor can fix
 * (the task's contract names an intent the desk no longer has: it permits nothing; the revision
 * is not bumped) after the executor reported what it holds, then claims.
 */
async function blockAtDispatch(runId: string, now: Date) {
  const run = await loadRun(runId);
  for (const e of run.executions.filter((x) => x.status === "claimed")) await reportOutcome(agent, runId, e.stepId, { token: e.token, status: "succeeded" }, now);
  await prisma.task.update({ where: { id: run.taskId }, data: { contract: { intent: "retired_intent", constraints: {} } } });
  return claimNext(runId, now).catch((e) => {
    if (isDomainError(e) && e.code === "validation_failed") return null;
    throw e;
  });
}

/** What each service action is, as an event of the table; applied at `now`. */
const ACTIONS: { event: RunEvent; apply: (runId: string, now: Date) => Promise<unknown> }[] = [
  { event: "approvals_complete", apply: async (id, now) => approveAll(id, (await view(id, now)).planVersion, now) },
  {
    event: "edit",
    apply: async (id, now) => {
      const run = await view(id, now);
      const steps = editable(run.steps);
      steps[1].args.body = `Thanks, we are on it (${nanoid(4)}).`; // the gated reply: needs approval again
      return submitEdit(supervisor, id, { baseVersion: run.planVersion, steps }, now);
    },
  },
  { event: "reject", apply: async (id, now) => rejectRun(supervisor, id, { planVersion: (await view(id, now)).planVersion, reason: "Changed my mind." }, now) },
  { event: "claim", apply: (id, now) => claimNext(id, now) },
  {
    event: "stop_stale_task",
    apply: async (id, now) => {
      await reviseTask((await view(id, now)).taskId, { comment: "Acceptance changed." }, { kind: "system" });
      return claimNext(id, now);
    },
  },
  { event: "complete", apply: (id, now) => finish(id, "succeeded", now) },
  { event: "fail", apply: (id, now) => finish(id, "failed", now) },
  { event: "expire", apply: () => sweepDeadlines(at(4 * 86_400)) },
  {
    // The executor found a step's stop condition met and wrote nothing (only an executing run has a claim to report on).
    event: "stop_condition_met",
    apply: async (id, now) => {
      const run = await loadRun(id);
      if (run.status !== "executing") return;
      const open = run.executions.find((x) => x.status === "claimed");
      const token = open?.token ?? (await claimNext(id, now)).claim.token;
      const stepId = open?.stepId ?? run.executions.find((x) => x.token === token)?.stepId ?? (await loadRun(id)).executions.find((x) => x.token === token)!.stepId;
      return reportOutcome(agent, id, stepId, { token, status: "failed", stopConditionMet: true, detail: "The invoice was paid meanwhile" }, now);
    },
  },
  {
    // The fence found the step's record at another source version than its approval saw (only an executing run holds a claim).
    event: "stop_target_changed",
    apply: async (id, now) => {
      const run = await loadRun(id);
      if (run.status !== "executing") return;
      const token = run.executions.find((x) => x.status === "claimed")?.token ?? (await claimNext(id, now)).claim.token;
      const exec = await prisma.stepExecution.findUniqueOrThrow({ where: { token } });
      await prisma.approval.update({ where: { id: exec.approvalId }, data: { recordVersions: { "shipment:sh_5521": 4 } } });
      return fenceClaim(agent, token, { targetVersions: { "shipment:sh_5521": 5 } }, now);
    },
  },
  { event: "supersede", apply: (id, now) => resubmit(id, now) },
  { event: "needs_decision", apply: (id, now) => blockAtDispatch(id, now) },
];

beforeAll(async () => {
  await prepareTestDatabase();
  supervisor = (await loadViewer("usr_supervisor"))!;
});

describe("every (state, event) pair of the transition table, through the services", () => {
  it("the walk covers every event of the table but submission and the settle/expiry variants", () => {
    const walked = new Set(ACTIONS.map((a) => a.event));
    const rest = (Object.keys(RUN_EVENTS) as RunEvent[]).filter((e) => !walked.has(e));
    expect(rest.sort()).toEqual(["approvals_incomplete", "expire_unclaimed", "submit_auto_approved", "submit_for_review"]);
  });

  for (const state of RUN_STATES) {
    for (const action of ACTIONS) {
      it(`${state} + ${action.event}`, async () => {
        const runId = await runIn(state);
        const now = at(2);
        let refusal: string | null = null;
        try {
          await action.apply(runId, now);
        } catch (e) {
          if (!isDomainError(e)) throw e;
          refusal = e.code;
        }
        const row = await prisma.run.findUniqueOrThrow({ where: { id: runId } });
        const after = effectiveStatus(row.status as RunState, row.expiresAt, now);
        if (fromStates(action.event).includes(state)) {
          // The event happens; a stale-task claim does so by being refused with its typed reason.
          const expected = action.event === "stop_stale_task" ? "stopped_stale_task" : action.event === "stop_target_changed" ? "target_changed" : null;
          expect({ after, refusal }).toEqual({ after: toState(action.event), refusal: expected });
        } else {
          // Not allowed from here: nothing moves (a stale-task claim on a waiting run stays waiting).
          expect(after).toBe(state);
        }
      });
    }
  }
});

describe("the audit events the walk wrote", () => {
  it("every stored event parses by its declared type (lib/audit/events.ts), and the walk wrote most kinds", async () => {
    const rows = await prisma.auditEvent.findMany({ select: { type: true, data: true } });
    const broken = rows.map((r) => ({ type: r.type, parsed: parseAuditData(r.type, r.data) })).filter((r) => !r.parsed.ok);
    expect(broken).toEqual([]);
    const seen = new Set(rows.map((r) => r.type));
    for (const t of ["submitted", "validated", "approved", "edited", "rejected", "claimed", "claim_refused", "outcome", "stopped_stale", "task_revised", "expired"]) expect(seen).toContain(t);
  });
});
