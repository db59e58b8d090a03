/**
 * Every TypeScript snippet in the docs a newcomer copies from (README.md, docs/adapters.md,
 * docs/testing.md, docs/mcp-gateway.md, packages/client/README.md) type-checks against the package as it is: each
 * ```ts (or ```typescript, ```tsx) block becomes a module of its own, given the imports and the
 * inputs it names without declaring them (the model, the messages, a client, your database…) from
 * one table below, with the frameworks' real types, and the whole set is checked with the
 * repository's compiler settings in one program. A snippet calling a method the package does not
 * have, or passing what it does not take, fails here. So that no TypeScript escapes the check, every
 * code block of the outside user's pages (docs/adapters.md, docs/testing.md) must name a language,
 * and not JavaScript.
 */
import fs from "node:fs";
import path from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";

const root = path.resolve(__dirname, "..");
const DOCS = ["README.md", "docs/adapters.md", "docs/testing.md", "docs/mcp-gateway.md", "packages/client/README.md"];
/** The pages an outside user of the adapters and the QA kit reads, and how many snippets each has at least. */
const OUTSIDE_PAGES: Record<string, number> = { "docs/adapters.md": 5, "docs/testing.md": 1 };
/** The fence languages checked as TypeScript. */
const TS_FENCE = /^```(ts|typescript|tsx)$/;

/**
 * What a snippet may use without declaring it: each name with the line that brings it in. A
 * snippet that imports or declares the name itself does not get the line. Inputs that are the
 * reader's own (their model, messages, database) are loosely typed; everything of Plandesk's is
 * its real type.
 */
const GIVEN: Record<string, string> = {
  generateText: 'import { generateText } from "ai";',
  dynamicTool: 'import { dynamicTool } from "ai";',
  jsonSchema: 'import { jsonSchema } from "ai";',
  stepCountIs: 'import { stepCountIs } from "ai";',
  Agent: 'import { Agent } from "@openai/agents";',
  run: 'import { run } from "@openai/agents";',
  RunState: 'import { RunState } from "@openai/agents";',
  MCPServerStreamableHttp: 'import { MCPServerStreamableHttp } from "@openai/agents";',
  StateGraph: 'import { StateGraph } from "@langchain/langgraph";',
  START: 'import { START } from "@langchain/langgraph";',
  END: 'import { END } from "@langchain/langgraph";',
  AIMessage: 'import { AIMessage } from "@langchain/core/messages";',
  MessagesAnnotation: 'import { MessagesAnnotation } from "@langchain/langgraph";',
  ToolNode: 'import { ToolNode } from "@langchain/langgraph/prebuilt";',
  createAgent: 'import { createAgent } from "langchain";',
  humanInTheLoopMiddleware: 'import { humanInTheLoopMiddleware } from "langchain";',
  tool: 'import { tool } from "langchain";',
  Client: 'import { Client } from "@modelcontextprotocol/sdk/client/index.js";',
  StreamableHTTPClientTransport: 'import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";',
  createAgentClient: 'import { createAgentClient } from "@plandesk/client";',
  executeStep: 'import { executeStep } from "@plandesk/client";',
  mcpGatewayConnection: 'import { mcpGatewayConnection } from "@plandesk/client";',
  readGatewayAnswer: 'import { readGatewayAnswer } from "@plandesk/client";',
  demoDeskTools: 'import { demoDeskTools } from "@plandesk/client/demo";',
  createAiSdkAdapter: 'import { createAiSdkAdapter } from "@plandesk/client/ai-sdk";',
  createOpenAiAgentsAdapter: 'import { createOpenAiAgentsAdapter } from "@plandesk/client/openai-agents";',
  createLangGraphAdapter: 'import { createLangGraphAdapter } from "@plandesk/client/langgraph";',
  createLangChainAdapter: 'import { createLangChainAdapter } from "@plandesk/client/langchain";',
  client: 'declare const client: import("@plandesk/client").AgentClient;',
  tools: 'declare const tools: ReturnType<typeof import("@plandesk/client/demo").demoDeskTools>;',
  taskId: "declare const taskId: string;",
  runId: "declare const runId: string;",
  stepId: "declare const stepId: string;",
  digest: "declare const digest: string;",
  taskRevision: "declare const taskRevision: number;",
  step: "declare const step: Parameters<typeof import(\"@plandesk/client\").executeStep>[1];",
  baseUrl: "declare const baseUrl: string;",
  apiKey: "declare const apiKey: string;",
  saved: "declare const saved: string;",
  prompt: "declare const prompt: string;",
  gw: 'declare const gw: import("@plandesk/client").McpGatewayConnection;',
  mcp: 'declare const mcp: import("@modelcontextprotocol/sdk/client/index.js").Client;',
  currentTraceparent: "declare function currentTraceparent(): string | undefined;",
  model: "declare const model: string;",
  messages: 'declare const messages: import("ai").ModelMessage[];',
  input: 'declare const input: { messages: import("@langchain/core/messages").BaseMessage[] };',
  config: "declare const config: { configurable: { thread_id: string } };",
  checkpointer: 'declare const checkpointer: import("@langchain/langgraph").BaseCheckpointSaver;',
  callModel: 'declare const callModel: (state: typeof import("@langchain/langgraph").MessagesAnnotation.State) => Promise<{ messages: import("@langchain/core/messages").BaseMessage[] }>;',
  graph: "declare const graph: any;",
  db: "declare const db: { transaction<T>(body: (tx: any) => Promise<T>): Promise<T> };",
};

/** Every fenced code block of a markdown file: its language (`""` when none), the line its code starts on, its code. */
function blocksOf(file: string): { lang: string; line: number; code: string }[] {
  const lines = fs.readFileSync(path.join(root, file), "utf8").split("\n");
  const out: { lang: string; line: number; code: string }[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^```(\S*)$/.exec(lines[i].trim());
    if (!open) continue;
    const start = i + 1;
    let end = start;
    while (end < lines.length && lines[end].trim() !== "```") end++;
    out.push({ lang: open[1], line: start + 1, code: lines.slice(start, end).join("\n") });
    i = end;
  }
  return out;
}

