/**
 * A desk's upstream MCP tool servers (docs/api-extensions.md "Upstream MCP servers of a desk": where the MCP gateway will reach a desk's tools): an admin registers a
 * stdio server the Plandesk server's configuration allows, or a Streamable HTTP URL with an
 * optional credential; lists and disables them; and imports their tools into the tool catalog
 * through the one MCP import path (`listMcpTools` + `importMcpTools`, imported-tools.ts).
 *
 * Credentials: sealed with AES-256-GCM under PLANDESK_SECRETS_KEY (lib/server/secrets/secret-box.ts),
 * bound to the row's id and desk; opened only to connect to the upstream. No answer, audit event,
 * error message or log line carries one: views show its kind, header and at most its last 4
 * characters (of a credential of 16 or more); an upstream's error text is cleaned of it before it is
 * put in a message. Disabling a server erases its credential.
 *
 * Scope: the endpoints are for admins (global, like every admin resource, lib/api/endpoints/mcp-upstream-api.ts);
 * every query has the desk in its `where`, so a server id named under another desk is not found.
 * Agent and integration keys reach none of it.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport, StreamableHTTPError } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { nanoid } from "nanoid";
import {
  registerMcpUpstreamBodySchema,
  type McpUpstreamView,
  type RegisterMcpUpstreamBody,
} from "../../api/endpoints/mcp-upstream-api";
import type { ImportResult } from "../../api/endpoints/tool-import-api";
import { DomainError, parseOrBadRequest } from "../../errors/domain-error";
import { Prisma } from "../../generated/prisma/client";
import { appendAudit } from "../audit-log/append-audit";
import { requireRole } from "../auth/require-role";
import type { Viewer } from "../auth/viewer";
import { prisma } from "../db/db";
import { pageSize } from "../db/pagination";
import { inTransaction, ok, type DbOrTx } from "../db/transaction";
import { openSecret, sealSecret, secretsKey } from "../secrets/secret-box";
import { configuredMcpServers, importMcpTools, listMcpTools, type ImportBinding } from "./imported-tools";
import type { McpToolEntry } from "../../tools/json-schema-tool";

type Admin = Pick<Viewer, "id" | "role">;

/** An upstream's view (lib/api/endpoints/mcp-upstream-api.ts `McpUpstream`), declared once. */
export type { McpUpstreamView };

/**
 * The carrier MCP server shipped in this repository (examples/carrier-mcp/server.ts), started
 * over stdio from the repository's root; its call log is data/carrier-calls.jsonl. The demo desk
 * registers it (lib/server/demo/seed.ts).
 */
export const CARRIER_STDIO_SERVER = {
  command: "node",
  args: ["--import", "tsx", "examples/carrier-mcp/server.ts", "--call-log", "data/carrier-calls.jsonl"],
} as const;

/**
 * The stdio servers an admin may register, by name: `PLANDESK_MCP_SERVERS` (see
 * `configuredMcpServers`), plus `carrier` (CARRIER_STDIO_SERVER) in demo mode (PLANDESK_DEMO != "0").
 * The console never runs a command typed into a form; only the server's own configuration names one.
 */
export function allowedStdioServers(env: Record<string, string | undefined> = process.env): Record<string, { command: string; args: string[] }> {
  const demo: Record<string, { command: string; args: string[] }> =
    env.PLANDESK_DEMO !== "0" ? { carrier: { command: CARRIER_STDIO_SERVER.command, args: [...CARRIER_STDIO_SERVER.args] } } : {};
  return { ...demo, ...configuredMcpServers(env) };
}

/** Whether `command args` is exactly one of the allowed stdio servers (checked again at every import). */
function stdioAllowed(command: string, args: string[], env: Record<string, string | undefined> = process.env): boolean {
  return Object.values(allowedStdioServers(env)).some((s) => s.command === command && s.args.length === args.length && s.args.every((a, i) => a === args[i]));
}

