/**
 * The races of several app instances on one database, for a test file to register (lib/server/runs/instances.test.ts
 * directly on the database, lib/server/db/transaction-pooler.pg.test.ts through PgBouncer): two separate OS
 * processes, each with its own Prisma client and connection pool (testing/instance-child.ts, started
 * with this process's environment, DATABASE_URL included), run the real service functions against
 * the file's database at the same moment. Every round has exactly one winner and every loser a
 * typed 409; the deadline sweep, run on both instances at once, escalates and expires each run
 * exactly once. Not used by the app.
 */
import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import path from "node:path";
import readline from "node:readline";
import { nanoid } from "nanoid";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEMO_AGENT_TOOLS } from "../lib/demo/desk-data";
import { ERROR_STATUS, type ErrorCode } from "../lib/errors/domain-error";
import { digest } from "../lib/plan/digest";
import type { StepInput } from "../lib/plan/schema";
import { prisma } from "../lib/server/db/db";
import { DEMO_AGENT_ID } from "../lib/server/demo/seed";
import { loadRun } from "../lib/server/plans/load-run";
import { toRunView } from "../lib/server/plans/run-view";
import { submitRun } from "../lib/server/runs/submit-run";
import type { AgentCaller } from "../lib/server/auth/viewer";
import { editable, prepareTestDatabase, TEST_NOW } from "./test-support";

const agent: AgentCaller = { id: DEMO_AGENT_ID, name: "Freight desk agent", allowedTools: [...DEMO_AGENT_TOOLS], keyId: "key_demo" };
const LATER = new Date(TEST_NOW.getTime() + 60_000);
type Outcome = { ok: true; value: unknown } | { ok: false; code: string };

