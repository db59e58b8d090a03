/**
 * The body limit in front of Next.js (lib/net/body-limit.mjs, used by scripts/server.mjs): the
 * decision as plain functions, and the request function behind a real `http` server wrapping a
 * stub handler that reads the body the way a route handler does (so what the handler receives is
 * what Next.js would have received).
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as pageStaticInfo from "next/dist/build/analysis/get-page-static-info";
import { config as proxyConfig } from "@/proxy";
import { MAX_BODY_BYTES as ROUTE_MAX_BODY_BYTES } from "@/lib/server/http/http";
import { securityHeaders } from "./security-headers";
import { apiSecurityHeaders, bodyLimitFor, createBodyLimitedServer, MAX_BODY_BYTES, parseBodyLimits, payloadTooLargeBody, RECORDS_BATCH_PATH, withBodyLimit } from "./body-limit.mjs";

const MiB = 1024 * 1024;

describe("the limit decision", () => {
  it("1 MiB everywhere; POST /api/v1/records/batch gets the batch limit (256 MiB by default, or the env's)", () => {
    const limits = parseBodyLimits({});
    expect(limits).toEqual({ defaultBytes: MiB, recordsBatchBytes: 256 * MiB });
    expect(bodyLimitFor("POST", "/api/runs/r1/approvals", limits)).toBe(MiB);
    expect(bodyLimitFor("POST", RECORDS_BATCH_PATH, limits)).toBe(256 * MiB);
    expect(bodyLimitFor("post", `${RECORDS_BATCH_PATH}?dryRun=1`, limits)).toBe(256 * MiB);
    expect(bodyLimitFor("POST", `${RECORDS_BATCH_PATH}/`, limits)).toBe(256 * MiB);
    expect(bodyLimitFor("PUT", RECORDS_BATCH_PATH, limits)).toBe(MiB);
    expect(bodyLimitFor("POST", "/api/v1/records/batchx", limits)).toBe(MiB);
    expect(bodyLimitFor("POST", "/api/v1/records/batch/../../runs", limits)).toBe(MiB);
    expect(parseBodyLimits({ PLANDESK_RECORDS_BATCH_MAX_BYTES: "5000000" }).recordsBatchBytes).toBe(5_000_000);
    expect(parseBodyLimits({ PLANDESK_RECORDS_BATCH_MAX_BYTES: "" }).recordsBatchBytes).toBe(256 * MiB);
  });

  it("a batch limit that is not a whole number of bytes of at least 1 MiB is an error naming the variable", () => {
    for (const bad of ["abc", "1.5", "-1", "1000", "1e400", "256MB"]) expect(() => parseBodyLimits({ PLANDESK_RECORDS_BATCH_MAX_BYTES: bad }), bad).toThrow(/PLANDESK_RECORDS_BATCH_MAX_BYTES/);
  });

  it("the server's 1 MiB is the route handlers' own limit (lib/server/http/http.ts)", () => {
    expect(MAX_BODY_BYTES).toBe(ROUTE_MAX_BODY_BYTES);
  });

  it("the 413 is the API's typed error with the limit", () => {
    expect(JSON.parse(payloadTooLargeBody(MAX_BODY_BYTES))).toEqual({ error: { code: "payload_too_large", message: expect.stringContaining("1 MiB"), limitBytes: MiB } });
  });

  it("the streamed path's security headers are the API's (lib/net/security-headers.ts)", () => {
    expect(apiSecurityHeaders(false)).toEqual(securityHeaders("/api/v1/records/batch", { nonce: null }));
    expect(apiSecurityHeaders(true)).toEqual(securityHeaders("/api/v1/records/batch", { nonce: null, https: true }));
  });

  it("the proxy (Next.js's own matcher compilation) runs for every path but static files and the records batch", () => {
    // Next.js's own compilation of a proxy matcher (not in its type declarations)
    const { getMiddlewareMatchers } = pageStaticInfo as unknown as { getMiddlewareMatchers: (m: string[], c: object) => { regexp: string }[] };
    const [m] = getMiddlewareMatchers(proxyConfig.matcher, {});
    const re = new RegExp(m.regexp);
    expect(re.test(RECORDS_BATCH_PATH)).toBe(false);
    expect(re.test(`${RECORDS_BATCH_PATH}/`)).toBe(false);
    expect(re.test("/_next/static/chunk.js")).toBe(false);
    for (const p of ["/", "/runs/abc", "/api/runs", "/api/v1/records", "/api/v1/records/batchx", "/api/v1/records/batch/more", "/api/v1/tasks"]) expect(re.test(p), p).toBe(true);
  });
});

/** What the stub handler saw: how many requests reached it and the bytes each read. */
const seen: { calls: number; bytes: number[] } = { calls: 0, bytes: [] };
let server: http.Server;
let port = 0;
const BATCH_LIMIT = 3 * MiB;