/** What a sealed credential is bound to: the row's id and desk (a ciphertext moved to another row does not open). */
const credentialAad = (id: string, desk: string) => `mcp_upstream:${id}:${desk}`;

/** At most the last 4 characters of a credential, and only of one of 16 characters or more. */
const hintOf = (secret: string) => (secret.length >= 16 ? secret.slice(-4) : null);

type Row = Prisma.McpUpstreamGetPayload<object>;

/** The API view of a row: never the credential, only its kind, header and hint while one is stored. */
function viewOf(r: Row): McpUpstreamView {
  return {
    id: r.id,
    desk: r.desk,
    name: r.name,
    transport: r.transport === "http" ? "http" : "stdio",
    command: r.command,
    args: Array.isArray(r.args) ? r.args.filter((a): a is string => typeof a === "string") : null,
    url: r.url,
    credential:
      r.credentialCiphertext && (r.credentialKind === "bearer" || r.credentialKind === "header")
        ? { kind: r.credentialKind, header: r.credentialHeader ?? "authorization", last4: r.credentialHint }
        : null,
    createdAt: r.createdAt.toISOString(),
    createdById: r.createdById,
    disabledAt: r.disabledAt?.toISOString() ?? null,
  };
}

/** The desk, or 404 `not_found` (an admin may name any desk; one that does not exist is not found). */
async function requireDesk(db: DbOrTx, deskId: string): Promise<void> {
  if (!(await db.desk.findUnique({ where: { id: deskId }, select: { id: true } }))) throw new DomainError("not_found", `There is no desk "${deskId}".`);
}

/** The desk's upstream `id`, or 404 `not_found` (also for another desk's id). */
async function upstreamOf(db: DbOrTx, deskId: string, id: string): Promise<Row> {
  const row = await db.mcpUpstream.findFirst({ where: { id, desk: deskId } });
  if (!row) throw new DomainError("not_found", `Desk "${deskId}" has no MCP server "${id}".`);
  return row;
}

/**
 * One page of desk `deskId`'s upstream MCP servers in name order (`opts.limit` 1–200, default 50;
 * `opts.cursor` = the last name of the previous page), disabled ones included. Indexed by
 * (desk, name). Errors: 403 `forbidden` unless admin; 404 `not_found` (desk).
 */
export async function listMcpUpstreams(admin: Admin, deskId: string, opts: { cursor?: string | null; limit?: number } = {}): Promise<{ servers: McpUpstreamView[]; nextCursor: string | null }> {
  await requireRole(admin, ["admin"], "admin.list_mcp_servers");
  await requireDesk(prisma, deskId);
  const limit = pageSize(opts.limit, 50);
  const rows = await prisma.mcpUpstream.findMany({ where: { desk: deskId, ...(opts.cursor ? { name: { gt: opts.cursor } } : {}) }, orderBy: { name: "asc" }, take: limit + 1 });
  const page = rows.slice(0, limit);
  return { servers: page.map(viewOf), nextCursor: rows.length > limit ? page[page.length - 1].name : null };
}

/**
 * Registers an upstream MCP server for desk `deskId` (body: RegisterMcpUpstreamBody). stdio: the
 * named server must be one of `allowedStdioServers()`; its command and args are stored. http: the
 * URL, and the credential sealed under PLANDESK_SECRETS_KEY. One transaction; audited
 * `admin_change` {what: "desk.mcp_server.register", target: {kind: "mcp_server", id}, before: null,
 * after: the view (no credential)}. Nothing is connected to yet (see importMcpUpstreamTools).
 * Errors: 403 `forbidden`; 400 `bad_request` {issues} (body); 404 `not_found` (desk); 422
 * `validation_failed` {issues} for a stdio server the configuration does not name; 409
 * `mcp_upstream_taken` when the desk has a server of that name (disabled ones too); 409
 * `secrets_key_missing` for a credential without a usable key. Nothing is written on any error.
 */
