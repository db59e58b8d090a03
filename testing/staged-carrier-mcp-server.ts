/**
 * Test fixture (not used by production code): a carrier whose bookings can be made all or nothing,
 * as an MCP server over stdio built with the official SDK. Start:
 * `node --import tsx testing/staged-carrier-mcp-server.ts --state-dir <dir> [--commit-delay-ms <n>]`.
 *
 * Tools:
 * - `stage_redelivery {shipmentId, date}` — a write that only *stages* a redelivery: it answers a
 *   staging handle (`structuredContent.stagingHandle`) and books nothing anyone can see. Its input
 *   schema declares `x-plandesk-stage: {"commit": "commit_redeliveries"}`;
 * - `commit_redeliveries {handles}` — makes the staged redeliveries of every handle visible at
 *   once, in one write of the visible log (an unknown or already committed handle: an error, and
 *   nothing becomes visible);
 * - `book_collection {shipmentId, date}` — a write visible at once, declaring
 *   `x-plandesk-compensate: {"tool": "cancel_collection"}`; `cancel_collection {shipmentId, date}`
 *   undoes it (both in the visible log, `{collection: "booked" | "cancelled", shipmentId, date}`);
 * - `list_redeliveries {}` — read-only: the visible redeliveries.
 *
 * In `--state-dir`: `calls.jsonl` (every tools/call received, one JSON line `{at, tool, arguments,
 * _meta}`), `staged.jsonl` (staged, invisible writes) and `visible.jsonl` — the carrier's bookings
 * as its customers see them, one line `{commitId, handle, shipmentId, date}` per redelivery,
 * written only by a commit. The state is in files because a stdio server is started per
 * connection. `--commit-delay-ms <n>`: a commit writes, then answers n ms later (a lost answer).
 * `--start-delay-ms <n>`: the server starts reading its input n ms late (a server slow to start,
 * while its caller waits to connect). `--collected <id,id…>`: shipments already collected: a
 * book_collection of one books nothing and answers `isError` with
 * `_meta["plandesk/stopConditionMet"]: true` (the step's stop condition is met: the caller's run
 * stops). `--http <port>` (0: a free port): serves Streamable HTTP (stateless) on
 * `http://127.0.0.1:<port>/mcp` instead of stdio and, once listening, writes
 * `staged-carrier listening on <url>` to stderr (what testing/http-carrier.ts waits for).
 */
