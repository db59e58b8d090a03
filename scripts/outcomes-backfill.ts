/**
 * `npm run outcomes:backfill [-- --recompute] [-- --batch 200]`: writes the outcome record of every
 * run that ended before outcome records existed (lib/server/outcomes/backfill-outcomes.ts), from
 * what was written. Batched (one keyset page of run ids at a time, each run's record in its own
 * short transaction; bounded memory on a desk of hundreds of thousands of runs) and idempotent: run it again and it writes only what is missing.
 * `--recompute` rewrites every ended run's record (after the record gained fields); labels are kept.
 * Run it after `npm run db:migrate`. Exit code 0 on success, 1 on an error, 2 on bad usage.
 */
import { parseArgs } from "node:util";
import { backfillOutcomes } from "../lib/server/outcomes/backfill-outcomes";
import { prisma } from "../lib/server/db/db";

const USAGE = "Usage: npm run outcomes:backfill [-- --recompute] [-- --batch <1–5000>]";

async function main() {
  let values: { recompute?: boolean; batch?: string; help?: boolean };
  try {
    ({ values } = parseArgs({ args: process.argv.slice(2), options: { recompute: { type: "boolean" }, batch: { type: "string" }, help: { type: "boolean", short: "h" } }, strict: true }));
  } catch (e) {
    console.error(`${e instanceof Error ? e.message : String(e)}\n${USAGE}`);
    process.exit(2);
  }
  if (values.help) {
    console.log(USAGE);
    return;
  }
  const batchSize = values.batch === undefined ? undefined : Number(values.batch);
  if (batchSize !== undefined && !(Number.isInteger(batchSize) && batchSize >= 1 && batchSize <= 5000)) {
    console.error(`--batch takes a whole number from 1 to 5000 (got "${values.batch}").\n${USAGE}`);
    process.exit(2);
  }
  const report = await backfillOutcomes({
    batchSize,
    recompute: values.recompute,
    onBatch: (r) => process.stderr.write(`\r${r.scanned.toLocaleString("en-US")} ended runs read, ${r.recorded.toLocaleString("en-US")} outcome records written (${(r.ms / 1000).toFixed(1)} s)`),
  });
  process.stderr.write("\n");
  console.log(
    `Outcome records: ${report.recorded.toLocaleString("en-US")} written, ${report.withoutWrite.toLocaleString("en-US")} ended runs wrote nothing (no record), ${report.batches} batches, ${(report.ms / 1000).toFixed(1)} s.`,
  );
}

main()
  .catch((e) => {
    console.error(e instanceof Error ? e.message : e);
    process.exitCode = 1;
  })
  .finally(() => prisma.$disconnect());