export async function registerMcpUpstream(admin: Admin, deskId: string, raw: unknown): Promise<McpUpstreamView> {
  await requireRole(admin, ["admin"], "admin.register_mcp_server");
  const body: RegisterMcpUpstreamBody = parseOrBadRequest(registerMcpUpstreamBodySchema, raw);
  await requireDesk(prisma, deskId);
  const id = `mcp_${nanoid(12)}`;
  let data: Prisma.McpUpstreamUncheckedCreateInput;
  if (body.transport === "stdio") {
    const allowed = allowedStdioServers();
    const server = Object.prototype.hasOwnProperty.call(allowed, body.server) ? allowed[body.server] : undefined;
    if (!server) {
      const message = `No stdio MCP server "${body.server}" is configured on this Plandesk server (PLANDESK_MCP_SERVERS); the console never runs a command typed into a form.`;
      throw new DomainError("validation_failed", message, { issues: [{ path: "server", message }] });
    }
    data = { id, desk: deskId, name: body.name, transport: "stdio", command: server.command, args: server.args, createdById: admin.id };
  } else {
    const c = body.credential;
    const secret = c ? (c.kind === "bearer" ? c.token : c.value) : null;
    data = {
      id,
      desk: deskId,
      name: body.name,
      transport: "http",
      url: body.url,
      credentialKind: c?.kind ?? null,
      credentialHeader: c ? (c.kind === "bearer" ? "authorization" : c.header) : null,
      // sealed before the transaction: a missing key refuses the registration with nothing written
      credentialCiphertext: secret === null ? null : sealSecret(secret, credentialAad(id, deskId), secretsKey()),
      credentialHint: secret === null ? null : hintOf(secret),
      createdById: admin.id,
    };
  }
  const taken = () => new DomainError("mcp_upstream_taken", `Desk "${deskId}" already has an MCP server named "${body.name}" (a disabled one keeps its name); choose another name.`, { name: body.name });
  try {
    return await inTransaction(async (tx) => {
      if (await tx.mcpUpstream.findUnique({ where: { desk_name: { desk: deskId, name: body.name } }, select: { id: true } })) throw taken();
      const row = await tx.mcpUpstream.create({ data });
      const view = viewOf(row);
      await appendAudit(tx, { type: "admin_change", actor: { kind: "user", id: admin.id }, data: { what: "desk.mcp_server.register", target: { kind: "mcp_server", id }, desk: deskId, before: null, after: view } });
      return ok(view);
    });
  } catch (e) {
    // two registrations of one name at once: the unique (desk, name) key refuses the second
    if (e instanceof Prisma.PrismaClientKnownRequestError && e.code === "P2002") throw taken();
    throw e;
  }
}

/**
 * Disables desk `deskId`'s upstream `id` and erases its stored credential (the row stays, so the
 * audit trail's names resolve; tools imported from it stay in the catalog). Audited `admin_change`
 * {what: "desk.mcp_server.disable"}; disabling a disabled server answers it unchanged, not audited again.
 * Errors: 403 `forbidden`; 404 `not_found` (desk or server, also another desk's server).
 */
export async function disableMcpUpstream(admin: Admin, deskId: string, id: string): Promise<McpUpstreamView> {
  await requireRole(admin, ["admin"], "admin.disable_mcp_server");
  return inTransaction(async (tx) => {
    const before = await upstreamOf(tx, deskId, id);
    if (before.disabledAt) return ok(viewOf(before));
    const row = await tx.mcpUpstream.update({
      where: { id },
      data: { disabledAt: new Date(), disabledById: admin.id, credentialCiphertext: null, credentialHint: null },
    });
    await appendAudit(tx, { type: "admin_change", actor: { kind: "user", id: admin.id }, data: { what: "desk.mcp_server.disable", target: { kind: "mcp_server", id }, desk: deskId, before: viewOf(before), after: viewOf(row) } });
    return ok(viewOf(row));
  });
}

