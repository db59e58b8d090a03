/**
 * The simulator against the real route handlers (in-process fetch, this file's own database):
 * one pass with every fault must observe every expected outcome and refusal; the review
 * scenario waits for a person (played here by the test, writing approvals as the approval code
 * does) and never approves by itself.
 */
import { spawnSync } from "node:child_process";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { inProcessFetch } from "../testing/in-process-fetch";
import { createAgentClient } from "@plandesk/client";
import { prisma } from "../lib/server/db/db";
import { DEMO_AGENT_KEY, DEMO_INTEGRATION_KEY } from "../lib/server/demo/seed";
import { approveAllAs, prepareTestDatabase } from "../testing/test-support";
import { FAULTS, parseArgs, simulatePass, type SimOptions } from "./simulate";
import { liftRateLimits } from "../testing/unlimited-rates";

const client = createAgentClient({ baseUrl: "http://localhost:3999", apiKey: DEMO_AGENT_KEY, integrationKey: DEMO_INTEGRATION_KEY, fetch: inProcessFetch });
const base: SimOptions = { url: "http://localhost:3999", key: DEMO_AGENT_KEY, integrationKey: DEMO_INTEGRATION_KEY, once: true, faults: [], waitSeconds: 0, intervalSeconds: 30, pollMs: 25 };