beforeAll(async () => {
  const stub = async (req: http.IncomingMessage, res: http.ServerResponse) => {
    seen.calls++;
    let n = 0;
    try {
      for await (const chunk of req) n += (chunk as Buffer).length;
    } catch {
      return; // the connection was cut
    }
    seen.bytes.push(n);
    if (!res.headersSent) res.end(JSON.stringify({ bytes: n }));
  };
  server = createBodyLimitedServer(stub, { limits: parseBodyLimits({ PLANDESK_RECORDS_BATCH_MAX_BYTES: String(BATCH_LIMIT) }) });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  port = (server.address() as AddressInfo).port;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((r) => server.close(() => r()));
});

type Answer = { status: number; headers: http.IncomingHttpHeaders; body: string; clientError: string | null };

/** Sends `size` bytes in 64 KiB chunks (chunked unless `contentLength`); resolves with the answer, whatever happened to the upload. */
function send(method: string, path: string, size: number, opts: { contentLength?: boolean } = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    let clientError: string | null = null;
    const headers: Record<string, string | number> = { "content-type": "application/x-ndjson" };
    if (opts.contentLength) headers["content-length"] = size;
    const req = http.request({ host: "127.0.0.1", port, method, path, headers, agent: false }, (res) => {
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (c: string) => (body += c));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body, clientError }));
      res.on("error", reject);
    });
    req.on("error", (e) => {
      clientError = (e as NodeJS.ErrnoException).code ?? e.message;
      // the connection died before any answer: no status
      setTimeout(() => resolve({ status: 0, headers: {}, body: "", clientError }), 200);
    });
    const chunk = Buffer.alloc(64 * 1024, 0x61);
    let sent = 0;
    const pump = () => {
      while (sent < size) {
        const part = chunk.subarray(0, Math.min(chunk.length, size - sent));
        sent += part.length;
        if (req.destroyed) return;
        if (!req.write(part)) return void req.once("drain", pump);
      }
      req.end();
    };
    if (size === 0) req.end();
    else pump();
  });
}

