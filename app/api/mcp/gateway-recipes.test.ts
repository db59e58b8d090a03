/**
 * The client package's MCP-gateway recipe in each supported framework (packages/client/README.md
 * "Through Plandesk's MCP gateway"; the runnable copies in examples/mcp-gateway/frameworks.ts), run
 * against Plandesk's `/api/mcp` on the freshly seeded demo desk, on SQLite and PostgreSQL, each
 * framework with its own scripted model (no network, no key): the model calls book_redelivery,
 * the framework's MCP client sends it to Plandesk with the task named once in the connection's
 * header, and the model reads that the write is held for a person — the gateway holds it as a step
 * of task_74991 with exactly the model's arguments. Each recipe block of the README is at most 10
 * lines.
 */
import { readFileSync } from "node:fs";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { AIMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { fakeModel } from "@langchain/core/testing";
import { MockLanguageModelV3 } from "ai/test";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mcpGatewayConnection } from "@plandesk/client";
import { prisma } from "@/lib/server/db/db";
import { DEMO_AGENT_KEY } from "@/lib/server/demo/seed";
import { isoDay, reject } from "@/testing/adapter-operator";
import { scriptedAgentsModel } from "@/testing/openai-agents-model";
import { TEST_ORIGIN } from "@/testing/test-auth";
import { prepareTestDatabase } from "@/testing/test-support";
import { aiSdkAgent, connectMcpSdk, langChainTools, openAiAgent, type RecipeTarget } from "../../../examples/mcp-gateway/frameworks";
import { POST as mcpPost } from "./route";

/** The recipes' target: the console's gateway for the demo agent and task_74991, answered by the route handler in this process. */
const target: RecipeTarget = {
  gw: mcpGatewayConnection({ baseUrl: TEST_ORIGIN, apiKey: DEMO_AGENT_KEY, taskId: "task_74991" }),
  fetch: async (url, init) => {
    const req = new Request(url, init);
    return req.method === "POST" ? mcpPost(req) : new Response(null, { status: 405 });
  },
};

const usage = { inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 1, text: 1, reasoning: 0 } };

/**
 * The write the gateway holds for task_74991 with `date` (each framework books its own day): its
 * run (waiting for review) and arguments; the run is then rejected, so the next framework's write
 * is the only one waiting.
 */
async function heldWrite(date: string): Promise<{ runId: string; args: unknown; runStatus: string }> {
  const rows = await prisma.gatewayCall.findMany({ where: { kind: "write", taskId: "task_74991", tool: "book_redelivery" } });
  const held = rows.filter((r) => (r.arguments as { date?: string }).date === date);
  expect(held).toHaveLength(1);
  const row = held[0];
  const run = await prisma.run.findUniqueOrThrow({ where: { id: row.runId! }, select: { status: true } });
  await reject(row.runId!, "Recipe test: not this one.");
  return { runId: row.runId!, args: row.arguments, runStatus: run.status };
}

let mcp: Client;

beforeAll(async () => {
  await prepareTestDatabase(new Date());
  mcp = await connectMcpSdk(target);
}, 120_000);

afterAll(async () => {
  await mcp?.close();
});

describe("the MCP-gateway recipe in each supported framework", () => {
  it("the README gives each framework's recipe in at most 10 lines", () => {
    const readme = readFileSync("packages/client/README.md", "utf8");
    const section = readme.slice(readme.indexOf("## Through Plandesk's MCP gateway"), readme.indexOf("\n## ", readme.indexOf("## Through Plandesk's MCP gateway") + 5));
    for (const framework of ["MCP SDK", "Vercel AI SDK", "OpenAI Agents", "LangChain", "LangGraph"]) expect(section).toContain(framework);
    const blocks = [...section.matchAll(/```ts\n([\s\S]*?)```/g)].map((m) => m[1].trimEnd().split("\n"));
    expect(blocks.length).toBeGreaterThanOrEqual(4);
    for (const lines of blocks) expect(lines.length, lines.join("\n")).toBeLessThanOrEqual(10);
  });

  it("Vercel AI SDK: the model's tool call goes through Plandesk and comes back held for a person", async () => {
    const date = isoDay(11);
    let told = "";
    const model = new MockLanguageModelV3({
      doGenerate: async ({ prompt }) => {
        const results = prompt.flatMap((m) => (m.role === "tool" ? m.content : [])).filter((p) => p.type === "tool-result");
        if (results.length === 0) {
          return { content: [{ type: "tool-call" as const, toolCallId: "ai-1", toolName: "book_redelivery", input: JSON.stringify({ shipmentId: "sh_5531", date }) }], finishReason: { unified: "tool-calls" as const, raw: undefined }, usage, warnings: [] };
        }
        told = JSON.stringify(results[0].output);
        return { content: [{ type: "text" as const, text: "Held for a person." }], finishReason: { unified: "stop" as const, raw: undefined }, usage, warnings: [] };
      },
    });
    const out = await aiSdkAgent(mcp, model);
    expect(out.text).toBe("Held for a person.");
    expect(told).toContain("Plandesk holds book_redelivery");
    expect(await heldWrite(date)).toMatchObject({ runStatus: "pending_review", args: { shipmentId: "sh_5531", date } });
  }, 60_000);

  it("OpenAI Agents JS: its own MCP client, pointed at Plandesk, gets the held write", async () => {
    const date = isoDay(12);
    const seen: Record<string, string> = {};
    const out = await openAiAgent(target, scriptedAgentsModel([{ tool: "book_redelivery", callId: "oa-1", args: { shipmentId: "sh_5531", date } }], seen));
    expect(out.finalOutput).toBe("ok");
    expect(seen.book_redelivery).toContain("Plandesk holds book_redelivery");
    expect(await heldWrite(date)).toMatchObject({ runStatus: "pending_review", args: { shipmentId: "sh_5531", date } });
  }, 60_000);

  it("LangChain v1 (createAgent): the gateway's tools as LangChain tools; the write is held", async () => {
    const date = isoDay(13);
    let told = "";
    const model = fakeModel()
      .respondWithTools([{ name: "book_redelivery", args: { shipmentId: "sh_5531", date }, id: "lc-1" }])
      .respond((messages: BaseMessage[]) => {
        told = String(messages.filter((m): m is ToolMessage => ToolMessage.isInstance(m)).at(-1)?.content ?? "");
        return new AIMessage("Held for a person.");
      });
    const { agent } = await langChainTools(mcp, model);
    await agent.invoke({ messages: [{ role: "user", content: "Rebook the missed delivery of sh_5531." }] });
    expect(told).toContain("Plandesk holds book_redelivery");
    expect(await heldWrite(date)).toMatchObject({ runStatus: "pending_review", args: { shipmentId: "sh_5531", date } });
  }, 60_000);

  it("LangGraph JS (ToolNode): a graph's tool node calls the gateway; the write is held", async () => {
    const date = isoDay(14);
    const { toolNode } = await langChainTools(mcp, fakeModel());
    const out = (await toolNode.invoke({ messages: [new AIMessage({ content: "", tool_calls: [{ name: "book_redelivery", args: { shipmentId: "sh_5531", date }, id: "lg-1", type: "tool_call" }] })] })) as { messages: ToolMessage[] };
    expect(String(out.messages[0].content)).toContain("Plandesk holds book_redelivery");
    expect(await heldWrite(date)).toMatchObject({ runStatus: "pending_review", args: { shipmentId: "sh_5531", date } });
  }, 60_000);
});
