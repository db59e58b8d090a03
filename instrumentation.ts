/**
 * Next.js instrumentation hook: runs once when a server process starts. On the Node.js runtime
 * it starts the deadline sweep (escalate, then expire waiting runs; lib/server/deadlines/sweep-deadlines.ts)
 * every PLANDESK_SWEEP_SECONDS (default 30 s), and the MCP gateway's executor loop (every
 * PLANDESK_GATEWAY_SECONDS, default 2 s; PLANDESK_GATEWAY_EXECUTOR=0 turns it off); in demo mode also
 * the sweep of staged writes nobody can promote any more (lib/server/demo/staging-sweeper.ts). The Edge runtime has no database access and skips it.
 * First of all it sets up OpenTelemetry tracing (lib/server/trace/start-tracing.ts: OTLP/HTTP when
 * OTEL_EXPORTER_OTLP_ENDPOINT is set, otherwise trace ids are only propagated).
 */
export async function register() {
  if (process.env.NEXT_RUNTIME !== "nodejs") return;
  markOnRequestError = (await import("./lib/server/http/page-error")).markPageError;
  const { startTracing } = await import("./lib/server/trace/start-tracing");
  startTracing();
  // Production mode (PLANDESK_DEMO=0) without BETTER_AUTH_SECRET: refuse to start, saying why.
  const { assertStartable, serverConfig } = await import("./lib/server/config/config");
  assertStartable();
  const { startWebhookWorker } = await import("./lib/server/webhooks/deliver-webhooks");
  startWebhookWorker(); // escalations, expiries and hand-offs to PLANDESK_WEBHOOK_URL
  if (process.env.PLANDESK_GATEWAY_EXECUTOR !== "0") {
    // Plandesk executes the approved writes its MCP gateway holds (docs/design.md "MCP gateway"); every instance may: the claim decides who calls
    const { startGatewayExecutor, gatewayPassIntervalMs } = await import("./lib/server/gateway/execute-gateway-steps");
    startGatewayExecutor(gatewayPassIntervalMs());
  }
  if (process.env.PLANDESK_SWEEP === "0") return;
  const { startDeadlineSweeper } = await import("./lib/server/deadlines/deadline-sweeper");
  startDeadlineSweeper(serverConfig().sweepSeconds * 1000);
  if (serverConfig().demo) {
    // the reference target's staged writes that can no longer be promoted are discarded (demo mode only, where the target exists)
    const { startStagingSweeper } = await import("./lib/server/demo/staging-sweeper");
    startStagingSweeper(serverConfig().sweepSeconds * 1000);
  }
}

/** Set by `register` on the Node.js runtime: records a render's database failure (lib/server/http/page-error.ts). */
let markOnRequestError: ((err: unknown) => void) | undefined;

/**
 * Next.js calls this for every error a server component, route handler, server action or proxy
 * throws, before the response's status is written: a page whose render failed because the
 * database could not be reached is marked so the custom server answers it 503 with
 * `Retry-After` instead of 500 (lib/net/request-outcome.mjs). Synchronous on purpose: the mark
 * must be in place before the head goes out.
 */
export function onRequestError(err: unknown): void {
  markOnRequestError?.(err);
}
