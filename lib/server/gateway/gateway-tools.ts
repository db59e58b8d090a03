/**
 * The tools an agent reaches through Plandesk's MCP gateway (docs/design.md "MCP gateway"): the
 * imported tools of the current catalog whose source is an enabled upstream MCP server of the
 * agent's desk (`sourceRef` "mcp server <desk>/<name>", written by every upstream import,
 * lib/server/tools/mcp-upstreams.ts) and that the agent's allowlist permits. A tool of another
 * desk's upstream, a disabled upstream's tool, or a tool outside the allowlist is not listed and
 * cannot be called (the same "unknown tool" as a name that does not exist).
 */
import type { ImportedToolSpec } from "../../tools/json-schema-tool";
import { agentDesk, type AgentCaller } from "../auth/session";
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

/** "mcp server <desk>/<name>" → {desk, name}, or null for another source. */
function upstreamOfRef(ref: string): { desk: string; name: string } | null {
  const m = /^mcp server ([^/\s]+)\/([^/\s]+)$/.exec(ref);
  return m ? { desk: m[1], name: m[2] } : null;
}

/**
 * The agent's gateway tools, in name order (see the module comment). Reads the desk's upstream
 * rows (a handful, indexed by desk) and the catalog's imported tools (a small configuration table).
 */
export async function gatewayToolsOf(agent: AgentCaller): Promise<GatewayTool[]> {
  const desk = agentDesk(agent);
  const upstreams = await prisma.mcpUpstream.findMany({ where: { desk, disabledAt: null } });
  if (upstreams.length === 0) return [];
  const byName = new Map(upstreams.map((u) => [u.name, u]));
  const allowed = new Set(agent.allowedTools);
  const specs = await importedToolsAt(await latestCatalogVersion());
  const tools: GatewayTool[] = [];
  for (const spec of specs) {
    const ref = spec.source === "mcp" ? upstreamOfRef(spec.sourceRef) : null;
    const upstream = ref && ref.desk === desk ? byName.get(ref.name) : undefined;
    if (!upstream || !allowed.has(spec.name)) continue;
    tools.push({ spec, upstream, read: spec.annotations?.readOnlyHint === true });
  }
  return tools.sort((a, b) => a.spec.name.localeCompare(b.spec.name));
}

/** The agent's gateway tool `name`, or undefined (unknown, another desk's, disabled, or not allowed). */
export async function gatewayToolOf(agent: AgentCaller, name: string): Promise<GatewayTool | undefined> {
  return (await gatewayToolsOf(agent)).find((t) => t.spec.name === name);
}