/** One instance: a child process answering one JSON line per command. */
export class Instance {
  readonly child: ChildProcessWithoutNullStreams;
  readonly #lines: AsyncIterator<string>;
  #stderr = "";
  constructor() {
    this.child = spawn(path.join(process.cwd(), "node_modules", ".bin", "tsx"), [path.join(process.cwd(), "testing", "instance-child.ts")], { env: process.env });
    this.child.stderr.on("data", (d) => (this.#stderr += d));
    this.#lines = readline.createInterface({ input: this.child.stdout })[Symbol.asyncIterator]();
  }
  async next(): Promise<Record<string, unknown>> {
    const { value, done } = await this.#lines.next();
    if (done) throw new Error(`instance ${this.child.pid} ended: ${this.#stderr}`);
    return JSON.parse(value) as Record<string, unknown>;
  }
  async send(cmd: Record<string, unknown>): Promise<Outcome[]> {
    this.child.stdin.write(JSON.stringify(cmd) + "\n");
    return (await this.next()).results as Outcome[];
  }
  stop() {
    this.child.stdin.end(JSON.stringify({ op: "exit" }) + "\n");
  }
}

let instances: Instance[] = [];

/** The two running instances (after the races' `beforeAll`). */
export const raceInstances = (): readonly Instance[] => instances;

/** Sends `cmd` to both instances with one start time a little ahead; all outcomes together. */
async function onBoth(cmd: Record<string, unknown>, perInstance?: Record<string, unknown>[]): Promise<Outcome[]> {
  const startAt = Date.now() + 600;
  const out = await Promise.all(instances.map((inst, i) => inst.send({ ...cmd, ...(perInstance?.[i] ?? {}), startAt })));
  return out.flat();
}

/** Asserts one winner and typed 409 losers; returns the winner. */
function oneWinner(results: Outcome[], losers: ErrorCode[]): Outcome & { ok: true } {
  const winners = results.filter((r): r is Outcome & { ok: true } => r.ok);
  const codes = results.filter((r): r is Outcome & { ok: false } => !r.ok).map((r) => r.code);
  expect(winners, JSON.stringify(codes)).toHaveLength(1);
  for (const c of codes) {
    expect(losers, `unexpected refusal ${c}`).toContain(c);
    expect(ERROR_STATUS[c as ErrorCode]).toBe(409);
  }
  return winners[0];
}

/** Submits, as the demo agent, a run of `steps` on ticket `ticketId`'s task at TEST_NOW. */
export async function submit(ticketId: string, steps: StepInput[], expiresInSeconds?: number) {
  const task = await prisma.task.findUniqueOrThrow({ where: { id: `task_${ticketId}` } });
  const { run } = await submitRun(agent, task.id, { taskRevision: task.revision, steps, addition: true, ...(expiresInSeconds ? { expiresInSeconds } : {}) }, `inst:${nanoid()}`, TEST_NOW);
  return run;
}

const autoPlan = (ticketId: string): StepInput[] => [
  { id: "s1", tool: "add_ticket_note", args: { ticketId, note: "Customer called about the delivery." } },
  { id: "s2", tool: "add_ticket_note", args: { ticketId, note: "Followed up." }, dependsOn: [] },
];
/** A note and a customer reply: the reply waits for a person's approval. */
export const gatedPlan = (ticketId: string): StepInput[] => [
  { id: "s1", tool: "add_ticket_note", args: { ticketId, note: "Customer asked for an update." } },
  { id: "s2", tool: "send_reply", args: { ticketId, body: "Thanks for your patience; we are looking into it and will write again." } },
];


/**
 * Registers the instances' `beforeAll`/`afterAll` and the race tests under `title`. `prepare`
 * makes the file's database before the instances start (default `prepareTestDatabase`).
 */
export function describeInstanceRaces(title = "two instances on one database", prepare: () => Promise<void> = () => prepareTestDatabase()): void {
  beforeAll(async () => {
    await prepare();
    instances = [new Instance(), new Instance()];
    for (const inst of instances) expect(await inst.next()).toEqual({ ready: true });
  }, 120_000);

  afterAll(() => {
    for (const inst of instances) inst.stop();
  });

  describe(title, () => {
    it("claims: each round one token across both instances, every other claim already_claimed", async () => {
      for (const ticketId of ["75002", "75003"]) {
        const run = await submit(ticketId, autoPlan(ticketId));
        const step = (await toRunView(await loadRun(run.id), LATER)).steps.find((s) => s.id === "s1")!;
        const results = await onBoth({ op: "claim", runId: run.id, stepId: "s1", digest: digest(step as never), taskRevision: run.boundTaskRevision, count: 4, now: LATER.toISOString() });
        expect(results).toHaveLength(8);
        oneWinner(results, ["already_claimed"]);
        expect(await prisma.stepExecution.count({ where: { runId: run.id, stepId: "s1" } })).toBe(1);
      }
    }, 90_000);

    it("edits: of four edits from one base version one becomes version 2, the rest stale_plan_version", async () => {
      const run = await submit("75004", gatedPlan("75004"));
      const base = editable((await toRunView(await loadRun(run.id), TEST_NOW)).steps as never);
      const variant = (n: number) => base.map((s) => (s.id === "s1" ? { ...s, args: { ...s.args, note: `Edited on instance variant ${n}.` } } : s));
      const results = await onBoth({ op: "edit", runId: run.id, baseVersion: 1, as: "usr_senior", now: TEST_NOW.toISOString() }, [{ variants: [variant(1), variant(2)] }, { variants: [variant(3), variant(4)] }]);
      expect(oneWinner(results, ["stale_plan_version"]).value).toBe(2);
      const after = await prisma.run.findUniqueOrThrow({ where: { id: run.id }, include: { planVersions: true, edits: true } });
      expect(after.planVersion).toBe(2);
      expect(after.planVersions).toHaveLength(2);
      expect(after.edits).toHaveLength(1);
    }, 90_000);

    it("approvals: six approvals of one step across both instances create one approval and one audit event", async () => {
      // Approving a step that is already approved is not a refusal (the answer shows the approval
      // in force), so here the race is won by whoever writes the approval; nobody may write a second.
      const run = await submit("75005", gatedPlan("75005"));
      const results = await onBoth({ op: "approve", runId: run.id, planVersion: 1, as: "usr_senior", count: 3, keyPrefix: "inst", now: TEST_NOW.toISOString() });
      for (const r of results) {
        if (!r.ok) expect(ERROR_STATUS[r.code as ErrorCode], r.code).toBe(409);
      }
      expect(results.filter((r) => r.ok).length).toBeGreaterThanOrEqual(1);
      const approvals = await prisma.approval.findMany({ where: { runId: run.id } });
      // s1 (a note) is approved by policy at submission; s2 (a customer reply) by exactly one of the six calls.
      expect(approvals.map((a) => `${a.stepId}:${a.state}:${a.approverId ?? "policy"}`).sort()).toEqual(["s1:active:policy", "s2:active:usr_senior"]);
      expect(await prisma.auditEvent.count({ where: { runId: run.id, type: "approved", actorKind: "user" } })).toBe(1);
      expect((await prisma.run.findUniqueOrThrow({ where: { id: run.id } })).status).toBe("approved");
    }, 90_000);

    it("approval against edit: an approval of version 1 racing an edit from version 1 never approves a superseded version", async () => {
      const run = await submit("75009", gatedPlan("75009"));
      const base = editable((await toRunView(await loadRun(run.id), TEST_NOW)).steps as never);
      const edited = base.map((s) => (s.id === "s2" ? { ...s, args: { ...s.args, body: "Edited reply: we are on it and will write again today." } } : s));
      const [approve, edit] = await Promise.all([
        instances[0].send({ op: "approve", runId: run.id, planVersion: 1, as: "usr_senior", count: 2, keyPrefix: "vs", startAt: Date.now() + 600, now: TEST_NOW.toISOString() }),
        instances[1].send({ op: "edit", runId: run.id, baseVersion: 1, as: "usr_senior", variants: [edited, edited], startAt: Date.now() + 600, now: TEST_NOW.toISOString() }),
      ]);
      oneWinner(edit, ["stale_plan_version"]); // two edits from version 1: one version 2
      for (const r of approve) if (!r.ok) expect(r.code).toBe("stale_plan_version");
      const after = await prisma.run.findUniqueOrThrow({ where: { id: run.id }, include: { approvals: true } });
      expect(after.planVersion).toBe(2);
      // Whatever order the two committed in, no approval of version 1 is still in force.
      expect(after.approvals.filter((a) => a.state === "active" && a.planVersion === 1)).toEqual([]);
    }, 90_000);

    it("the deadline sweep on both instances escalates and expires each run exactly once", async () => {
      const runs = await Promise.all(["75006", "75007", "75008"].map((t) => submit(t, gatedPlan(t), 3600)));
      const escalateAt = new Date(runs[0].escalateAt);
      const expiresAt = new Date(runs[0].expiresAt);
      const first = await onBoth({ op: "sweep", count: 2, now: new Date(escalateAt.getTime() + 1000).toISOString() });
      const second = await onBoth({ op: "sweep", count: 2, now: new Date(expiresAt.getTime() + 1000).toISOString() });
      for (const r of [...first, ...second]) expect(r.ok, JSON.stringify(r)).toBe(true);
      const escalated = first.flatMap((r) => (r.ok ? (r.value as { escalated: string[] }).escalated : []));
      const expired = second.flatMap((r) => (r.ok ? (r.value as { expired: string[] }).expired : []));
      expect(new Set(escalated).size).toBe(escalated.length); // no run escalated by two sweepers
      expect(new Set(expired).size).toBe(expired.length);
      for (const run of runs) {
        expect(escalated.filter((id) => id === run.id)).toHaveLength(1);
        expect(expired.filter((id) => id === run.id)).toHaveLength(1);
        expect(await prisma.auditEvent.count({ where: { runId: run.id, type: "escalated" } })).toBe(1);
        expect(await prisma.auditEvent.count({ where: { runId: run.id, type: "expired" } })).toBe(1);
        expect((await prisma.run.findUniqueOrThrow({ where: { id: run.id } })).status).toBe("expired");
      }
    }, 90_000);
  });
}
