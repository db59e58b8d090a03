/**
 * Next.js instrumentation hook: runs once when a server process starts. On the Node.js runtime
 * it starts the deadline sweep (escalate, then expire waiting runs; lib/server/deadlines/sweep-deadlines.ts)
 * every PLANDESK_SWEEP_SECONDS (default 30 s). The Edge runtime has no database access and skips it.
 */
export async function register() {
  if (process.env.NEXT_RUNTIME !== "nodejs") return;
  // Production mode (PLANDESK_DEMO=0) without BETTER_AUTH_SECRET: refuse to start, saying why.
  const { assertStartable, serverConfig } = await import("./lib/server/config/config");
  assertStartable();
  const { startWebhookWorker } = await import("./lib/server/webhooks/deliver-webhooks");
  startWebhookWorker(); // escalations, expiries and hand-offs to PLANDESK_WEBHOOK_URL
  if (process.env.PLANDESK_SWEEP === "0") return;
  const { startDeadlineSweeper } = await import("./lib/server/deadlines/deadline-sweeper");
  startDeadlineSweeper(serverConfig().sweepSeconds * 1000);
}
