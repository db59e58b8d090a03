/**
 * `npm run db:seed`: seeds the demo desk when demo mode is on (PLANDESK_DEMO != "0"). In production
 * mode it creates nothing, retires any demo sign-in or key left from demo mode, and says how to
 * create the first admin.
 *
 * `npm run db:seed -- --scale` then adds a desk of real size on top of the demo desk (* 10,000 accounts, 100,000 tickets, 200,000 invoices and shipments, 20,000 runs with their
 * histories, ~1,000,000 audit events), deterministic for `--seed <n>` (default 11) and the clock
 * (`--now <ISO time>`, default now); `--scale=<factor>` scales every size (e.g. `--scale=0.1`).
 * Prints progress and timing. A second run adds nothing.
 *
 * `--if-empty` (what `npm start` runs): in demo mode, seeds only a database that does not hold the
 * demo desk yet; production mode's steps (retiring demo access) always run. A demo desk seeded
 * into a database that did not hold it is snapshotted for the demo reset of a server built from
 * the same sources (lib/server/scenarios/demo-snapshot.ts).
 *
 * `npm run db:seed -- --scenario <name>` then makes one named scenario (docs/testing.md) and
 * prints the ids it made as JSON; `--scenario list` lists them.
 */
import { prisma } from "../lib/server/db/db";
import { DEMO_PASSWORD, DEMO_USERS, DEMO_AGENT_KEY, demoDeskPresent, seedForEnvironment } from "../lib/server/demo/seed";
import { seedScaleDesk } from "../lib/server/demo/scale-seed";
import { listScenarios, makeScenario } from "../lib/server/scenarios/scenarios";
import { snapshotSeededDesk } from "../lib/server/scenarios/reset-demo";
import { sourceHash } from "../lib/net/source-hash.mjs";
import path from "node:path";
import { fileURLToPath } from "node:url";

/** The value of `--name <v>` or `--name=<v>` in argv, or undefined. */
function argOf(name: string): string | undefined {
  const argv = process.argv.slice(2);
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === `--${name}`) return argv[i + 1] && !argv[i + 1].startsWith("--") ? argv[i + 1] : "";
    if (argv[i].startsWith(`--${name}=`)) return argv[i].slice(name.length + 3);
  }
  return undefined;
}

async function seedScale(now: Date) {
  const raw = argOf("scale")!;
  const factor = raw === "" ? 1 : Number(raw);
  if (!Number.isFinite(factor) || factor <= 0 || factor > 10) throw new Error(`--scale takes a factor between 0 and 10 (got "${raw}")`);
  const seed = Number(argOf("seed") ?? 11);
  console.log(`Scale desk (factor ${factor}, seed ${seed}, clock ${now.toISOString()}) on top of the demo desk…`);
  let lastLine = 0;
  const report = await seedScaleDesk({
    now,
    seed,
    factor,
    onProgress: (table, done, total, ms) => {
      if (done < total && Date.now() - lastLine < 2000) return;
      lastLine = Date.now();
      console.log(`  ${table.padEnd(13)} ${String(done).padStart(9)} / ${total}  ${(ms / 1000).toFixed(1)} s`);
    },
  });
  if (report.skipped) {
    console.log("The scale desk is already in this database; nothing added.");
    return;
  }
  console.log(`Scale desk ready in ${(report.ms / 1000).toFixed(1)} s: ${Object.entries(report.counts).map(([k, v]) => `${v} ${k}`).join(", ")}.`);
}

async function main() {
  const nowArg = argOf("now");
  const now = nowArg ? new Date(nowArg) : new Date();
  if (Number.isNaN(now.getTime())) throw new Error(`--now takes an ISO time (got "${nowArg}")`);
  const present = process.env.PLANDESK_DEMO !== "0" && (await demoDeskPresent());
  if (process.argv.includes("--if-empty") && present) {
    console.log("The demo desk is already in this database; left as it is (npm run db:seed seeds it again).");
    return;
  }
  const report = await seedForEnvironment(process.env, now);
  // A desk seeded into an empty database is the desk a reset brings back: kept for the resets of
  // the server built from these sources (docs/testing.md "Reset").
  if (report.demo && !present) await snapshotSeededDesk(now, sourceHash(path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..")));
  if (!report.demo) {
    if (argOf("scale") !== undefined) throw new Error("--scale adds to the demo desk; it needs demo mode (PLANDESK_DEMO must not be 0).");
    console.log("Demo mode is off (PLANDESK_DEMO=0): no demo data, users or keys are created.");
    if (report.retired && (report.retired.users.length > 0 || report.retired.keys > 0)) {
      console.warn(
        `Retired demo access left from demo mode: ${report.retired.users.length} demo users disabled without passwords, ${report.retired.keys} demo key deleted.`,
      );
    }
    if (report.adminCount === 0) console.log('No admin yet. Create the first one: npm run admin:create -- --email you@example.com [--name "Your Name"]');
    return;
  }
  const counts = report.counts!;
  console.log(
    `Demo desk ready: ${counts.accounts} accounts, ${counts.tickets} tickets, ${counts.invoices} invoices, ${counts.shipments} shipments, ${counts.runs} runs.`,
  );
  if (argOf("scale") !== undefined) await seedScale(now);
  const scenario = argOf("scenario");
  if (scenario !== undefined) {
    if (scenario === "" || scenario === "list") {
      for (const s of listScenarios()) console.log(`  ${s.name.padEnd(22)} ${s.description}`);
    } else {
      const made = await makeScenario(scenario, now);
      console.log(JSON.stringify(made, null, 2));
    }
  }
  if (process.argv.includes("--print-sign-ins")) printSignIns();
}

/** Prints the demo sign-ins (demo mode only). */
export function printSignIns() {
  console.log(`\nDemo sign-ins (password "${DEMO_PASSWORD}"):`);
  for (const u of DEMO_USERS) console.log(`  ${u.email.padEnd(28)} ${u.role}`);
  console.log(`Demo agent API key: ${DEMO_AGENT_KEY}\n`);
}

main()
  .catch((e) => {
    console.error(`seed: ${e instanceof Error ? e.message : String(e)}`);
    process.exitCode = 1;
  })
  .finally(() => prisma.$disconnect());
