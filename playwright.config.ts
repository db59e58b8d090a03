import { defineConfig, devices } from "@playwright/test";

// End-to-end tests drive Debian's Chromium (no browser download here) against the production
// build served on its own port with a fresh database (scripts/e2e-server.mjs), or, with
// PLANDESK_E2E_BASE_URL set, against an instance that is already running there (demo mode; no
// server is started, and the specs take the desk as they find it — reset it first with
// `POST /api/demo/reset` or `npm run db:reset`).
const PORT = Number(process.env.E2E_PORT ?? 3100);
const RUNNING = process.env.PLANDESK_E2E_BASE_URL?.replace(/\/$/, "");
export const BASE_URL = RUNNING ?? `http://localhost:${PORT}`;

const DESKTOP = { ...devices["Desktop Chrome"], viewport: { width: 1366, height: 900 } };
/** Spec files that submit runs for task_74991 (the reference case). */
const TICKET_74991 = /(reference-case|effects-preview|keyboard|agents-[a-z-]+|skeleton)\.spec\.ts/;
/** Spec files that save gate-policy versions (each restores the policy it found when it ends). */
const GATE_POLICY = /(gate-policy|signed-approval)\.spec\.ts/;
/** Spec files that change what every person of a role may do (a role-wide passkey requirement): run alone, after all others. */
const ALONE_AFTER_ALL = /passkeys-required\.spec\.ts/;

export default defineConfig({
  testDir: "./e2e",
  outputDir: "./test-results",
  fullyParallel: true,
  workers: 2,
  retries: 0,
  // Budgets for a busy two-core machine (CI runs the whole suite beside its own servers: two to
  // three times slower than a quiet one). Every wait is on a condition, so a passing test takes
  // no longer for them; only a failing one takes longer to say so.
  timeout: 120_000,
  expect: { timeout: 20_000 },
  // the list, then (only when it happened) why the suite's own server exited in the middle of the run
  reporter: [["list"], ["./e2e/server-exit-reporter.ts"]],
  use: {
    baseURL: BASE_URL,
    trace: "retain-on-failure",
    screenshot: "only-on-failure",
    launchOptions: {
      executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
      args: ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--disable-quic", "--no-first-run"],
    },
  },
  projects: [
    // its teardown runs once every project that depends on it has finished
    { name: "setup", testMatch: /auth\.setup\.ts/, teardown: "alone-after-all" },
    { name: "chromium", testIgnore: [TICKET_74991, GATE_POLICY, ALONE_AFTER_ALL], use: DESKTOP, dependencies: ["setup"] },
    // One task, one plan: a new run for task_74991 supersedes the one before, so the
    // tests that propose runs for the reference case take turns on one worker.
    { name: "ticket-74991", testMatch: TICKET_74991, fullyParallel: false, workers: 1, use: DESKTOP, dependencies: ["setup"] },
    // The gate policy is one versioned document: specs that save versions of it take turns too.
    { name: "gate-policy", testMatch: GATE_POLICY, fullyParallel: false, workers: 1, use: DESKTOP, dependencies: ["setup"] },
    // A role-wide passkey requirement would send every supervisor signed in elsewhere to register
    // one: these specs run as setup's teardown, when no other test is running, and sign in themselves.
    { name: "alone-after-all", testMatch: ALONE_AFTER_ALL, workers: 1, use: DESKTOP },
  ],
  webServer: RUNNING
    ? undefined
    : {
        command: "node scripts/e2e-server.mjs",
        url: `${BASE_URL}/sign-in`,
        timeout: 180_000,
        reuseExistingServer: false,
        env: { PORT: String(PORT), E2E_PORT: String(PORT) },
        stdout: "pipe",
        stderr: "pipe",
      },
});
