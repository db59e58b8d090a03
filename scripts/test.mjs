#!/usr/bin/env node
// `npm test`: everything CI runs — lint (Next.js's ESLint rules), unit and integration tests (Vitest) on SQLite, the integration
// tests again on PostgreSQL (every test file that opens a database; each creates and drops its
// own database plandesk_test_<random> on PLANDESK_TEST_PG_URL, default
// postgresql://postgres@127.0.0.1:5432/postgres), the production build (which type-checks),
// the proof from outside (scripts/outside-proof.mjs: the client package packed, installed in a
// scratch project outside the repository, its examples and example QA suite run from there
// against an instance of that build), then end-to-end tests (Playwright in Debian's Chromium).
//   npm test                     all of it
//   npm run test:pg              only the PostgreSQL integration run
//   PLANDESK_SKIP_PG=1 npm test  skip the PostgreSQL run (say so in a pull request)
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";

process.env.NEXT_TELEMETRY_DISABLED = "1";
const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), "..");
process.chdir(root);

/** Vitest files that open a database (the integration suite): they run on both dialects. */
function databaseTestFiles() {
  const out = [];
  const walk = (dir) => {
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
      const p = path.join(dir, e.name);
      if (e.isDirectory()) {
        if (e.name !== "node_modules" && e.name !== "generated" && e.name !== "dist") walk(p);
      } else if (e.name.endsWith(".test.ts") && /prepareTestDatabase|createPrisma|createPrimaryAndStandby|\bdeploy\(/.test(fs.readFileSync(p, "utf8"))) {
        out.push(path.relative(root, p));
      }
    }
  };
  for (const d of ["lib", "scripts", "app", "packages"]) walk(path.join(root, d));
  return out.sort();
}

const pgOnly = process.argv.includes("--postgres-only");
const steps = [];
if (!pgOnly) steps.push({ cmd: "npx", args: ["eslint", "."], env: {} });
if (!pgOnly) steps.push({ cmd: "npx", args: ["vitest", "run"], env: {} });
if (pgOnly || process.env.PLANDESK_SKIP_PG !== "1") {
  steps.push({ cmd: "npx", args: ["vitest", "run", ...databaseTestFiles()], env: { PLANDESK_TEST_DB: "postgres" }, label: "vitest run <database tests> on PostgreSQL" });
}
if (!pgOnly) {
  steps.push({ cmd: "npx", args: ["next", "build"], env: {} });
  steps.push({ cmd: "node", args: ["scripts/outside-proof.mjs"], env: {} });
  steps.push({ cmd: "npx", args: ["playwright", "test"], env: {} });
}
for (const { cmd, args, env, label } of steps) {
  const shown = label ?? `${cmd} ${args.join(" ")}`;
  console.log(`\n▶ ${shown}`);
  const r = spawnSync(cmd, args, { stdio: "inherit", env: { ...process.env, ...env } });
  if (r.status !== 0) {
    console.error(`\nnpm test: "${shown}" failed (exit ${r.status ?? r.signal}).`);
    process.exit(r.status ?? 1);
  }
}
