/**
 * The demo desk's MCP gateway, ready on a fresh `npm start` (docs/mcp-gateway.md "Put
 * Plandesk in front of your MCP servers"): what an admin does for a real desk, done by the seed through the
 * same functions the admin API calls, as the demo admin (Adam Admin, so the audit trail says who):
 *
 * 1. imports the tools of the registered carrier (examples/carrier-mcp over stdio:
 *    `importMcpUpstreamTools`, `POST /api/admin/desks/{deskId}/mcp-servers/{id}/import`);
 * 2. allows its tools for the freight desk's demo agent (`setAgentAllowedTools`,
 *    `PUT /api/admin/agents/{agentId}/allowed-tools`);
 * 3. lets the freight desk's people approve and author its write, as the seed grants every plain
 *    (no-money) built-in tool (`setGrant`, `PUT /api/admin/users/{userId}/grants/{tool}`);
 * 4. permits both tools for delivery exceptions, the intent of the reference case task_74991
 *    (`saveIntentCatalog`, `PUT /api/admin/desks/{deskId}/intents`).
 *
 * Done once: only while the carrier's tools were never imported (a fresh database, or one reset).
 * A rerun of the seed, or a database an admin changed since, is left as it is.
 */
import { DEFAULT_DESK } from "../../desk/desks";
import { setGrant } from "../admin/admin";
import { prisma } from "../db/db";
import { getIntentCatalogForAdmin, saveIntentCatalog } from "../tasks/intent-catalog-admin";
import { importMcpUpstreamTools, listUpstream, type ListedTools } from "../tools/mcp-upstreams";
import type { McpToolEntry } from "../../tools/json-schema-tool";
import { setAgentAllowedTools } from "../tools/imported-tools";

/** The carrier's tools (examples/carrier-mcp/server.ts): a read and a write. */
export const DEMO_CARRIER_TOOLS = { read: "get_tracking", write: "book_redelivery" } as const;

/** The intent of the reference case (task_74991) that permits the carrier's tools. */
export const DEMO_CARRIER_INTENT = "delivery_exception";

/** The carrier's `tools/list` as this process last asked it, by stdio command line. */
const listings = new Map<string, McpToolEntry[]>();

/**
 * The carrier's `tools/list`: asked once per process and command line (starting the stdio server
 * costs 1–2 s — most of a demo reset, `POST /api/demo/reset`, which imports it again into the
 * emptied catalog), then remembered. The carrier is the example this checkout ships, so its tools
 * change only with the code, and a changed checkout means a restarted server. A real desk's
 * imports (the admin API) always ask the server.
 */
const rememberedListing: ListedTools = async (row) => {
  const key = JSON.stringify([row.command, row.args]);
  const known = listings.get(key);
  if (known) return known;
  const tools = await listUpstream(row);
  listings.set(key, tools);
  return tools;
};

/**
 * Makes the demo desk's gateway ready as described in the module comment: the carrier upstream
 * `upstreamId` of the freight desk, the agent `agentId`, the people `userIds` (freight desk), as
 * admin `adminId`. Returns whether it did anything (false: the carrier was imported before).
 * Errors: those of the admin functions it calls — 400 `bad_request` when the carrier cannot be
 * started or listed (e.g. `tsx` missing), 422 `validation_failed` when its stdio command is not
 * allowed (PLANDESK_DEMO=0). Each step is its own transaction; after a failed import nothing is
 * written and the next seed tries again.
 */
export async function enableDemoGateway(opts: { upstreamId: string; agentId: string; userIds: readonly string[]; adminId: string }): Promise<boolean> {
  const upstream = await prisma.mcpUpstream.findFirst({ where: { id: opts.upstreamId, desk: DEFAULT_DESK }, select: { toolsImportedAt: true } });
  if (!upstream || upstream.toolsImportedAt) return false;
  const admin = { id: opts.adminId, role: "admin" as const };
  const tools = [DEMO_CARRIER_TOOLS.read, DEMO_CARRIER_TOOLS.write];

  // the import first: the allowlist, grants and intents name only tools of the current catalog.
  // A failed import leaves `toolsImportedAt` empty, so the next seed tries every step again.
  await importMcpUpstreamTools(admin, DEFAULT_DESK, opts.upstreamId, undefined, rememberedListing);
  const agent = await prisma.agent.findUniqueOrThrow({ where: { id: opts.agentId }, select: { allowedTools: true } });
  const allowed = Array.isArray(agent.allowedTools) ? agent.allowedTools.filter((t): t is string => typeof t === "string") : [];
  await setAgentAllowedTools(admin, opts.agentId, [...new Set([...allowed, ...tools])]);
  for (const userId of opts.userIds) {
    await setGrant(admin, userId, DEMO_CARRIER_TOOLS.write, { canApprove: true, approveLimit: null, canAuthor: true, authorLimit: null });
  }
  const catalog = await getIntentCatalogForAdmin(admin, DEFAULT_DESK);
  const intents = catalog.intents.map((i) =>
    i.name === DEMO_CARRIER_INTENT ? { ...i, permittedTools: [...i.permittedTools, ...tools.filter((t) => !i.permittedTools.includes(t))] } : i,
  );
  if (JSON.stringify(intents) !== JSON.stringify(catalog.intents)) {
    await saveIntentCatalog(admin, DEFAULT_DESK, { baseDigest: catalog.digest, intents, note: "The carrier's tracking and redelivery (demo MCP gateway)" });
  }
  return true;
}
