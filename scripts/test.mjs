#!/usr/bin/env node
// `npm test`: everything CI runs — lint (Next.js's ESLint rules), unit and integration tests
// (Vitest), the production build (which type-checks), then end-to-end tests (Playwright in
// Debian's Chromium).
import { spawnSync } from "node:child_process";

process.env.NEXT_TELEMETRY_DISABLED = "1";
const steps = [
  ["npx", ["eslint", "."]],
  ["npx", ["vitest", "run"]],
  ["npx", ["next", "build"]],
  ["npx", ["playwright", "test"]],
];
for (const [cmd, args] of steps) {
  console.log(`\n▶ ${cmd} ${args.join(" ")}`);
  const r = spawnSync(cmd, args, { stdio: "inherit", env: process.env });
  if (r.status !== 0) {
    console.error(`\nnpm test: "${cmd} ${args.join(" ")}" failed (exit ${r.status ?? r.signal}).`);
    process.exit(r.status ?? 1);
  }
}
