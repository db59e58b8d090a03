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
// Env: PORT (default 3000), PLANDESK_TRUSTED_PROXIES (default none),
// PLANDESK_RECORDS_BATCH_MAX_BYTES (default 268435456).
import path from "node:path";
import { applyClientAddress, parseTrustedProxies } from "../lib/net/client-address.mjs";
import { createBodyLimitedServer, parseBodyLimits } from "../lib/net/body-limit.mjs";

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), "..");
const port = Number(process.env.PORT ?? 3000);

let trusted;
let limits;
try {
  trusted = parseTrustedProxies(process.env.PLANDESK_TRUSTED_PROXIES);
  limits = parseBodyLimits(process.env);
} catch (e) {
  console.error(`plandesk: ${e.message}`);
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
  (req, res) => {
    applyClientAddress(req, trusted);
    return handle(req, res).catch((e) => {
      console.error("plandesk: request failed", e);
      if (!res.headersSent) {
        res.statusCode = 500;
        res.end("Internal Server Error");
      }
    });
  },
  { limits, https },
);
// Idle keep-alive connections stay open 65 s (Node's default is 5 s), longer than the idle timeout
// of common load balancers (60 s): a server that closes an idle connection first races the
// client that is just reusing it, and that request fails with a reset (a 502 behind a proxy).
server.keepAliveTimeout = 65_000;
server.headersTimeout = 66_000;
server.listen(port, () => {
  const proxies = trusted.size ? ` (trusting X-Forwarded-For from ${process.env.PLANDESK_TRUSTED_PROXIES})` : "";
  console.log(`plandesk: serving on http://localhost:${port}${proxies}`);
});
for (const sig of ["SIGINT", "SIGTERM"]) {
  process.on(sig, () => {
    server.close();
    process.exit(0);
  });
}
