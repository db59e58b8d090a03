/**
 * Test fixture for lib/server/rate-limits/rate-bucket.test.ts: one "app instance" — a separate OS
 * process with its own Prisma client (its own connection or pool) on the test database of
 * DATABASE_URL — that takes tokens of one bucket on command. Reads one JSON line on stdin,
 *   {key, capacity, refillPerSecond, count, startAt, now}
 * waits until `startAt` (epoch ms: both instances fire at that moment, so their statements really
 * overlap), makes `count` parallel takes at the clock `now` (ISO), and writes one JSON line
 * `{allowed, refused}` (how many of each) on stdout. Not used by the app.
 */
import readline from "node:readline";
import { prisma } from "../lib/server/db/db";
import { takeRateToken } from "../lib/server/rate-limits/rate-bucket";

type Command = { key: string; capacity: number; refillPerSecond: number; count: number; startAt: number; now: string };

async function main() {
  await prisma.rateBucket.count(); // open the connection before the start line
  process.stdout.write(JSON.stringify({ ready: true }) + "\n");
  for await (const line of readline.createInterface({ input: process.stdin })) {
    if (!line.trim()) continue;
    const cmd = JSON.parse(line) as Command;
    await new Promise((r) => setTimeout(r, Math.max(0, cmd.startAt - Date.now())));
    const rule = { capacity: cmd.capacity, refillPerSecond: cmd.refillPerSecond };
    const decisions = await Promise.all(Array.from({ length: cmd.count }, () => takeRateToken(prisma, cmd.key, rule, new Date(cmd.now))));
    const allowed = decisions.filter((d) => d.allowed).length;
    process.stdout.write(JSON.stringify({ allowed, refused: decisions.length - allowed }) + "\n");
    break;
  }
  await prisma.$disconnect();
}

main().catch((e) => {
  console.error(e);
  process.exitCode = 1;
});
