// How big a request body may be, decided and enforced in front of Next.js by the custom server
// (scripts/server.mjs, plain Node: it runs before any TypeScript is compiled), so no body is read
// before it is refused. No dependencies but node:http. Types: body-limit.d.mts.
//
// What Next.js 16 does with a request body (read in node_modules/next/dist/server, 16.4):
// `attachRequestMeta` / `resolve-routes` wrap every request body in `getCloneableBody(req,
// experimental.proxyClientMaxBodySize)` (body-streams.js; default 10 MiB). When the proxy
// (proxy.ts) runs for a request with a body, `cloneBodyStream()` listens to the request's 'data'
// events and pushes every chunk into two streams: one for the proxy, and a plain Readable fed
// with push() — no backpressure — that replaces the request body for the route handler. So the
// whole body, up to the limit, is held in memory while the route reads it, and past the limit
// both streams simply END: Next.js logs a warning and the route handler sees the first 10 MiB as if
// that were the whole body (truncated, not refused). A route that never runs the proxy gets the
// request's own stream (read with backpressure). Hence:
// - every path but the streamed ones is limited here to MAX_BODY_BYTES (1 MiB), far below the
//   proxy's 10 MiB, so the proxy's copy is never truncated;
// - the streamed paths (POST /api/v1/records/batch: NDJSON imports up to 256 MiB) are excluded
//   from the proxy's matcher (proxy.ts `config.matcher`): their body reaches the route handler
//   whole and streamed. Raising proxyClientMaxBodySize instead would buffer up to the whole
//   import in memory per request. What the proxy did for them — security headers, and the API's
//   JSON 405 for another method — this module's `withBodyLimit` does (`STREAMED_PATHS`).

import http from "node:http";

/** Largest request body on every path but the streamed ones: 1 MiB (lib/server/http/http.ts MAX_BODY_BYTES). */
export const MAX_BODY_BYTES = 1024 * 1024;

/** Default largest body of a records batch (NDJSON import): 256 MiB. */
export const DEFAULT_RECORDS_BATCH_MAX_BYTES = 256 * 1024 * 1024;

/** The records batch import's path (streamed NDJSON, not through the proxy). */
export const RECORDS_BATCH_PATH = "/api/v1/records/batch";

/** Paths whose bodies stream to their route handler past the proxy, with the methods they answer. */
export const STREAMED_PATHS = Object.freeze({ [RECORDS_BATCH_PATH]: Object.freeze(["POST"]) });

/**
 * The security headers of an API answer (lib/net/security-headers.ts `securityHeaders` for an
 * `/api/…` path; a test keeps the two equal), for the streamed paths the proxy does not see.
 * `https` adds HSTS (PLANDESK_URL is https).
 */
export function apiSecurityHeaders(https) {
  return {
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "strict-origin-when-cross-origin",
    "Permissions-Policy": "camera=(), microphone=(), geolocation=(), payment=(), usb=(), serial=(), hid=()",
    "X-Frame-Options": "DENY",
    "Cross-Origin-Opener-Policy": "same-origin",
    "Content-Security-Policy": "default-src 'none'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'",
    ...(https ? { "Strict-Transport-Security": "max-age=63072000; includeSubDomains" } : {}),
  };
}

/**
 * The limits in force, from the environment: `PLANDESK_RECORDS_BATCH_MAX_BYTES` (a whole number of
 * bytes, at least MAX_BODY_BYTES; default 256 MiB). Throws an Error naming the variable when it is
 * not such a number (a typo must not silently lift or drop the limit).
 */
export function parseBodyLimits(env = process.env) {
  const raw = env.PLANDESK_RECORDS_BATCH_MAX_BYTES;
  let batch = DEFAULT_RECORDS_BATCH_MAX_BYTES;
  if (raw !== undefined && String(raw).trim() !== "") {
    const n = Number(String(raw).trim());
    if (!Number.isSafeInteger(n) || n < MAX_BODY_BYTES) throw new Error(`PLANDESK_RECORDS_BATCH_MAX_BYTES must be a whole number of bytes of at least ${MAX_BODY_BYTES}; got "${raw}"`);
    batch = n;
  }
  return Object.freeze({ defaultBytes: MAX_BODY_BYTES, recordsBatchBytes: batch });
}

/** The request's path without its query, and without one trailing slash. */
function pathOf(url) {
  const q = String(url ?? "/").indexOf("?");
  const p = q >= 0 ? String(url).slice(0, q) : String(url ?? "/");
  return p.length > 1 && p.endsWith("/") ? p.slice(0, -1) : p;
}

/** Largest body (bytes) `method` on `url` may send under `limits`: the batch limit for POST /api/v1/records/batch, else 1 MiB. */
export function bodyLimitFor(method, url, limits = parseBodyLimits({})) {
  return String(method).toUpperCase() === "POST" && pathOf(url) === RECORDS_BATCH_PATH ? limits.recordsBatchBytes : limits.defaultBytes;
}

