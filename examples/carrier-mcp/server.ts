/**
 * A small carrier's MCP server, shipped with Plandesk as the demo desk's upstream tool server and
 * the tests' real upstream (docs/api-extensions.md "Upstream MCP servers of a desk"). Built with
 * the official MCP SDK (`McpServer`). Tools:
 *
 * - `get_tracking {shipmentId}` — read-only (`readOnlyHint: true`): the shipment's tracking state;
 * - `book_redelivery {shipmentId, date}` — a write (not read-only, not destructive): books a
 *   redelivery on `date` (YYYY-MM-DD) and answers a booking reference.
 *
 * Every `tools/call` it receives — both tools, valid or not — is appended to its call log, one
 * JSON line `{at, tool, arguments, _meta}` (`_meta` as the caller sent it, including any
 * idempotency key), so a test can prove what it received and how many times. The log file is
 * `--call-log <path>` or `CARRIER_CALL_LOG`; without one, calls are not logged.
 *
 * Transports:
 * - stdio (default): `node --import tsx examples/carrier-mcp/server.ts [--call-log <path>]`;
 * - Streamable HTTP: `… --http <port>` (0: a free port) serves `POST /mcp` (stateless) on
 *   127.0.0.1 and, once listening, writes `carrier-mcp listening on http://127.0.0.1:<port>/mcp`
 *   to stderr. With `--token <t>` or `CARRIER_TOKEN` every request must carry
 *   `Authorization: Bearer <t>` (else 401, the token never echoed).
 *
 * `--delivered <id,id…>` names shipments the carrier has delivered meanwhile: book_redelivery of
 * one books nothing and answers `isError` with `_meta["plandesk/stopConditionMet"]: true` — the
 * step's stop condition (the parcel arrived) is met, which stops the caller's run (docs/api-extensions.md
 * "MCP gateway", Execution).
 *
 * `--answer-delay-ms <n>` makes book_redelivery answer n ms after it logged (and performed) the
 * call — a slow carrier whose answer a caller may lose. `--start-delay-ms <n>` (stdio) waits n ms
 * before it answers anything — a server slow to start, while its caller waits to connect.
 *
 * Diagnostics go to stderr only (stdout is the stdio transport's channel).
 */
import { appendFileSync, mkdirSync } from "node:fs";
import { dirname } from "node:path";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import { timingSafeEqual, createHash } from "node:crypto";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { z } from "zod";

/** The value of `--name <v>` or `--name=<v>` in argv, or undefined. */
function argOf(name: string): string | undefined {
  const argv = process.argv.slice(2);
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === `--${name}`) return argv[i + 1];
    if (argv[i].startsWith(`--${name}=`)) return argv[i].slice(name.length + 3);
  }
  return undefined;
}

const callLog = argOf("call-log") ?? process.env.CARRIER_CALL_LOG;
const httpPort = argOf("http");
const token = argOf("token") ?? process.env.CARRIER_TOKEN;
/** `--answer-delay-ms <n>`: book_redelivery logs the call, then waits n ms before answering (tests of a lost answer). */
const answerDelayMs = Math.max(0, Number(argOf("answer-delay-ms") ?? 0) || 0);
/** `--start-delay-ms <n>`: the stdio server starts reading its input n ms late (tests of what happens while a caller connects). */
const startDelayMs = Math.max(0, Number(argOf("start-delay-ms") ?? 0) || 0);

/** `--delivered <id,id…>`: shipments already delivered; a redelivery of one is moot (its stop condition is met). */
const delivered = new Set((argOf("delivered") ?? "").split(",").map((id) => id.trim()).filter(Boolean));

/** Appends one received call to the call log (synchronously: a line is complete before the answer). */
function logCall(tool: string, args: unknown, meta: unknown): void {
  if (!callLog) return;
  mkdirSync(dirname(callLog), { recursive: true });
  appendFileSync(callLog, JSON.stringify({ at: new Date().toISOString(), tool, arguments: args, _meta: meta ?? null }) + "\n");
}

/** A deterministic tracking state for a shipment id (the demo needs no database of its own). */
function trackingOf(shipmentId: string) {
  const states = ["in_transit", "held_at_depot", "out_for_delivery", "delivery_failed"] as const;
  const n = [...shipmentId].reduce((a, c) => a + c.charCodeAt(0), 0);
  return { shipmentId, status: states[n % states.length], lastScan: "2026-01-05T09:30:00Z", depot: "Rotterdam" };
}

