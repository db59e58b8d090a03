/**
 * Plandesk as the agent's MCP server (`POST /api/mcp`; docs/design.md "MCP gateway"): the official
 * SDK's low-level `Server` over its web-standard Streamable HTTP server transport, stateless (a
 * fresh server per request, JSON answers, no session id: every instance answers every request,
 * nothing is kept in memory). The caller is the agent the route authenticated by its API key.
 *
 * - `tools/list`: the agent's gateway tools (./gateway-tools.ts) with the catalog's schema,
 *   description and annotations — what Plandesk validates against;
 * - `tools/call`: ./call-gateway-tool.ts (a read forwarded and recorded; a write held as a plan step);
 * - MCP tasks (the SDK's long-running-call mechanism, ./gateway-tasks.ts): declared as
 *   `tasks.requests.tools.call`, each write tool `execution.taskSupport: "optional"`; a write called
 *   with `task` answers a task (its gateway call) that `tasks/get` and `tasks/result` follow to the
 *   upstream's answer, a rejection or a stop. Without `task`, the typed `pending` answer.
 *
 * The task a call serves is `_meta["plandesk/taskId"]`, or else the request's `Plandesk-Task-Id`
 * header: a client whose framework sets no per-call `_meta` (AI SDK, OpenAI Agents, LangChain)
 * names its task once, in the headers its MCP transport sends with every request.
 */
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { CallToolRequestSchema, ListToolsRequestSchema, type Tool } from "@modelcontextprotocol/sdk/types.js";
import type { AgentCaller } from "../auth/viewer";
import { callGatewayTool, META_TASK_ID } from "./call-gateway-tool";
import { createGatewayTask, gatewayTaskStore } from "./gateway-tasks";
import { gatewayToolsOf } from "./gateway-tools";

/** The request header naming the task of every call of the request that names none in `_meta`. */
export const TASK_HEADER = "plandesk-task-id";

/** The MCP server Plandesk shows `agent` (one per request); `taskId`: the request's Plandesk-Task-Id, if any. */
function gatewayServer(agent: AgentCaller, taskId: string | null): Server {
  const server = new Server(
    { name: "plandesk", version: "1.0.0" },
    {
      // tasks: task-augmented tools/call only (no tasks/list, no tasks/cancel: a person decides a held write)
      capabilities: { tools: {}, tasks: { requests: { tools: { call: {} } } } },
      taskStore: gatewayTaskStore(agent),
      instructions:
        'Plandesk holds every write for a person\'s approval. Name the task a write serves with _meta {"plandesk/taskId": "<task id>"} (or the Plandesk-Task-Id request header); a write answers {status: "pending", runId} at once — poll GET /api/v1/runs/{runId} — or, called as an MCP task, a task that tasks/get follows to the upstream\'s answer, a rejection or a stop. Reads are forwarded and answer _meta "plandesk/readId", which a write may cite in _meta "plandesk/evidence".',
    },
  );
  // the SDK installs these with a task store; Plandesk does not offer them (not declared: "Method not found")
  server.removeRequestHandler("tasks/list");
  server.removeRequestHandler("tasks/cancel");
  server.setRequestHandler(ListToolsRequestSchema, async () => ({
    tools: (await gatewayToolsOf(agent)).map(
      (t): Tool => ({
        name: t.spec.name,
        title: t.spec.label,
        description: t.spec.description,
        inputSchema: { ...t.spec.inputSchema, type: "object" } as Tool["inputSchema"],
        annotations: t.spec.annotations,
        // a write may run as an MCP task (a read answers at once: the default, "forbidden")
        ...(t.read ? {} : { execution: { taskSupport: "optional" as const } }),
      }),
    ),
  }));
  server.setRequestHandler(CallToolRequestSchema, async (req) => {
    const meta = { ...(taskId ? { [META_TASK_ID]: taskId } : {}), ...((req.params._meta ?? {}) as Record<string, unknown>) };
    if (req.params.task) return createGatewayTask(agent, req.params.name, req.params.arguments ?? {}, meta);
    return callGatewayTool(agent, req.params.name, req.params.arguments ?? {}, meta);
  });
  return server;
}

/**
 * `req` with an Accept header the transport takes: Plandesk answers JSON only (no stream), so a
 * plain HTTP client that accepts JSON (or says nothing) is served like an MCP client that also
 * lists `text/event-stream`.
 */
function acceptingJson(req: Request): Request {
  const accept = req.headers.get("accept") ?? "";
  if (accept.includes("application/json") && accept.includes("text/event-stream")) return req;
  if (accept && !/application\/json|\*\/\*/.test(accept)) return req; // the transport refuses it (406)
  const headers = new Headers(req.headers);
  headers.set("accept", "application/json, text/event-stream");
  return new Request(req.url, { method: req.method, headers, body: req.body, signal: req.signal, duplex: "half" } as RequestInit);
}

/**
 * Answers one Streamable HTTP request `req` of `agent` (JSON-RPC over POST; the transport answers
 * other methods and malformed messages itself, with JSON-RPC errors). A batch (a JSON array of
 * messages) is refused 400 with JSON-RPC error -32600: one message per request, so one request
 * costs one rate-limit token. Returns the Response.
 */
export async function handleMcpRequest(agent: AgentCaller, req: Request): Promise<Response> {
  req = acceptingJson(req);
  // One message per request: a JSON-RPC batch (an array, up to 100 calls in the SDK) would run
  // every call for the one rate-limit token the request took.
  let parsedBody: unknown = undefined;
  if (req.method === "POST") {
    const text = await req.text();
    try {
      parsedBody = JSON.parse(text);
    } catch {
      parsedBody = undefined; // the transport answers the parse error itself
    }
    if (Array.isArray(parsedBody)) {
      return Response.json({ jsonrpc: "2.0", id: null, error: { code: -32600, message: "Invalid Request: send one JSON-RPC message per request (batches are not accepted)." } }, { status: 400 });
    }
    req = new Request(req.url, { method: req.method, headers: req.headers, body: text, signal: req.signal });
  }
  const taskId = req.headers.get(TASK_HEADER)?.trim().slice(0, 200) || null;
  const server = gatewayServer(agent, taskId);
  const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
  await server.connect(transport);
  // a caller that goes away ends what its request waits on (a tasks/result blocks until its task ends)
  req.signal?.addEventListener("abort", () => void transport.close().catch(() => undefined), { once: true });
  try {
    return await transport.handleRequest(req, parsedBody === undefined ? undefined : { parsedBody });
  } finally {
    await transport.close().catch(() => undefined);
    await server.close().catch(() => undefined);
  }
}
