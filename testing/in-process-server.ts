/**
 * Test and benchmark support: a node:http server answering the agent API (and `/api/auth/*`) by
 * the exported route handlers of this process (testing/in-process-fetch.ts), with its Prisma client
 * on DATABASE_URL — an app instance without a Next.js build. Answers are streamed as the handler
 * produces them, so a run's event stream reaches the agent event by event. A handler that throws is
 * answered 500, as Next.js answers it.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { Readable } from "node:stream";
import { inProcessFetch } from "./in-process-fetch";

/** Starts the server on 127.0.0.1:`port` (0: a free one); resolves it with its port. */
export async function startInProcessServer(port = 0): Promise<{ server: http.Server; port: number }> {
  const server = http.createServer(async (req, res) => {
    const abort = new AbortController();
    res.on("close", () => abort.abort());
    try {
      const chunks: Buffer[] = [];
      for await (const c of req) chunks.push(c as Buffer);
      const headers = new Headers();
      for (const [k, v] of Object.entries(req.headers)) if (typeof v === "string") headers.set(k, v);
      const hasBody = req.method !== "GET" && req.method !== "HEAD";
      const answer = await inProcessFetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}${req.url}`, {
        method: req.method,
        headers,
        body: hasBody ? Buffer.concat(chunks) : undefined,
        signal: abort.signal,
      });
      res.writeHead(answer.status, Object.fromEntries(answer.headers));
      if (!answer.body) return void res.end();
      res.flushHeaders();
      Readable.fromWeb(answer.body as import("node:stream/web").ReadableStream).on("error", () => res.destroy()).pipe(res);
    } catch (e) {
      if (abort.signal.aborted) return;
      console.error("plandesk test instance: unhandled error", e);
      if (!res.headersSent) res.writeHead(500, { "content-type": "application/json" });
      res.end(JSON.stringify({ error: { code: "internal", message: "Something went wrong on our side." } }));
    }
  });
  await new Promise<void>((r) => server.listen(port, "127.0.0.1", r));
  return { server, port: (server.address() as AddressInfo).port };
}