/**
 * `value` (an upstream's answer: JSON) with `redact` applied to every string in it, keys included —
 * a server that echoes the header it received ("invalid token sk_live_…") hands nobody the
 * credential: not the agent, not the gateway's records, not a run's outcome. Pure.
 */
export function redactAnswer<T>(value: T, redact: (text: string) => string): T {
  const walk = (v: unknown, depth: number): unknown => {
    if (typeof v === "string") return redact(v);
    if (depth > 64 || v === null || typeof v !== "object") return v;
    if (Array.isArray(v)) return v.map((x) => walk(x, depth + 1));
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [redact(k), walk(x, depth + 1)]));
  };
  return walk(value, 0) as T;
}

/** `text` with every occurrence of `secret` (and of its URL-encoded form) replaced by "[credential]". */
function redactor(secret: string | null): (text: string) => string {
  if (!secret) return (t) => t;
  const forms = [...new Set([secret, encodeURIComponent(secret)])].filter((f) => f.length > 0);
  return (t) => forms.reduce((acc, f) => acc.split(f).join("[credential]"), t);
}

/**
 * Connects to desk `deskId`'s upstream `id` and imports its tools into the tool catalog exactly as
 * every MCP import (imported-tools.ts `importMcpTools`: drafts, at most 200 tools, catalog
 * version N+1 when something changed, audited `tool_catalog.import` with source ref
 * "mcp server <desk>/<name>"), its tools bound to the desk's declared record kinds by their schemas'
 * `x-plandesk-…` keywords and `bindings` (lib/tools/tool-bindings.ts). stdio: its stored command, only while the configuration still allows
 * it; http: Streamable HTTP (SDK `StreamableHTTPClientTransport`) with the decrypted credential as
 * its header. Records the tools it listed on the row (`toolNames`: what the MCP gateway calls on
 * it). `listed` replaces asking the server for its `tools/list` (the demo seed's remembered listing
 * of the carrier it ships; default `listUpstream`). Returns the import's result.
 * Errors: 403 `forbidden`; 404 `not_found`; 409 `mcp_upstream_disabled`; 409 `credential_unreadable`
 * / `secrets_key_missing` (the stored credential cannot be opened); 422 `upstream_auth_failed`
 * {upstreamStatus} when the upstream answers 401 or 403; 422 `validation_failed` when the stdio
 * server is no longer configured or no tool could be imported; 400 `bad_request` when the upstream
 * cannot be reached or listed (the message never carries the credential).
 */
export async function importMcpUpstreamTools(admin: Admin, deskId: string, id: string, bindings?: ImportBinding["bindings"], listed?: ListedTools): Promise<ImportResult> {
  const binding: ImportBinding = { desk: deskId, bindings };
  await requireRole(admin, ["admin"], "admin.import_mcp_server_tools");
  const row = await upstreamOf(prisma, deskId, id);
  if (row.disabledAt) throw new DomainError("mcp_upstream_disabled", `The MCP server "${row.name}" of desk "${deskId}" is disabled; register it again under another name to import from it.`);
  const ref = `mcp server ${deskId}/${row.name}`;
  const actor = { kind: "user" as const, id: admin.id };
  const tools = await (listed ?? listUpstream)(row);
  return recordToolNames(row.id, await importMcpTools(tools, ref, actor, binding));
}

/** How an import gets an upstream's `tools/list`: by default it asks the server (`listUpstream`). */
export type ListedTools = (row: Row) => Promise<McpToolEntry[]>;

/**
 * Upstream `row`'s `tools/list`, asked the one way an upstream is reached (stdio only while
 * configured; http with the opened credential), as the gateway reaches it. Errors: those of
 * `upstreamTransport` and `listMcpTools` (400 `bad_request` when it cannot be started or listed).
 */
export async function listUpstream(row: Row): Promise<McpToolEntry[]> {
  const { transport, redact, refusal } = upstreamTransport(row);
  return listMcpTools(transport, `"${row.name}" of desk "${row.desk}"`, { redact, refusal });
}

