/**
 * Fuzz benchmark of the agent API's submit-run endpoint.
 *
 *   npx tsx scripts/bench-api-fuzz.ts [count]        (default 10,000 requests; at least 10,000)
 *
 * Sends fast-check-generated requests (testing/api-fuzz.ts: random JSON and text, plan-shaped
 * anything, invalid mutations of valid plans, wrong envelopes, oversized plans, valid controls;
 * random Idempotency-Keys and task ids) to the exported `POST` of
 * app/api/v1/tasks/[taskId]/runs/route.ts, in-process, one after another, against a throw-away
 * SQLite database (migrated with scripts/migrate.ts `deploy`, seeded with the demo desk at the
 * real clock). Checks per request: no 5xx, typed error body, no run stored for a refusal, the
 * stored plan of every accepted run passes validatePlan again, no known-invalid plan accepted,
 * every valid control accepted. Writes {cases, fiveHundreds, acceptedInvalid, durationMs,
 * casesPerSecond, …} to bench/results/api-fuzz.json; exits 1 on any violation.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { liftRateLimits } from "../testing/unlimited-rates";

// The database must be chosen before any server module creates the Prisma client.
const dbFile = path.join(os.tmpdir(), `plandesk-bench-api-fuzz-${process.pid}-${Date.now()}.db`);
process.env.DATABASE_URL = `file:${dbFile}`;
process.env.PLANDESK_DEMO = "1";
process.env.PLANDESK_URL ||= "http://localhost:3999";
liftRateLimits(); // 10,000 cases from one agent key: a deliberate flood

const total = Math.max(10000, Number(process.argv[2] ?? 10000) || 10000);
const SEED = 20260403;

async function main(): Promise<number> {
  const [{ deploy }, fc, seed, { prisma }, fuzz, route] = await Promise.all([
    import("./migrate"),
    import("fast-check").then((m) => m.default),
    import("../lib/server/demo/seed"),
    import("../lib/server/db/db"),
    import("../testing/api-fuzz"),
    import("../app/api/v1/tasks/[taskId]/runs/route"),
  ]);
  const { FAMILIES, DEMO_FUZZ_TARGET, fuzzCaseArb, runFuzzCase } = fuzz;
  type Family = (typeof FAMILIES)[number];

  try {
    await deploy(process.env.DATABASE_URL);
    await seed.seedDemoDesk(new Date());
    const agent = await prisma.agent.findUniqueOrThrow({ where: { id: seed.DEMO_AGENT_ID } });
    const allowedTools = agent.allowedTools as string[];

    const cases = fc.sample(fuzzCaseArb(DEMO_FUZZ_TARGET, `bench-${SEED}`), { numRuns: total, seed: SEED });
    const runsBefore = await prisma.run.count();

    const families = Object.fromEntries(
      FAMILIES.map((f) => [f, { cases: 0, accepted: 0, replayed: 0, statuses: {} as Record<string, number> }]),
    ) as Record<Family, { cases: number; accepted: number; replayed: number; statuses: Record<string, number> }>;
    const statuses: Record<string, number> = {};
    const errorCodes: Record<string, number> = {};
    let fiveHundreds = 0;
    let acceptedInvalid = 0;
    let validRefused = 0;
    let otherProblems = 0;
    const firstProblems: Array<{ family: Family; note?: string; taskId: string; idempotencyKey?: string; body: string; problems: string[] }> = [];

    const started = process.hrtime.bigint();
    for (const c of cases) {
      const out = await runFuzzCase(route.POST, c, seed.DEMO_AGENT_KEY, allowedTools);
      const fam = families[c.family];
      fam.cases++;
      fam.statuses[out.status] = (fam.statuses[out.status] ?? 0) + 1;
      if (out.status === 201) fam.accepted++;
      if (out.replayed) fam.replayed++;
      statuses[out.status] = (statuses[out.status] ?? 0) + 1;
      if (out.code) errorCodes[out.code] = (errorCodes[out.code] ?? 0) + 1;
      if (out.fiveHundred) fiveHundreds++;
      if (out.acceptedInvalid) acceptedInvalid++;
      if (out.validRefused) validRefused++;
      if (out.problems.length && !out.fiveHundred && !out.acceptedInvalid && !out.validRefused) otherProblems++;
      if (out.problems.length && firstProblems.length < 10) {
        firstProblems.push({ family: c.family, note: c.note, taskId: c.taskId, idempotencyKey: c.idempotencyKey, body: c.bodyText.slice(0, 500), problems: out.problems });
      }
    }
    const durationMs = Number(process.hrtime.bigint() - started) / 1e6;
    const runsCreated = (await prisma.run.count()) - runsBefore;

    const report = {
      benchmark: "POST /api/v1/tasks/{taskId}/runs fuzz (route handler in-process, SQLite)",
      date: new Date().toISOString(),
      node: process.version,
      seed: SEED,
      cases: cases.length,
      fiveHundreds,
      acceptedInvalid,
      validRefused,
      otherProblems,
      durationMs: Math.round(durationMs * 100) / 100,
      casesPerSecond: Math.round((cases.length / durationMs) * 1000 * 10) / 10,
      runsCreated,
      statuses,
      errorCodes,
      families,
      ...(firstProblems.length ? { firstProblems } : {}),
    };
    const outFile = path.join(process.cwd(), "bench", "results", "api-fuzz.json");
    fs.mkdirSync(path.dirname(outFile), { recursive: true });
    fs.writeFileSync(outFile, JSON.stringify(report, null, 2) + "\n");
    console.log(
      `api fuzz: ${cases.length} requests in ${report.durationMs} ms (${report.casesPerSecond}/s): ` +
        `${fiveHundreds} 5xx, ${acceptedInvalid} accepted-invalid, ${validRefused} valid refused, ${otherProblems} other problems; ` +
        `${runsCreated} runs stored → ${path.relative(process.cwd(), outFile)}`,
    );
    const failed = fiveHundreds + acceptedInvalid + validRefused + otherProblems > 0;
    if (failed) console.error(JSON.stringify(firstProblems, null, 2));
    return failed ? 1 : 0;
  } finally {
    await prisma.$disconnect();
    for (const s of ["", "-wal", "-shm", "-journal"]) fs.rmSync(dbFile + s, { force: true });
  }
}

main().then(
  (code) => process.exit(code),
  (e) => {
    console.error(`bench-api-fuzz: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`);
    process.exit(1);
  },
);