/** The API's typed 413 body for a body over `limitBytes` (lib/server/http/http.ts's words). */
export function payloadTooLargeBody(limitBytes) {
  const size = limitBytes % (1024 * 1024) === 0 ? `${limitBytes / (1024 * 1024)} MiB` : `${Math.ceil(limitBytes / 1024)} KiB`;
  return JSON.stringify({ error: { code: "payload_too_large", message: `The request body is larger than ${size}; nothing was read or saved.`, limitBytes } });
}

/** How long a refused upload's connection stays open after the 413, discarding what arrives (ms). */
export const LINGER_MS = 2000;

/**
 * Answers `res` with the typed 413 and `Connection: close`, then closes the connection the way
 * servers must for a client still sending ("lingering close"): the answer and a FIN go out at
 * once, and what still arrives is discarded — never buffered — for at most LINGER_MS, so the
 * client reads the 413 instead of a reset (closing a socket with unread data resets it, and the
 * client loses the answer); then the connection is cut. When an answer has already begun, the
 * connection is cut at once.
 */
function refuse(req, res, limitBytes, https) {
  const socket = req.socket;
  if (res.headersSent) {
    socket?.destroy();
    return;
  }
  const body = payloadTooLargeBody(limitBytes);
  if (socket) {
    // Node ends a `Connection: close` answer with destroySoon(): end, then destroy at once.
    socket.destroySoon = () => {
      socket.end();
      setTimeout(() => socket.destroy(), LINGER_MS).unref();
    };
  }
  req.resume(); // what still arrives of the body is dropped
  res.writeHead(413, { ...apiSecurityHeaders(https), "content-type": "application/json", "content-length": Buffer.byteLength(body), connection: "close", "cache-control": "no-store" });
  res.end(body);
}

/**
 * An http server whose requests pass `withBodyLimit(handle, options)`, and which answers a client
 * that asks first (`Expect: 100-continue`, as curl does for large uploads) with the 413 instead of
 * "100 Continue" when its declared length is over the limit, so such a body is never even sent.
 */
export function createBodyLimitedServer(handle, options = {}) {
  const limits = options.limits ?? parseBodyLimits();
  const listener = withBodyLimit(handle, { ...options, limits });
  const server = http.createServer(listener);
  server.on("checkContinue", (req, res) => {
    const declared = req.headers["content-length"];
    if (declared !== undefined && Number(declared) > bodyLimitFor(req.method, req.url, limits)) return void listener(req, res);
    res.writeContinue();
    listener(req, res);
  });
  return server;
}

/**
 * Wraps a request handler (Next.js's) so that no body over its limit is read:
 * - a declared `Content-Length` over the limit is answered 413 at once, before `handle` runs;
 * - a body without one (chunked) is counted as the socket delivers it, and the request is answered
 *   413 and its connection closed as soon as the count passes the limit; `handle` never receives
 *   a byte past the limit (nothing is buffered here: chunks pass on as they come);
 * - a streamed path (STREAMED_PATHS) gets the API's security headers (the proxy does not run for
 *   it) and a JSON 405 `method_not_allowed` with `Allow` for a method it does not answer.
 * `options`: `limits` (parseBodyLimits), `https` (HSTS on the answers made here).
 */
export function withBodyLimit(handle, options = {}) {
  const limits = options.limits ?? parseBodyLimits();
  const https = Boolean(options.https);
  return (req, res) => {
    const limit = bodyLimitFor(req.method, req.url, limits);
    const streamed = STREAMED_PATHS[pathOf(req.url)];
    if (streamed) {
      for (const [k, v] of Object.entries(apiSecurityHeaders(https))) res.setHeader(k, v);
      const method = String(req.method).toUpperCase();
      if (!streamed.includes(method) && method !== "OPTIONS") {
        const allow = streamed.join(", ");
        const body = JSON.stringify({ error: { code: "method_not_allowed", message: `${pathOf(req.url)} does not answer ${method}; it answers ${allow}.`, allow: [...streamed] } });
        res.writeHead(405, { allow, "content-type": "application/json", "content-length": Buffer.byteLength(body), "cache-control": "no-store" });
        res.end(body);
        return undefined;
      }
    }
    const declared = req.headers["content-length"];
    if (declared !== undefined && Number(declared) > limit) {
      refuse(req, res, limit, https);
      return undefined;
    }
    if (declared === undefined && req.headers["transfer-encoding"] !== undefined) {
      // Count what the socket delivers: the HTTP parser hands each chunk to push().
      let seen = 0;
      let over = false;
      const push = req.push.bind(req);
      req.push = (chunk, encoding) => {
        if (over) return chunk !== null; // refused: what still arrives is dropped, not buffered
        if (chunk !== null && chunk !== undefined) {
          seen += typeof chunk === "string" ? Buffer.byteLength(chunk, encoding) : chunk.length;
          if (seen > limit) {
            over = true;
            refuse(req, res, limit, https);
            return true;
          }
        }
        return push(chunk, encoding);
      };
    }
    return handle(req, res);
  };
}
