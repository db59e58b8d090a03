import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { answerDatabaseUnavailableAs503, markDatabaseUnavailable, runWithRequestOutcome } from "./request-outcome.mjs";

/** A server like scripts/server.mjs: each request in its own outcome record, then `handler` (standing for Next.js). */
async function serve(handler: (req: http.IncomingMessage, res: http.ServerResponse) => Promise<void>) {
  const server = http.createServer((req, res) =>
    runWithRequestOutcome(() => {
      answerDatabaseUnavailableAs503(res);
      return handler(req, res);
    }),
  );
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  servers.push(server);
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}
const servers: http.Server[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await new Promise((r) => s.close(r));
});

/** What a render does when its query fails: reports the error (onRequestError) later in the same async chain, then answers 500. */
async function renderThatFails(res: http.ServerResponse, lostDatabase: boolean, viaWriteHead: boolean) {
  await new Promise((r) => setImmediate(r));
  if (lostDatabase) markDatabaseUnavailable("ECONNREFUSED", 7);
  await Promise.resolve();
  if (viaWriteHead) {
    res.writeHead(500, "Internal Server Error", { "content-type": "text/html" });
    res.end("<h1>Something went wrong</h1>");
  } else {
    res.statusCode = 500;
    res.setHeader("content-type", "text/html");
    res.end("<h1>Something went wrong</h1>");
  }
}

describe("a page whose render failed on a lost database", () => {
  it("answers 503 with Retry-After and no-store instead of 500, whether the status was set or written", async () => {
    for (const viaWriteHead of [false, true]) {
      const origin = await serve((_req, res) => renderThatFails(res, true, viaWriteHead));
      const res = await fetch(origin);
      expect(res.status).toBe(503);
      expect(res.headers.get("retry-after")).toBe("7");
      expect(res.headers.get("cache-control")).toBe("no-store");
      expect(await res.text()).toContain("Something went wrong");
    }
  });

  it("leaves any other failure a 500 and a success untouched, and one request's mark never reaches another", async () => {
    let n = 0;
    const origin = await serve(async (_req, res) => {
      const i = n++;
      if (i % 3 === 0) return renderThatFails(res, true, false);
      if (i % 3 === 1) return renderThatFails(res, false, false);
      await new Promise((r) => setImmediate(r));
      res.end("ok");
    });
    const answers = await Promise.all(Array.from({ length: 30 }, () => fetch(origin).then((r) => r.status)));
    expect(answers.filter((s) => s === 503)).toHaveLength(10);
    expect(answers.filter((s) => s === 500)).toHaveLength(10);
    expect(answers.filter((s) => s === 200)).toHaveLength(10);
  });

  it("outside a request the mark is a no-op", () => {
    expect(() => markDatabaseUnavailable("P1001", 5)).not.toThrow();
  });
});
