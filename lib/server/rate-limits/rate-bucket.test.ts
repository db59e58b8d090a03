/**
 * The shared token bucket in the database (lib/server/rate-limits/rate-bucket.ts), on SQLite and
 * PostgreSQL: the one conditional statement applies lib/limits/token-bucket.ts's arithmetic, and
 * parallel takers — of one client, or of two "instances" (separate OS processes, each with its own
 * Prisma client and connections, testing/rate-bucket-child.ts) — never take more than the bucket holds.
 */
import { spawn } from "node:child_process";
import path from "node:path";
import readline from "node:readline";
import { beforeAll, describe, expect, it } from "vitest";
import { takeToken, type BucketState } from "../../limits/token-bucket";
import { prisma } from "../db/db";
import { prepareTestDatabase } from "../../../testing/test-support";
import { takeRateToken, type TokenDecision } from "./rate-bucket";

const rule = { capacity: 60, refillPerSecond: 10 };
const t0 = new Date("2026-12-05T06:00:00Z");
const at = (ms: number) => new Date(t0.getTime() + ms);
const taken = (ds: TokenDecision[]) => ds.filter((d) => d.allowed).length;

beforeAll(async () => {
  await prepareTestDatabase(new Date(), { seed: false });
});

describe("a bucket in the database", () => {
  it("61 requests at once with burst 60: one is refused with Retry-After 1; a tenth of a second later one more passes", async () => {
    const decisions: TokenDecision[] = [];
    for (let i = 0; i < 61; i++) decisions.push(await takeRateToken(prisma, "agent-key:burst", rule, t0));
    expect(taken(decisions)).toBe(60);
    expect(decisions[60]).toEqual({ allowed: false, retryAfterSeconds: 1 });
    expect(await takeRateToken(prisma, "agent-key:burst", rule, at(50))).toEqual({ allowed: false, retryAfterSeconds: 1 });
    expect(await takeRateToken(prisma, "agent-key:burst", rule, at(100))).toEqual({ allowed: true });
    const row = await prisma.rateBucket.findUniqueOrThrow({ where: { key: "agent-key:burst" } });
    expect(row.refilledAt.toISOString()).toBe(at(100).toISOString());
    expect(row.tokens).toBeCloseTo(0, 9);
  });

  it("the refused wait the whole seconds until one token is back", async () => {
    const slow = { capacity: 2, refillPerSecond: 0.25 };
    await takeRateToken(prisma, "person:slow", slow, t0);
    await takeRateToken(prisma, "person:slow", slow, t0);
    expect(await takeRateToken(prisma, "person:slow", slow, t0)).toEqual({ allowed: false, retryAfterSeconds: 4 });
    expect(await takeRateToken(prisma, "person:slow", slow, at(1500))).toEqual({ allowed: false, retryAfterSeconds: 3 });
    expect(await takeRateToken(prisma, "person:slow", slow, at(4000))).toEqual({ allowed: true });
  });

  it("follows the pure bucket over a random sequence of requests, refusals included (a refusal takes nothing)", async () => {
    const small = { capacity: 5, refillPerSecond: 3 };
    let state: BucketState | null = null;
    let ms = 0;
    let seed = 7;
    const random = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
    for (let i = 0; i < 120; i++) {
      ms += Math.floor(random() * 700);
      const expected = takeToken(state, small, at(ms));
      if (expected.allowed) state = expected.state;
      const got = await takeRateToken(prisma, "agent-key:random", small, at(ms));
      expect(got, `request ${i} at +${ms} ms`).toEqual(expected.allowed ? { allowed: true } : { allowed: false, retryAfterSeconds: expected.retryAfterSeconds });
    }
  });

  it("a clock that went back adds nothing, and the bucket's time never moves back", async () => {
    const one = { capacity: 1, refillPerSecond: 1 };
    expect(await takeRateToken(prisma, "agent-key:clock", one, at(10_000))).toEqual({ allowed: true });
    expect(await takeRateToken(prisma, "agent-key:clock", one, at(5_000))).toEqual({ allowed: false, retryAfterSeconds: 1 });
    expect((await prisma.rateBucket.findUniqueOrThrow({ where: { key: "agent-key:clock" } })).refilledAt.toISOString()).toBe(at(10_000).toISOString());
    expect(await takeRateToken(prisma, "agent-key:clock", one, at(11_000))).toEqual({ allowed: true });
  });

  it("buckets are separate: one key's empty bucket leaves another's full", async () => {
    const tiny = { capacity: 1, refillPerSecond: 0.001 };
    expect(await takeRateToken(prisma, "agent-key:a", tiny, t0)).toEqual({ allowed: true });
    expect((await takeRateToken(prisma, "agent-key:a", tiny, t0)).allowed).toBe(false);
    expect(await takeRateToken(prisma, "agent-key:b", tiny, t0)).toEqual({ allowed: true });
  });

  it("100 parallel requests on one client take exactly the 40 tokens there are", async () => {
    const forty = { capacity: 40, refillPerSecond: 0.001 };
    const decisions = await Promise.all(Array.from({ length: 100 }, () => takeRateToken(prisma, "agent-key:parallel", forty, t0)));
    expect(taken(decisions)).toBe(40);
    expect((await prisma.rateBucket.findUniqueOrThrow({ where: { key: "agent-key:parallel" } })).tokens).toBeCloseTo(0, 9);
  });
});

/** One instance: a child process taking tokens (testing/rate-bucket-child.ts). */
function startInstance() {
  const child = spawn(path.join(process.cwd(), "node_modules", ".bin", "tsx"), [path.join(process.cwd(), "testing", "rate-bucket-child.ts")], { env: process.env });
  let stderr = "";
  child.stderr.on("data", (d) => (stderr += d));
  const lines = readline.createInterface({ input: child.stdout })[Symbol.asyncIterator]();
  const next = async (): Promise<Record<string, number | boolean>> => {
    const { value, done } = await lines.next();
    if (done) throw new Error(`instance ${child.pid} ended: ${stderr}`);
    return JSON.parse(value) as Record<string, number | boolean>;
  };
  return { child, next, send: (cmd: Record<string, unknown>) => child.stdin.write(JSON.stringify(cmd) + "\n") };
}

describe("two instances share a bucket", () => {
  it("two processes, each with its own client, firing 60 requests at one moment at a bucket of 50: exactly 50 pass", { timeout: 90_000 }, async () => {
    const instances = [startInstance(), startInstance()];
    try {
      for (const i of instances) expect(await i.next()).toEqual({ ready: true });
      const startAt = Date.now() + 500;
      for (const i of instances) i.send({ key: "agent-key:shared", capacity: 50, refillPerSecond: 0.001, count: 60, startAt, now: t0.toISOString() });
      const results = await Promise.all(instances.map((i) => i.next()));
      expect(results.reduce((n, r) => n + Number(r.allowed), 0)).toBe(50);
      expect(results.reduce((n, r) => n + Number(r.refused), 0)).toBe(70);
      // both instances were served: neither only waited for the other
      for (const r of results) expect(Number(r.allowed) + Number(r.refused)).toBe(60);
      expect((await prisma.rateBucket.findUniqueOrThrow({ where: { key: "agent-key:shared" } })).tokens).toBeCloseTo(0, 9);
    } finally {
      for (const i of instances) i.child.kill();
    }
  });
});
