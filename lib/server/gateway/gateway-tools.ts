/**
 * The tools an agent reaches through Plandesk's MCP gateway (docs/design.md "MCP gateway"): the
 * tools the last import of each enabled upstream MCP server of the agent's desk listed
 * (`mcp_upstream.toolNames`, recorded by lib/server/tools/mcp-upstreams.ts), as the current catalog
 * defines them, that the agent's allowlist permits. Of two servers of a desk listing one tool, the
 * one imported last serves it. A tool of another desk's upstream, a disabled upstream's tool, or a
 * tool outside the allowlist is not listed and cannot be called (the same "unknown tool" as a name
 * that does not exist). A tool some tool names as its commit tool (`x-plandesk-stage`) is never an
 * agent's: Plandesk calls it when it promotes a staged run, so it is neither listed nor callable.
 */
import type { ImportedToolSpec } from "../../tools/json-schema-tool";
import { stagingOfSchema } from "../../tools/tool-bindings";
import { agentDesk, type AgentCaller } from "../auth/viewer";
import { prisma } from "../db/db";
import { importedToolsAt, latestCatalogVersion } from "../tools/imported-tools";
import type { McpUpstreamRow } from "../tools/mcp-upstreams";

/** One tool of the gateway: its catalog spec, the upstream it is called on, and whether it is a read. */
export interface GatewayTool {
  spec: ImportedToolSpec;
  upstream: McpUpstreamRow;
  /** A read (forwarded at once, recorded as evidence): the upstream annotated it `readOnlyHint: true`. */
  read: boolean;
}

/**
 * The agent's gateway tools, in name order (see the module comment). Reads the desk's upstream
 * rows (a handful, indexed by desk) and the catalog's imported tools (a small configuration table).
 */
export async function gatewayToolsOf(agent: AgentCaller): Promise<GatewayTool[]> {
  const upstreams = await prisma.mcpUpstream.findMany({ where: { desk: agentDesk(agent), disabledAt: null, toolsImportedAt: { not: null } }, orderBy: { toolsImportedAt: "asc" } });
  if (upstreams.length === 0) return [];
  const allowed = new Set(agent.allowedTools);
  // later imports override earlier ones
  const serverOf = new Map<string, McpUpstreamRow>();
  for (const u of upstreams) {
    for (const name of Array.isArray(u.toolNames) ? u.toolNames : []) if (typeof name === "string" && allowed.has(name)) serverOf.set(name, u);
  }
  if (serverOf.size === 0) return [];
  const specs = await importedToolsAt(await latestCatalogVersion());
  const tools: GatewayTool[] = [];
  // a commit tool is Plandesk's to call when it promotes a staged run, never an agent's
  const commits = new Set(specs.map((s) => stagingOfSchema(s.inputSchema).commit).filter((c): c is string => c !== null));
  for (const spec of specs) {
    const upstream = spec.source === "mcp" && !commits.has(spec.name) ? serverOf.get(spec.name) : undefined;
    if (upstream) tools.push({ spec, upstream, read: spec.annotations?.readOnlyHint === true });
  }
  return tools.sort((a, b) => a.spec.name.localeCompare(b.spec.name));
}

/** The agent's gateway tool `name`, or undefined (unknown, another desk's, disabled, or not allowed). */
export async function gatewayToolOf(agent: AgentCaller, name: string): Promise<GatewayTool | undefined> {
  return (await gatewayToolsOf(agent)).find((t) => t.spec.name === name);
}