/** Plays the person: waits for the simulator's pending refund run and decides on it. */
async function decideWhenSubmitted(decide: (runId: string) => Promise<void>): Promise<string> {
  for (let i = 0; i < 400; i++) {
    const run = await prisma.run.findFirst({ where: { taskId: "task_75018", status: "pending_review", idempotencyKey: { startsWith: "sim:" } }, orderBy: { createdAt: "desc" } });
    if (run) {
      await decide(run.id);
      return run.id;
    }
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error("the simulator never submitted its refund run");
}

const approveAsPerson = (runId: string) => approveAllAs(runId, "usr_operator");

// pass after pass of the demo agent, polling every 25 ms, far faster than real time: past its
// key's rate limit (about 60 requests a pass; the limits have their own tests)
liftRateLimits();

beforeAll(async () => {
  await prepareTestDatabase(new Date());
});

describe("parseArgs", () => {
  it("reads flags, repeats and comma lists of faults, and defaults", () => {
    expect(parseArgs([], {})).toMatchObject({ url: "http://localhost:3000", key: "pd_demo_agent_key", once: false, faults: [], waitSeconds: 0 });
    expect(parseArgs(["--url", "http://x:1", "--once", "--fault", "task-edit,wrong-digest", "--fault=lost-outcome", "--wait-seconds", "5"], {})).toMatchObject({
      url: "http://x:1",
      once: true,
      faults: ["task-edit", "wrong-digest", "lost-outcome"],
      waitSeconds: 5,
    });
    expect(parseArgs(["--fault", "all"], {}).faults).toEqual([...FAULTS]);
    expect(parseArgs([], { PLANDESK_URL: "http://env:2" }).url).toBe("http://env:2");
  });

  it("refuses unknown flags and faults, and auto-approval (approvals are for people)", () => {
    expect(() => parseArgs(["--fault", "meteor"], {})).toThrow(/Unknown fault/);
    expect(() => parseArgs(["--bogus"], {})).toThrow(/Unknown argument/);
    expect(() => parseArgs(["--wait-seconds", "-1"], {})).toThrow(/number of seconds/);
    expect(() => parseArgs(["--auto-approve-as", "operator@plandesk.test"], {})).toThrow(/approvals are for people/);
  });
});

describe("simulatePass", () => {
  it("one pass with every fault observes every expected outcome and refusal", async () => {
    const lines: string[] = [];
    const res = await simulatePass(client, { ...base, faults: [...FAULTS] }, (l) => lines.push(l), "t1");
    const failed = res.expectations.filter((e) => !e.ok);
    expect(failed).toEqual([]);
    expect(res.ok).toBe(true);
    const scenarios = new Set(res.expectations.map((e) => e.scenario));
    expect([...scenarios].sort()).toEqual(["auto-note", "duplicate-claim", "late-write", "lost-outcome", "out-of-order", "task-edit", "wrong-digest"]);
    expect(lines.some((l) => /stopped_stale_task/.test(l))).toBe(true);
    expect(lines.at(-1)).toMatch(/all \d+ expected outcomes and refusals observed/);

    // What the console recorded: two stopped runs (task edit, late write), a step of unknown outcome, nothing written twice.
    const stopped = await prisma.run.findMany({ where: { status: "stopped", idempotencyKey: { startsWith: "sim:t1:" } }, orderBy: { idempotencyKey: "asc" } });
    expect(stopped.map((r) => r.idempotencyKey)).toEqual(["sim:t1:late-write", "sim:t1:task-edit"]);
    expect(stopped[1].stopReason).toMatchObject({ executedStepIds: ["s1"], blockedStepId: "s2" });
    expect(await prisma.stepExecution.findFirst({ where: { runId: stopped[0].id } })).toMatchObject({ stepId: "s1", flag: "reported_after_stopped" });
    const unknown = await prisma.stepExecution.findMany({ where: { status: "unknown", run: { idempotencyKey: { startsWith: "sim:t1:" } } } });
    expect(unknown.map((u) => u.stepId)).toEqual(["s1"]);
    const dup = await prisma.run.findFirstOrThrow({ where: { idempotencyKey: "sim:t1:duplicate-claim" } });
    expect(await prisma.stepExecution.count({ where: { runId: dup.id } })).toBe(1);
    expect(await prisma.idempotencyRecord.count({ where: { scope: `effect:${dup.id}:s1` } })).toBe(1);
  });

  it("a second pass submits fresh runs (its own idempotency keys) and passes again", async () => {
    const res = await simulatePass(client, { ...base, faults: ["task-edit", "duplicate-claim"] }, () => {}, "t2");
    expect(res.ok).toBe(true);
    expect(await prisma.run.count({ where: { idempotencyKey: { startsWith: "sim:t2:" } } })).toBe(4); // auto-note, task-edit ×2, duplicate-claim
  });

  it("waits for a person's approval, then executes the refund: the invoice balance drops", async () => {
    const before = (await prisma.invoice.findUniqueOrThrow({ where: { desk_id: { desk: "freight", id: "in_74801" } } })).openMinor;
    const [res] = await Promise.all([
      simulatePass(client, { ...base, waitSeconds: 20 }, () => {}, "t3"),
      decideWhenSubmitted(approveAsPerson),
    ]);
    expect(res.expectations.filter((e) => !e.ok)).toEqual([]);
    expect(res.expectations.map((e) => e.what)).toContain("the approved refund is executed; run completed");
    expect((await prisma.invoice.findUniqueOrThrow({ where: { desk_id: { desk: "freight", id: "in_74801" } } })).openMinor).toBe(before - 1000);
  });

  it("reports a rejection as the decision, and fails the pass when nobody decides in time", async () => {
    const [rejected] = await Promise.all([
      simulatePass(client, { ...base, waitSeconds: 20 }, () => {}, "t4"),
      decideWhenSubmitted((id) => prisma.run.update({ where: { id }, data: { status: "rejected", rejectionReason: "Not a goodwill case." } }).then(() => undefined)),
    ]);
    expect(rejected.ok).toBe(true);

    const lines: string[] = [];
    const waited = await simulatePass(client, { ...base, waitSeconds: 0.3 }, (l) => lines.push(l), "t5");
    expect(waited.ok).toBe(false);
    expect(waited.expectations.filter((e) => !e.ok).map((e) => e.what)).toEqual(["a person decided within 0.3s"]);
    expect(lines.at(-1)).toMatch(/NOT met/);
    expect(await prisma.run.count({ where: { idempotencyKey: "sim:t5:refund-review", status: "pending_review" } })).toBe(1); // nothing approved it
  });
});

describe("the command line", () => {
  const tsx = path.join(process.cwd(), "node_modules", ".bin", "tsx");
  const script = path.join(__dirname, "simulate.ts");

  it("refuses auto-approval with exit code 2", () => {
    const r = spawnSync(tsx, [script, "--auto-approve-as", "operator@plandesk.test"], { encoding: "utf8" });
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/approvals are for people/);
  });

  it("exits 1 saying so when no console answers", () => {
    const r = spawnSync(tsx, [script, "--once", "--url", "http://127.0.0.1:9"], { encoding: "utf8", timeout: 30_000 });
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/cannot use the console at http:\/\/127\.0\.0\.1:9: network_error/);
  });
});
