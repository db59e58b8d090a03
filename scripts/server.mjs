#!/usr/bin/env node
// Serves the production build (`npm start`, the end-to-end server) with Node's http server in
// front of Next.js, so the console knows who it is talking to: every request's
// `x-plandesk-client-ip` header is removed and set again from the TCP socket — or, when the
// socket's peer is listed in PLANDESK_TRUSTED_PROXIES, from that proxy's X-Forwarded-For
// (lib/net/client-address.mjs). Route handlers cannot see the socket; this header is how the
// sign-in limits and better-auth learn the address. Listens on every interface like
// `next start`. Request bodies are limited here, before Next.js reads a byte of them
// (lib/net/body-limit.mjs: 1 MiB, POST /api/v1/records/batch 256 MiB): a Content-Length over
// the limit is answered 413 at once, a chunked body is cut with 413 as it passes the limit.
// On SIGTERM or SIGINT it drains (lib/net/drain.mjs): GET /api/health/ready answers 503
// `draining`, the listener closes after a notice (SIGTERM only), live streams end with a reconnect
// hint, requests in flight finish within the bound, the database connections are released, and the
// process exits 0 (1 when requests were still open at the bound). While it listens it is registered
// in `.servers/<pid>.json` (lib/net/server-registry.mjs), so `npm start` does not rebuild `.next`
// under it. A page whose render failed because the database could not be reached answers 503
// with `Retry-After` (lib/net/request-outcome.mjs), like the API's `database_unavailable`.
// Env: PORT (default 3000), PLANDESK_TRUSTED_PROXIES (default none),
// PLANDESK_RECORDS_BATCH_MAX_BYTES (default 268435456), PLANDESK_DRAIN_SECONDS (default 25),
// PLANDESK_DRAIN_NOTICE_SECONDS (default 5).
import path from "node:path";
import { applyClientAddress, parseTrustedProxies } from "../lib/net/client-address.mjs";
import { createBodyLimitedServer, parseBodyLimits } from "../lib/net/body-limit.mjs";
import { drainServer, parseDrainSettings, trackRequests } from "../lib/net/drain.mjs";
import { registerServer, unregisterServer } from "../lib/net/server-registry.mjs";
import { log } from "../lib/net/log.mjs";
import { answerDatabaseUnavailableAs503, runWithRequestOutcome } from "../lib/net/request-outcome.mjs";

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), "..");
const port = Number(process.env.PORT ?? 3000);

let trusted;
let limits;
let drain;
try {
  trusted = parseTrustedProxies(process.env.PLANDESK_TRUSTED_PROXIES);
  limits = parseBodyLimits(process.env);
  drain = parseDrainSettings(process.env);
} catch (e) {
  log.error(`plandesk: ${e.message}`);
  process.exit(1);
}

// `next start` runs in production mode; so does this server (set before Next.js loads).
process.env.NODE_ENV = "production";
const { default: next } = await import("next");
const app = next({ dev: false, dir: root, port, hostname: "localhost" });
const handle = app.getRequestHandler();
await app.prepare();

const https = String(process.env.PLANDESK_URL ?? "").startsWith("https://");
const server = createBodyLimitedServer(
  (req, res) =>
    runWithRequestOutcome(() => {
      applyClientAddress(req, trusted);
      // A page whose render failed on a lost database answers 503 with Retry-After, not 500
      // (instrumentation.ts onRequestError marks the request).
      answerDatabaseUnavailableAs503(res);
      return handle(req, res).catch((e) => {
        log.error({ err: e }, "plandesk: request failed");
        if (!res.headersSent) {
          res.statusCode = 500;
          res.end("Internal Server Error");
        }
      });
    }),
  { limits, https },
);
// Idle keep-alive connections stay open 65 s (Node's default is 5 s), longer than the idle timeout
// of common load balancers (60 s): a server that closes an idle connection first races the
// client that is just reusing it, and that request fails with a reset (a 502 behind a proxy).
server.keepAliveTimeout = 65_000;
server.headersTimeout = 66_000;
const tracker = trackRequests(server);
let registration = null;
server.listen(port, () => {
  const proxies = trusted.size ? ` (trusting X-Forwarded-For from ${process.env.PLANDESK_TRUSTED_PROXIES})` : "";
  log.info(`plandesk: serving on http://localhost:${port}${proxies}`);
  try {
    registration = registerServer(root, { pid: process.pid, port });
  } catch (e) {
    log.error(`plandesk: could not register this server in ${path.join(root, ".servers")} (${e.code ?? e.message}); npm start will not know it runs`);
  }
});
process.on("exit", () => {
  if (registration) unregisterServer(registration);
});
// A promise that failed with nobody waiting for it (a background pass, a stream's timer) is logged
// with its stack and the server goes on answering: one stray rejection must not end every decision
// in flight. An exception nobody caught leaves the process in an unknown state: it is logged with
// its stack, then the process exits 1 (a supervisor restarts it; a drain would trust that state).
process.on("unhandledRejection", (reason) => {
  log.error({ err: reason }, "plandesk: a promise failed with nobody waiting for it");
});
process.on("uncaughtException", (e, origin) => {
  log.fatal({ err: e, origin }, "plandesk: uncaught exception; exiting");
  process.exit(1);
});
let draining = false;
for (const sig of ["SIGINT", "SIGTERM"]) {
  process.on(sig, () => {
    if (draining) {
      log.info(`plandesk: ${sig} again while draining; the drain goes on (at most ${drain.boundMs} ms from the first signal)`);
      return;
    }
    draining = true;
    // SIGINT is a person at a terminal: no notice for a load balancer.
    const noticeMs = sig === "SIGTERM" ? drain.noticeMs : 0;
    drainServer(server, tracker, { reason: sig, noticeMs, boundMs: drain.boundMs })
      .then(({ finished }) => process.exit(finished ? 0 : 1))
      .catch((e) => {
        log.error({ err: e }, "plandesk: drain failed");
        process.exit(1);
      });
  });
}