/** A new McpServer with the carrier's two tools. */
function carrierServer(): McpServer {
  const server = new McpServer({ name: "carrier", version: "1.0.0" });
  server.registerTool(
    "get_tracking",
    {
      title: "Get tracking",
      description: "Reads a shipment's tracking state from the carrier.",
      inputSchema: { shipmentId: z.string().min(1).max(64).describe("The shipment, e.g. sh_5531") },
      annotations: { readOnlyHint: true },
    },
    async ({ shipmentId }, extra) => {
      logCall("get_tracking", { shipmentId }, extra._meta);
      return { content: [{ type: "text" as const, text: JSON.stringify(trackingOf(shipmentId)) }] };
    },
  );
  server.registerTool(
    "book_redelivery",
    {
      title: "Book redelivery",
      description: "Books a new delivery attempt of a shipment on a day; the customer is told by the carrier.",
      inputSchema: {
        shipmentId: z.string().min(1).max(64).describe("The shipment, e.g. sh_5531"),
        date: z.iso.date().describe("Redelivery day (YYYY-MM-DD)"),
      },
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false },
    },
    async ({ shipmentId, date }, extra) => {
      logCall("book_redelivery", { shipmentId, date }, extra._meta);
      if (delivered.has(shipmentId)) {
        // nothing booked: the parcel arrived, so the redelivery's stop condition is met
        return { content: [{ type: "text" as const, text: JSON.stringify({ shipmentId, status: "delivered", booked: false }) }], isError: true, _meta: { "plandesk/stopConditionMet": true } };
      }
      if (answerDelayMs > 0) await new Promise((r) => setTimeout(r, answerDelayMs));
      const ref = `rd_${createHash("sha256").update(`${shipmentId}:${date}`).digest("hex").slice(0, 10)}`;
      return { content: [{ type: "text" as const, text: JSON.stringify({ shipmentId, date, booking: ref, status: "booked" }) }] };
    },
  );
  return server;
}

/** Whether `req` carries `Authorization: Bearer <token>` (constant-time over the SHA-256 of both). */
function authorised(req: IncomingMessage): boolean {
  if (!token) return true;
  const header = req.headers.authorization ?? "";
  const given = header.startsWith("Bearer ") ? header.slice(7) : "";
  const h = (s: string) => createHash("sha256").update(s).digest();
  return timingSafeEqual(h(given), h(token));
}

/** One HTTP request: 401 without the token, 405 but for POST /mcp, else a fresh stateless server answers it. */
async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
  const path = new URL(req.url ?? "/", "http://localhost").pathname;
  if (path !== "/mcp") {
    res.writeHead(404, { "content-type": "application/json" }).end(JSON.stringify({ error: "not found" }));
    return;
  }
  if (!authorised(req)) {
    res.writeHead(401, { "content-type": "application/json", "www-authenticate": "Bearer" }).end(JSON.stringify({ jsonrpc: "2.0", error: { code: -32001, message: "Unauthorized" }, id: null }));
    return;
  }
  if (req.method !== "POST") {
    res.writeHead(405, { allow: "POST", "content-type": "application/json" }).end(JSON.stringify({ jsonrpc: "2.0", error: { code: -32000, message: "Method not allowed" }, id: null }));
    return;
  }
  const server = carrierServer();
  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
  res.on("close", () => {
    void transport.close();
    void server.close();
  });
  await server.connect(transport);
  await transport.handleRequest(req, res);
}

if (httpPort !== undefined) {
  const port = Number(httpPort);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    process.stderr.write(`carrier-mcp: --http takes a port (got "${httpPort}")\n`);
    process.exit(2);
  }
  const http = createServer((req, res) => {
    handle(req, res).catch((e) => {
      process.stderr.write(`carrier-mcp: ${e instanceof Error ? e.message : String(e)}\n`);
      if (!res.headersSent) res.writeHead(500).end();
    });
  });
  http.listen(port, "127.0.0.1", () => {
    const address = http.address();
    const bound = typeof address === "object" && address ? address.port : port;
    process.stderr.write(`carrier-mcp listening on http://127.0.0.1:${bound}/mcp\n`);
  });
  const stop = () => {
    http.close(() => process.exit(0));
    http.closeAllConnections();
  };
  process.on("SIGTERM", stop);
  process.on("SIGINT", stop);
} else {
  setTimeout(() => void carrierServer().connect(new StdioServerTransport()), startDelayMs);
}