describe("the request function behind a real http server", () => {
  it("a body within the limit reaches the handler whole (declared length or chunked)", async () => {
    const before = seen.calls;
    expect(JSON.parse((await send("POST", "/api/runs/r1/approvals", MiB, { contentLength: true })).body)).toEqual({ bytes: MiB });
    expect(JSON.parse((await send("POST", "/api/runs/r1/approvals", MiB)).body)).toEqual({ bytes: MiB });
    expect(seen.calls).toBe(before + 2);
  });

  it("a Content-Length over 1 MiB is answered 413 at once: the handler never runs", async () => {
    const before = seen.calls;
    const res = await send("POST", "/api/runs/r1/approvals", Math.round(9.9 * MiB), { contentLength: true });
    expect(res.status).toBe(413);
    expect(JSON.parse(res.body)).toEqual({ error: { code: "payload_too_large", message: expect.any(String), limitBytes: MiB } });
    expect(res.headers["content-type"]).toBe("application/json");
    expect(res.headers.connection).toBe("close");
    expect(seen.calls).toBe(before);
  });

  it("a chunked body is cut with 413 as it passes 1 MiB: the handler never reads past the limit", async () => {
    const before = seen.bytes.length;
    const res = await send("POST", "/api/v1/tasks", 8 * MiB);
    expect(res.status).toBe(413);
    expect(JSON.parse(res.body).error).toMatchObject({ code: "payload_too_large", limitBytes: MiB });
    // the handler's read was cut (no full body recorded), and never got more than the limit
    expect(seen.bytes.slice(before).every((n) => n <= MiB)).toBe(true);
  });

  it("POST /api/v1/records/batch takes bodies up to its own limit, whole and streamed; past it, 413 with that limit", async () => {
    const five = 2.5 * MiB;
    expect(JSON.parse((await send("POST", RECORDS_BATCH_PATH, five, { contentLength: true })).body)).toEqual({ bytes: five });
    expect(JSON.parse((await send("POST", RECORDS_BATCH_PATH, five)).body)).toEqual({ bytes: five });
    const declared = await send("POST", RECORDS_BATCH_PATH, 4 * MiB, { contentLength: true });
    expect(declared.status).toBe(413);
    expect(JSON.parse(declared.body).error.limitBytes).toBe(BATCH_LIMIT);
    const chunked = await send("POST", RECORDS_BATCH_PATH, 6 * MiB);
    expect(chunked.status).toBe(413);
    expect(JSON.parse(chunked.body).error.limitBytes).toBe(BATCH_LIMIT);
  });

  it("the batch path carries the API's security headers, and another method is a JSON 405 with Allow", async () => {
    const ok = await send("POST", RECORDS_BATCH_PATH, 10);
    expect(ok.headers["content-security-policy"]).toBe(apiSecurityHeaders(false)["Content-Security-Policy"]);
    expect(ok.headers["x-content-type-options"]).toBe("nosniff");
    const res = await send("GET", RECORDS_BATCH_PATH, 0);
    expect(res.status).toBe(405);
    expect(res.headers.allow).toBe("POST");
    expect(JSON.parse(res.body).error).toMatchObject({ code: "method_not_allowed", allow: ["POST"] });
  });

  it("with the default limits, a 50 MB NDJSON import reaches the batch handler whole (streamed, chunked)", async () => {
    const saved = port;
    const big = http.createServer(
      withBodyLimit(async (req, res) => {
        let n = 0;
        for await (const chunk of req) n += (chunk as Buffer).length;
        res.end(JSON.stringify({ bytes: n }));
      }),
    );
    await new Promise<void>((r) => big.listen(0, "127.0.0.1", r));
    port = (big.address() as AddressInfo).port;
    try {
      expect(JSON.parse((await send("POST", RECORDS_BATCH_PATH, 50_000_000)).body)).toEqual({ bytes: 50_000_000 });
      expect((await send("POST", "/api/v1/tasks", 2 * MiB)).status).toBe(413);
    } finally {
      port = saved;
      big.closeAllConnections();
      await new Promise<void>((r) => big.close(() => r()));
    }
  });

  it("a client that asks first (Expect: 100-continue) over the limit gets the 413 instead of 100 Continue and never sends its body", async () => {
    const before = seen.calls;
    const ask = (size: number) =>
      new Promise<{ status: number; continued: boolean }>((resolve, reject) => {
        let continued = false;
        const req = http.request({ host: "127.0.0.1", port, method: "POST", path: "/api/v1/tasks", headers: { "content-length": size, expect: "100-continue" }, agent: false }, (res) => {
          res.resume();
          res.on("end", () => resolve({ status: res.statusCode ?? 0, continued }));
        });
        req.on("continue", () => {
          continued = true;
          req.end(Buffer.alloc(size, 0x61));
        });
        req.on("error", reject);
        req.flushHeaders();
      });
    expect(await ask(5 * MiB)).toEqual({ status: 413, continued: false });
    expect(seen.calls).toBe(before);
    expect(await ask(1000)).toEqual({ status: 200, continued: true });
  });

  it("the server keeps answering after refusals", async () => {
    expect(JSON.parse((await send("POST", "/api/x", 100)).body)).toEqual({ bytes: 100 });
  });
});
