/** `npm run db:seed`: seeds the demo desk when demo mode is on (PLANDESK_DEMO != "0"). */
import { serverConfig } from "../lib/server/config";
import { prisma } from "../lib/server/db";
import { DEMO_PASSWORD, DEMO_USERS, DEMO_AGENT_KEY, seedDemoDesk } from "../lib/server/seed";

async function main() {
  if (!serverConfig().demo) {
    console.log("Demo mode is off (PLANDESK_DEMO=0): no demo data, users or keys are created.");
    return;
  }
  const counts = await seedDemoDesk();
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
