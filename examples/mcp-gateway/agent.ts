/**
 * An agent that calls the carrier's MCP tools through Plandesk's MCP gateway instead of the
 * carrier's own server, with the official MCP SDK client (`@modelcontextprotocol/sdk`). Only the
 * connection differs from calling the carrier directly: Plandesk's URL, the agent's Plandesk key
 * (the carrier's credential stays in Plandesk), and the task in a header.
 *
 * 1. tools/list shows the carrier's tools the agent may call;
 * 2. get_tracking (a read) is forwarded at once; its answer names the recorded read;
 * 3. book_redelivery (a write) is held for a person: the gateway answers `pending` with the run;
 * 4. the agent asks again with the same idempotency key until the answer is no longer pending:
 *    the carrier's own answer once Plandesk executed the approved call, or the refusal. While the
 *    console cannot be reached it keeps asking until the run's deadline plus a grace has passed,
 *    then ends `unreachable` (nobody can approve the write any more; the console expires it).
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { gatewayDeadlinePassed, mcpGatewayConnection, readGatewayAnswer, type GatewayAnswer, type McpToolResult } from "@plandesk/client";

/** What the example is told: the console, the agent's key, the task, the shipment and day, how to wait. */
export interface GatewayAgentOptions {
  url: string;
  key: string;
  taskId: string;
  shipmentId: string;
  /** The redelivery day, YYYY-MM-DD. */
  date: string;
  pollMs: number;
  timeoutMs: number;
  /** The idempotency key of the write (the same call again answers where it stands). */
  idempotencyKey: string;
  log: (line: string) => void;
  /** A fetch implementation (tests); default the global one. */
  fetch?: typeof fetch;
  /** How long past the held write's deadline to keep asking a console that cannot be reached, ms (default 30 s). */
  graceMs?: number;
}

/** What the run of the example came to: the tools listed, the read's id, the held run and the final answer. */
export interface GatewayAgentOutcome {
  tools: string[];
  readId: string | undefined;
  held: GatewayAnswer;
  final: GatewayAnswer;
}

/**
 * Runs the agent (see the module comment). Resolves when the write's answer is no longer pending,
 * or `unreachable` once the console could not be reached past the write's deadline plus `graceMs`;
 * throws when it is still pending after `timeoutMs`, or when the first connection fails.
 */
export async function runGatewayAgent(o: GatewayAgentOptions): Promise<GatewayAgentOutcome> {
  const gateway = mcpGatewayConnection({ baseUrl: o.url, apiKey: o.key, taskId: o.taskId });
  const mcp = new Client({ name: "carrier-agent", version: "1.0.0" });
  await mcp.connect(new StreamableHTTPClientTransport(new URL(gateway.url), { requestInit: { headers: gateway.headers }, ...(o.fetch ? { fetch: o.fetch } : {}) }));
  try {
    const tools = (await mcp.listTools()).tools.map((t) => t.name);
    o.log(`tools through Plandesk: ${tools.join(", ")}`);

    const read = readGatewayAnswer((await mcp.callTool({ name: "get_tracking", arguments: { shipmentId: o.shipmentId } })) as McpToolResult);
    const readId = read.kind === "result" ? read.readId : undefined;
    o.log(`get_tracking ${o.shipmentId}: ${read.kind === "result" ? JSON.stringify(read.result.content) : JSON.stringify(read)}`);

    const book = async () =>
      readGatewayAnswer(
        (await mcp.callTool({
          name: "book_redelivery",
          arguments: { shipmentId: o.shipmentId, date: o.date },
          _meta: { "plandesk/idempotencyKey": o.idempotencyKey, ...(readId ? { "plandesk/evidence": [readId] } : {}) },
        })) as McpToolResult,
      );
    const held = await book();
    if (held.kind === "pending") o.log(`book_redelivery held for approval: run ${held.runId}, step ${held.stepId} (${held.runStatus})`);
    let final = held;
    const deadline = Date.now() + o.timeoutMs;
    while (final.kind === "pending") {
      if (Date.now() > deadline) throw new Error(`run ${final.runId} is still pending after ${o.timeoutMs} ms`);
      await new Promise((r) => setTimeout(r, o.pollMs));
      const pending: GatewayAnswer = final;
      try {
        final = await book();
      } catch (e) {
        // the console cannot be reached: ask again until nobody could approve the write any more
        if (gatewayDeadlinePassed(pending, Date.now(), o.graceMs)) {
          final = { kind: "unreachable", runId: pending.runId, stepId: pending.stepId, message: `Plandesk could not be reached until run ${pending.runId}'s deadline had passed (${e instanceof Error ? e.message : String(e)}); the write was not executed.` };
        }
      }
    }
    o.log(final.kind === "result" ? `the carrier answered: ${JSON.stringify(final.result.content)}` : `not done (${final.kind}): ${JSON.stringify(final)}`);
    return { tools, readId, held, final };
  } finally {
    await mcp.close().catch(() => {}); // a console that cannot be reached cannot be told either
  }
}
