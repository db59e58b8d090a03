/**
 * `npm run db:seed`: seeds the demo desk when demo mode is on (PLANDESK_DEMO != "0"). In production
 * mode it creates nothing, retires any demo sign-in or key left from demo mode, and says how to
 * create the first admin.
 */
import { prisma } from "../lib/server/db";
import { DEMO_PASSWORD, DEMO_USERS, DEMO_AGENT_KEY, seedForEnvironment } from "../lib/server/demo/seed";

async function main() {
  const report = await seedForEnvironment(process.env);
  if (!report.demo) {
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
