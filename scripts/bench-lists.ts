/**
 * `npx tsx scripts/bench-lists.ts` (DATABASE_URL = a seeded database, e.g. after
 * `npm run db:seed -- --scale`): times what every page and list of the console reads, through the
 * same service functions the pages and route handlers call — the queue (each status, first and a
 * later page), a run page, its audit trail, escalations, reconciliation, denials, insights, the
 * admin users list and the account-data search — each `--repeat` times (default 5), and prints the
 * median and the worst in ms. Writes nothing but what the services themselves write (a sweep).
 * each should answer well under a second at scale size.
 */
import { RUN_STATUSES } from "../lib/lifecycle/run-state";

const repeat = Number(process.argv.find((a) => a.startsWith("--repeat="))?.slice(9) ?? 5);

async function main() {
  const { prisma } = await import("../lib/server/db/db");
  const { loadViewer, deskScope } = await import("../lib/server/auth/session");
  const { listQueue } = await import("../lib/server/runs/list-queue");
  const { getRunDetails } = await import("../lib/server/runs/get-run-details");
  const { getRunAudit } = await import("../lib/server/audit/run-audit");
  const { listEscalations } = await import("../lib/server/deadlines/list-escalations");
  const { listNeedsReconciliation } = await import("../lib/server/claims/list-reconciliation");
  const { listDenials } = await import("../lib/server/audit/list-denials");
  const { loadInsights } = await import("../lib/server/audit/insights");
  const { listUsers } = await import("../lib/server/admin/admin");
  const { searchRecords } = await import("../lib/server/account-data/search-records");
  const operator = (await loadViewer("usr_operator"))!;
  const supervisor = (await loadViewer("usr_supervisor"))!;
  const admin = (await loadViewer("usr_admin"))!;
  const now = new Date();
  const runCount = await prisma.run.count();
  const eventCount = await prisma.auditEvent.count();
  console.log(`database: ${runCount} runs, ${eventCount} audit events`);
  const edited = await prisma.run.findFirst({ where: { editCount: { gt: 0 } }, orderBy: { createdAt: "desc" }, select: { id: true } });
  const completed = await prisma.run.findFirst({ where: { status: "completed" }, orderBy: { createdAt: "asc" }, select: { id: true } });

  const cases: [string, () => Promise<unknown>][] = [];
  for (const status of RUN_STATUSES) cases.push([`queue ${status} (operator)`, () => listQueue({ status, scope: deskScope(operator) }, now)]);
  cases.push(["queue all (supervisor)", () => listQueue({ scope: deskScope(supervisor) }, now)]);
  cases.push([
    "queue completed, page 5 (operator)",
    async () => {
      let cursor: string | null = null;
      for (let p = 0; p < 5; p++) cursor = (await listQueue({ status: "completed", scope: deskScope(operator), cursor }, now)).nextCursor;
    },
  ]);
  if (edited) cases.push(["run page (edited run)", () => getRunDetails(edited.id, supervisor, now)]);
  if (completed) cases.push(["run page (oldest completed run)", () => getRunDetails(completed.id, supervisor, now)]);
  if (edited) cases.push(["audit trail (edited run)", () => getRunAudit(supervisor, edited.id, now)]);
  cases.push(["escalations", () => listEscalations(supervisor, now)]);
  cases.push(["reconciliation", () => listNeedsReconciliation(supervisor, { now })]);
  cases.push(["denials", () => listDenials(supervisor)]);
  cases.push([
    "denials, page 5",
    async () => {
      let before: number | null | undefined = undefined;
      for (let p = 0; p < 5; p++) before = (await listDenials(supervisor, { before: before ?? undefined })).nextBefore;
    },
  ]);
  cases.push(["insights (all time)", () => loadInsights(supervisor, now)]);
  cases.push(["insights (last 7 days)", () => loadInsights(supervisor, now, { since: new Date(now.getTime() - 7 * 86_400_000) })]);
  cases.push(["admin users", () => listUsers(admin)]);
  cases.push(["account-data search invoice 'in_10001'", () => searchRecords(operator, "invoice", "in_10001")]);
  cases.push(["account-data search ticket '2000'", () => searchRecords(operator, "ticket", "2000")]);
  cases.push(["account-data search account 'acc_s'", () => searchRecords(operator, "account", "acc_s")]);
  cases.push(["account-data search shipment 'sh_2'", () => searchRecords(operator, "shipment", "sh_2")]);

  const rows: { name: string; median: number; worst: number }[] = [];
  for (const [name, fn] of cases) {
    const times: number[] = [];
    for (let k = 0; k < repeat; k++) {
      const t = performance.now();
      try {
        await fn();
      } catch (e) {
        console.log(`${name}: ${e instanceof Error ? e.message : String(e)}`);
        break;
      }
      times.push(performance.now() - t);
    }
    times.sort((a, b) => a - b);
    const row = { name, median: Math.round(times[Math.floor(times.length / 2)] ?? -1), worst: Math.round(times.at(-1) ?? -1) };
    rows.push(row);
    console.log(`${name.padEnd(44)} median ${String(row.median).padStart(5)} ms   worst ${String(row.worst).padStart(5)} ms`);
  }
  await prisma.$disconnect();
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
