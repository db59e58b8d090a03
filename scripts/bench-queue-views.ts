/**
 * `npx tsx scripts/bench-queue-views.ts` (DATABASE_URL = a seeded database, e.g. after
 * `npm run db:seed -- --scale`): times the queue's ownership views and filters and the
 * run page's ownership panel through the service functions the route handlers call, each
 * `--repeat` times (default 5); prints the median and worst in ms and writes
 * bench/results/queue-views.md. They must cost at scale size about what they cost on the demo desk.
 */
import fs from "node:fs";
import path from "node:path";

const repeat = Number(process.argv.find((a) => a.startsWith("--repeat="))?.slice(9) ?? 5);

async function main() {
  const { prisma } = await import("../lib/server/db/db");
  const { loadViewer, deskScope } = await import("../lib/server/auth/session");
  const { listQueue } = await import("../lib/server/runs/list-queue");
  const { getRunOwnership } = await import("../lib/server/ownership/get-run-ownership");
  const operator = (await loadViewer("usr_operator"))!;
  const supervisor = (await loadViewer("usr_supervisor"))!;
  const now = new Date();
  const [runs, steps] = [await prisma.run.count(), await prisma.runStep.count()];
  const someRun = await prisma.run.findFirstOrThrow({ where: { status: "pending_review" }, orderBy: { createdAt: "desc" }, select: { id: true } });
  const cases: [string, () => Promise<unknown>][] = [
    ["queue: all (operator)", () => listQueue({ scope: deskScope(operator), viewer: operator, status: "pending_review" }, now)],
    ["queue: mine", () => listQueue({ scope: deskScope(operator), viewer: operator, view: "mine" }, now)],
    ["queue: unassigned", () => listQueue({ scope: deskScope(operator), viewer: operator, view: "unassigned" }, now)],
    ["queue: beyond my limit", () => listQueue({ scope: deskScope(operator), viewer: operator, view: "beyond_my_limit" }, now)],
    ["queue: near deadline", () => listQueue({ scope: deskScope(operator), viewer: operator, view: "near_deadline" }, now)],
    ["queue: requested of me", () => listQueue({ scope: deskScope(operator), viewer: operator, view: "requested" }, now)],
    ["queue: tool issue_refund ≥ $1,000", () => listQueue({ scope: deskScope(operator), viewer: operator, tool: "issue_refund", minAmountMinor: 100000 }, now)],
    ["queue: account prefix acc_1", () => listQueue({ scope: deskScope(operator), viewer: operator, accountId: "acc_1" }, now)],
    ["queue: older than 24 h", () => listQueue({ scope: deskScope(operator), viewer: operator, minAgeHours: 24 }, now)],
    ["queue: supervisor, all desks, unassigned", () => listQueue({ scope: deskScope(supervisor), viewer: supervisor, view: "unassigned" }, now)],
    ["run page: ownership panel", () => getRunOwnership(operator, someRun.id, now)],
  ];
  const rows: string[] = [];
  for (const [name, fn] of cases) {
    const ms: number[] = [];
    for (let i = 0; i < repeat; i++) {
      const t = performance.now();
      await fn().catch((e: unknown) => console.error(name, e));
      ms.push(performance.now() - t);
    }
    ms.sort((a, b) => a - b);
    rows.push(`| ${name} | ${ms[Math.floor(ms.length / 2)].toFixed(1)} | ${ms[ms.length - 1].toFixed(1)} |`);
    console.log(rows.at(-1));
  }
  const out = [
    `# Queue views and the ownership panel`,
    ``,
    `${now.toISOString()} · ${runs} runs, ${steps} run_step rows · ${repeat} repeats · ${process.env.DATABASE_URL?.split(":")[0] ?? "file"} · load average ${(await import("node:os")).loadavg()[0].toFixed(1)}`,
    ``,
    `| what | median ms | worst ms |`,
    `|---|---:|---:|`,
    ...rows,
    ``,
  ].join("\n");
  fs.mkdirSync(path.join(process.cwd(), "bench", "results"), { recursive: true });
  fs.writeFileSync(path.join(process.cwd(), "bench", "results", "queue-views.md"), out);
  await prisma.$disconnect();
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