import { appendFileSync, existsSync, mkdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { createHash, randomUUID } from "node:crypto";
import { createServer } from "node:http";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { z } from "zod";

function argOf(name: string): string | undefined {
  const argv = process.argv.slice(2);
  const i = argv.indexOf(`--${name}`);
  return i >= 0 ? argv[i + 1] : undefined;
}

const dir = argOf("state-dir") ?? path.join(process.cwd(), ".staged-carrier");
const commitDelayMs = Math.max(0, Number(argOf("commit-delay-ms") ?? 0) || 0);
const startDelayMs = Math.max(0, Number(argOf("start-delay-ms") ?? 0) || 0);
const collected = new Set((argOf("collected") ?? "").split(",").map((id) => id.trim()).filter(Boolean));
const httpPort = argOf("http");
mkdirSync(dir, { recursive: true });
const file = (name: string) => path.join(dir, name);
const lines = (name: string): Record<string, unknown>[] => (existsSync(file(name)) ? readFileSync(file(name), "utf8").split("\n").filter(Boolean).map((l) => JSON.parse(l) as Record<string, unknown>) : []);
const logCall = (tool: string, args: unknown, meta: unknown) => appendFileSync(file("calls.jsonl"), JSON.stringify({ at: new Date().toISOString(), tool, arguments: args, _meta: meta ?? null }) + "\n");

/** A new McpServer with the carrier's tools (one per stdio connection or HTTP request). */
function stagedCarrierServer(): McpServer {
  const server = new McpServer({ name: "staged-carrier", version: "1.0.0" });
  server.registerTool(
    "stage_redelivery",
    {
      title: "Stage redelivery",
      description: "Stages a redelivery of a shipment on a day; nothing is booked until the staged redeliveries are committed.",
      inputSchema: z
        .object({ shipmentId: z.string().min(1).max(64), date: z.iso.date() })
        .meta({ "x-plandesk-stage": { commit: "commit_redeliveries" } }),
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false },
    },
    async ({ shipmentId, date }, extra) => {
      logCall("stage_redelivery", { shipmentId, date }, extra._meta);
      const key = typeof extra._meta?.["plandesk/idempotencyKey"] === "string" ? (extra._meta["plandesk/idempotencyKey"] as string) : randomUUID();
      const handle = `stg_${createHash("sha256").update(key).digest("hex").slice(0, 12)}`;
      if (!lines("staged.jsonl").some((l) => l.handle === handle)) appendFileSync(file("staged.jsonl"), JSON.stringify({ handle, shipmentId, date }) + "\n");
      return { content: [{ type: "text" as const, text: `Staged ${shipmentId} on ${date} as ${handle}; not booked until committed.` }], structuredContent: { stagingHandle: handle } };
    },
  );
  server.registerTool(
    "commit_redeliveries",
    {
      title: "Commit redeliveries",
      description: "Books every staged redelivery named at once, or none.",
      inputSchema: { handles: z.array(z.string().min(1)).min(1).max(50) },
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true },
    },
    async ({ handles }, extra) => {
      logCall("commit_redeliveries", { handles }, extra._meta);
      const staged = new Map(lines("staged.jsonl").map((l) => [l.handle as string, l]));
      const visible = new Set(lines("visible.jsonl").map((l) => l.handle as string));
      const bad = handles.filter((h) => !staged.has(h) || visible.has(h));
      if (bad.length) return { content: [{ type: "text" as const, text: `Unknown or already committed: ${bad.join(", ")}; nothing was booked.` }], isError: true };
      const commitId = `cmt_${randomUUID().slice(0, 8)}`;
      // one append: every redelivery of the commit becomes visible together
      appendFileSync(file("visible.jsonl"), handles.map((h) => JSON.stringify({ commitId, handle: h, shipmentId: staged.get(h)!.shipmentId, date: staged.get(h)!.date })).join("\n") + "\n");
      if (commitDelayMs > 0) await new Promise((r) => setTimeout(r, commitDelayMs));
      return { content: [{ type: "text" as const, text: `Booked ${handles.length} redeliveries (${commitId}).` }], structuredContent: { commitId, booked: handles.length } };
    },
  );
  server.registerTool(
    "book_collection",
    {
      title: "Book collection",
      description: "Books a collection of a shipment on a day, visible at once; cancel_collection undoes it.",
      inputSchema: z.object({ shipmentId: z.string().min(1).max(64), date: z.iso.date() }).meta({ "x-plandesk-compensate": { tool: "cancel_collection" } }),
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false },
    },
    async ({ shipmentId, date }, extra) => {
      logCall("book_collection", { shipmentId, date }, extra._meta);
      if (collected.has(shipmentId)) {
        // nothing booked: the parcel was collected meanwhile, so the step's stop condition is met
        return { content: [{ type: "text" as const, text: `${shipmentId} was already collected; nothing booked.` }], isError: true, _meta: { "plandesk/stopConditionMet": true } };
      }
      appendFileSync(file("visible.jsonl"), JSON.stringify({ collection: "booked", shipmentId, date }) + "\n");
      return { content: [{ type: "text" as const, text: `Collection of ${shipmentId} booked on ${date}.` }] };
    },
  );
  server.registerTool(
    "cancel_collection",
    {
      title: "Cancel collection",
      description: "Cancels a booked collection of a shipment on a day.",
      inputSchema: { shipmentId: z.string().min(1).max(64), date: z.iso.date() },
      annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true },
    },
    async ({ shipmentId, date }, extra) => {
      logCall("cancel_collection", { shipmentId, date }, extra._meta);
      appendFileSync(file("visible.jsonl"), JSON.stringify({ collection: "cancelled", shipmentId, date }) + "\n");
      return { content: [{ type: "text" as const, text: `Collection of ${shipmentId} on ${date} cancelled.` }] };
    },
  );
  server.registerTool(
    "list_redeliveries",
    { title: "List redeliveries", description: "The booked (visible) redeliveries.", inputSchema: {}, annotations: { readOnlyHint: true } },
    async (_args, extra) => {
      logCall("list_redeliveries", {}, extra._meta);
      return { content: [{ type: "text" as const, text: JSON.stringify(lines("visible.jsonl")) }] };
    },
  );

  return server;
}

if (httpPort !== undefined) {
  const http = createServer((req, res) => {
    if (new URL(req.url ?? "/", "http://localhost").pathname !== "/mcp" || req.method !== "POST") {
      res.writeHead(404).end();
      return;
    }
    const server = stagedCarrierServer();
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    res.on("close", () => {
      void transport.close();
      void server.close();
    });
    void server.connect(transport).then(() => transport.handleRequest(req, res));
  });
  http.listen(Number(httpPort), "127.0.0.1", () => {
    const address = http.address();
    process.stderr.write(`staged-carrier listening on http://127.0.0.1:${typeof address === "object" && address ? address.port : httpPort}/mcp\n`);
  });
  process.on("SIGTERM", () => {
    http.close(() => process.exit(0));
    http.closeAllConnections();
  });
} else {
  setTimeout(() => void stagedCarrierServer().connect(new StdioServerTransport()), startDelayMs);
}
