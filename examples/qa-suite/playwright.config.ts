/**
 * An example QA suite for a QA team's own repository: four flows against a running Plandesk
 * console (demo mode), written only with `@plandesk/client/testing` and the names docs/testing.md
 * documents. Point it at the console with PLANDESK_URL (its public origin, spelled as the
 * console's own PLANDESK_URL). Chromium: CHROMIUM_PATH, else Debian's /usr/bin/chromium.
 *
 *   PLANDESK_URL=http://localhost:3000 npx playwright test -c playwright.config.ts
 */
import { defineConfig } from "@playwright/test";

export default defineConfig({
  testDir: ".",
  testMatch: /.*\.spec\.ts/,
  outputDir: process.env.QA_OUTPUT_DIR ?? "test-results",
  // Every scenario makes a ticket, task and money of its own, so the flows could run in parallel
  // workers; one at a time keeps the example gentle on a small demo instance.
  workers: 1,
  fullyParallel: false,
  retries: 0,
  timeout: 60_000,
  expect: { timeout: 10_000 },
  reporter: [["list"]],
  use: {
    baseURL: process.env.PLANDESK_URL ?? "http://localhost:3000",
    viewport: { width: 1366, height: 900 },
    trace: "retain-on-failure",
    launchOptions: {
      executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
      args: ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run"],
    },
  },
});