/**
 * Records on upstream `id` the tools its import put in the catalog (added, changed or unchanged):
 * the tools the MCP gateway calls on it (lib/server/gateway/gateway-tools.ts). Returns `result`.
 */
async function recordToolNames(id: string, result: ImportResult): Promise<ImportResult> {
  const names = [...new Set([...result.added, ...result.changed, ...result.unchanged])].sort();
  await prisma.mcpUpstream.update({ where: { id }, data: { toolNames: names, toolsImportedAt: new Date() } });
  return result;
}

/** An upstream row (table `mcp_upstream`). */
export type McpUpstreamRow = Row;

/**
 * The SDK client transport to upstream `row` and the redactor of its credential, for the MCP
 * gateway (lib/server/gateway): stdio — its stored command, only while the configuration still
 * allows it; http — Streamable HTTP with the decrypted credential as its header. The credential
 * lives only in the transport's headers and the returned redactor.
 * Errors: 409 `mcp_upstream_disabled`; 422 `validation_failed` (stdio command no longer
 * configured); 409 `credential_unreadable` / `secrets_key_missing`.
 */
export function upstreamTransport(row: Row): { transport: Transport; redact: (text: string) => string; refusal: (e: unknown) => DomainError | null } {
  if (row.disabledAt) throw new DomainError("mcp_upstream_disabled", `The MCP server "${row.name}" of desk "${row.desk}" is disabled.`);
  if (row.transport === "stdio") {
    const args = Array.isArray(row.args) ? row.args.filter((a): a is string => typeof a === "string") : [];
    if (!row.command || !stdioAllowed(row.command, args)) {
      const message = `The stdio command of MCP server "${row.name}" of desk "${row.desk}" is no longer configured on this Plandesk server (PLANDESK_MCP_SERVERS); it is not started.`;
      throw new DomainError("validation_failed", message, { issues: [{ path: "command", message }] });
    }
    return { transport: new StdioClientTransport({ command: row.command, args, stderr: "pipe" }), redact: (t) => t, refusal: () => null };
  }
  const secret = row.credentialCiphertext ? openSecret(row.credentialCiphertext, credentialAad(row.id, row.desk), secretsKey()) : null;
  const headers: Record<string, string> = {};
  if (secret !== null) headers[row.credentialHeader ?? "authorization"] = row.credentialKind === "bearer" ? `Bearer ${secret}` : secret;
  return {
    transport: new StreamableHTTPClientTransport(new URL(row.url ?? ""), { requestInit: { headers } }),
    redact: redactor(secret),
    refusal: (e) =>
      e instanceof StreamableHTTPError && (e.code === 401 || e.code === 403)
        ? new DomainError("upstream_auth_failed", `The MCP server "${row.name}" of desk "${row.desk}" refused Plandesk's credential (HTTP ${e.code}); register it again with a valid one.`, { upstreamStatus: e.code })
        : null,
  };
}

/**
 * A connected SDK `Client` to upstream `row` (see {@link upstreamTransport}), initialised within
 * `timeoutMs`. The caller closes it. Errors: those of upstreamTransport; 422 `upstream_auth_failed`;
 * 400 `bad_request` when the upstream cannot be started or reached (nothing was sent to it; the
 * message never carries the credential).
 */
export async function connectUpstream(row: Row, timeoutMs = 20_000): Promise<{ client: Client; redact: (text: string) => string }> {
  const { transport, redact, refusal } = upstreamTransport(row);
  const client = new Client({ name: "plandesk-gateway", version: "1.0.0" });
  try {
    await client.connect(transport, { timeout: timeoutMs });
  } catch (e) {
    await client.close().catch(() => undefined);
    const typed = refusal(e);
    if (typed) throw typed;
    throw new DomainError("bad_request", `The MCP server "${row.name}" could not be reached: ${redact(e instanceof Error ? e.message : String(e)).slice(0, 500)}`);
  }
  return { client, redact };
}
