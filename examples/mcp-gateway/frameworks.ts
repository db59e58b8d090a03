/**
 * The MCP-gateway recipe for each supported agent framework (the client package's README
 * "Through Plandesk's MCP gateway"): the agent's MCP connection goes to Plandesk's `/api/mcp`
 * with the agent's Plandesk key and its task, instead of to the upstream tool server with the
 * upstream's credential — nothing else in the agent changes. Type-checked with the repository and
 * in the outside proof (scripts/outside-proof.mjs); ./agent.ts is the runnable, tested one.
 *
 * Reads pass at once; a write answers `{status: "pending", runId}` (see `readGatewayAnswer`) and
 * Plandesk calls the upstream itself once a person approved it.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { mcpGatewayConnection, readGatewayAnswer, type McpGatewayConnection } from "@plandesk/client";
import { dynamicTool, generateText, jsonSchema, stepCountIs, type LanguageModel } from "ai";
import { Agent, MCPServerStreamableHttp, run, type Model } from "@openai/agents";
import { tool } from "@langchain/core/tools";
import { ToolNode } from "@langchain/langgraph/prebuilt";
import { createAgent } from "langchain";

/** Plandesk's gateway for the demo agent working ticket #74991 (was: the carrier's URL and token). */
const gateway = () => mcpGatewayConnection({ baseUrl: "http://localhost:3000", apiKey: "pd_demo_agent_key", taskId: "task_74991" });

/** Where a recipe connects: the gateway's URL and headers, and a `fetch` for the MCP transport (default the global one; tests answer in-process). */
export interface RecipeTarget {
  gw: McpGatewayConnection;
  fetch?: typeof fetch;
}

/** The official MCP SDK client (what the AI SDK and LangChain recipes below wrap). */
export async function connectMcpSdk({ gw, fetch }: RecipeTarget = { gw: gateway() }): Promise<Client> {
  const mcp = new Client({ name: "my-agent", version: "1.0.0" });
  await mcp.connect(new StreamableHTTPClientTransport(new URL(gw.url), { requestInit: { headers: gw.headers }, ...(fetch ? { fetch } : {}) }));
  return mcp;
}

/** A write through the gateway with the MCP SDK: held for a person (`pending`), then the upstream's own answer. */
export async function bookRedelivery(mcp: Client) {
  return readGatewayAnswer(await mcp.callTool({ name: "book_redelivery", arguments: { shipmentId: "sh_5531", date: "2026-12-21" } }));
}

/** The MCP SDK with tasks (MCP 2025-11-25): the held write followed as a task — working, then the upstream's answer or a typed end. */
export async function bookRedeliveryAsTask(mcp: Client) {
  for await (const m of mcp.experimental.tasks.callToolStream({ name: "book_redelivery", arguments: { shipmentId: "sh_5531", date: "2026-12-21" } })) {
    if (m.type === "taskStatus") console.log(m.task.status, m.task.statusMessage); // "working", "… waits for a person's review …"
    if (m.type === "result") console.log(readGatewayAnswer(m.result)); // {kind: "result", runId, …}: the upstream's answer
    if (m.type === "error") console.log(m.error.message); // rejected, stopped or expired: mcp.experimental.tasks.getTaskResult(taskId) says which
  }
}

/** Vercel AI SDK 6: the gateway's tools as dynamic tools of `generateText` / `streamText`. */
export async function aiSdkAgent(mcp: Client, model: LanguageModel) {
  const tools = Object.fromEntries(
    (await mcp.listTools()).tools.map((t) => [
      t.name,
      dynamicTool({ description: t.description, inputSchema: jsonSchema(t.inputSchema), execute: (args) => mcp.callTool({ name: t.name, arguments: args as Record<string, unknown> }) }),
    ]),
  );
  // several steps: the model reads what Plandesk answered (held for a person) and goes on
  return generateText({ model, tools, stopWhen: stepCountIs(5), prompt: "Rebook the missed delivery of sh_5531." });
}

/** OpenAI Agents JS: its own MCP client, pointed at Plandesk (`model`: the agent's model, default the SDK's). */
export async function openAiAgent({ gw, fetch }: RecipeTarget = { gw: gateway() }, model?: Model) {
  const plandesk = new MCPServerStreamableHttp({ name: "plandesk", url: gw.url, requestInit: { headers: gw.headers }, ...(fetch ? { fetch } : {}) });
  await plandesk.connect();
  try {
    const agent = new Agent({ name: "Carrier desk", instructions: "Rebook missed deliveries.", mcpServers: [plandesk], ...(model ? { model } : {}) });
    return await run(agent, "Rebook the missed delivery of sh_5531.");
  } finally {
    await plandesk.close();
  }
}

/** LangChain v1 (`createAgent`) and LangGraph JS (`ToolNode`): the gateway's tools as LangChain tools. */
export async function langChainTools(mcp: Client, model: Parameters<typeof createAgent>[0]["model"]) {
  const tools = (await mcp.listTools()).tools.map((t) =>
    tool(async (args: Record<string, unknown>) => JSON.stringify(await mcp.callTool({ name: t.name, arguments: args })), { name: t.name, description: t.description ?? t.name, schema: t.inputSchema }),
  );
  return { agent: createAgent({ model, tools }), toolNode: new ToolNode(tools) };
}