/** The TypeScript blocks of a markdown file, with the line each starts on. */
function snippetsOf(file: string): { line: number; code: string }[] {
  return blocksOf(file).filter((b) => TS_FENCE.test(`\`\`\`${b.lang}`));
}

/** The module a snippet is checked as: the given lines it needs, then the snippet. */
function moduleOf(code: string): string {
  const own = new Set<string>();
  for (const m of code.matchAll(/import\s+(?:type\s+)?\{([^}]*)\}/g)) for (const n of m[1].split(",")) own.add(n.trim().split(/\s+as\s+/).pop()!.replace(/^type\s+/, ""));
  for (const m of code.matchAll(/\b(?:const|let|var|function|class)\s+([A-Za-z_$][\w$]*)/g)) own.add(m[1]);
  const needed = Object.entries(GIVEN).filter(([name]) => !own.has(name) && new RegExp(`(?<![\\w$.])${name.replace("$", "\\$")}(?![\\w$])`).test(code));
  return [...needed.map(([, line]) => line), "export {};", code, ""].join("\n");
}

describe("the docs' TypeScript snippets", () => {
  it("no TypeScript on the outside user's pages hides in an unnamed or JavaScript block", () => {
    const hidden = Object.keys(OUTSIDE_PAGES).flatMap((doc) =>
      blocksOf(doc)
        .filter((b) => b.lang === "" || /^(js|javascript|jsx|mjs)$/.test(b.lang))
        .map((b) => `${doc}:${b.line} (\`\`\`${b.lang})`),
    );
    expect(hidden).toEqual([]);
    for (const [doc, least] of Object.entries(OUTSIDE_PAGES)) expect(snippetsOf(doc).length, doc).toBeGreaterThanOrEqual(least);
  });

  it("each type-checks against the package as it is", () => {
    const dir = fs.mkdtempSync(path.join(root, ".doc-snippets-"));
    try {
      const files: { file: string; from: string }[] = [];
      for (const doc of DOCS) {
        for (const s of snippetsOf(doc)) {
          const file = path.join(dir, `${doc.replace(/[^A-Za-z0-9]+/g, "_")}_${s.line}.ts`);
          fs.writeFileSync(file, moduleOf(s.code));
          files.push({ file, from: `${doc}:${s.line}` });
        }
      }
      // the pages hold 15 today: the README keeps none, its framework snippets are docs/adapters.md's
      expect(files.length).toBeGreaterThanOrEqual(15);
      const read = ts.readConfigFile(path.join(root, "tsconfig.json"), ts.sys.readFile);
      const parsed = ts.parseJsonConfigFileContent(read.config, ts.sys, root);
      const program = ts.createProgram(
        files.map((f) => f.file),
        { ...parsed.options, noEmit: true, incremental: false, plugins: [], noUnusedLocals: false },
      );
      const mine = new Set(files.map((f) => path.resolve(f.file)));
      const problems = ts
        .getPreEmitDiagnostics(program)
        .filter((d) => d.file && mine.has(path.resolve(d.file.fileName)))
        .map((d) => {
          const where = files.find((f) => path.resolve(f.file) === path.resolve(d.file!.fileName))!;
          const { line } = d.file!.getLineAndCharacterOfPosition(d.start ?? 0);
          return `${where.from} (module line ${line + 1}): ${ts.flattenDiagnosticMessageText(d.messageText, "\n")}`;
        });
      expect(problems).toEqual([]);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }, 180_000);
});
