/**
 * `npm run db:reset`: resets the database of DATABASE_URL to the freshly seeded demo desk
 * (lib/server/scenarios/reset-demo.ts; the demo people's sign-ins stay valid). Demo mode only:
 * with PLANDESK_DEMO=0 it refuses and changes nothing. Migrates first, so it also works on a new
 * database. Prints how long the reset took.
 */
import { spawnSync } from "node:child_process";
import path from "node:path";
import { prisma } from "../lib/server/db/db";
import { resetDemoDesk } from "../lib/server/scenarios/reset-demo";

async function main() {
  if (process.env.PLANDESK_DEMO === "0") throw new Error("db:reset resets the demo desk; it refuses in production mode (PLANDESK_DEMO=0).");
  const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), "..");
  const migrated = spawnSync(path.join(root, "node_modules", ".bin", "tsx"), [path.join(root, "scripts", "migrate.ts"), "deploy"], { stdio: "inherit", env: process.env });
  if (migrated.status !== 0) throw new Error("the migration failed; nothing was reset");
  const { ms, seeded } = await resetDemoDesk(new Date());
  console.log(`Demo desk reset in ${ms} ms: ${seeded.accounts} accounts, ${seeded.tickets} tickets, ${seeded.runs} runs.`);
}

main()
  .catch((e) => {
    console.error(`reset: ${e instanceof Error ? e.message : String(e)}`);
    process.exitCode = 1;
  })
  .finally(() => prisma.$disconnect());
