/**
 * The versioned tool catalog in the database: imported tools (MCP `tools/list`,
 * OpenAI-style function definitions) and the catalog version each import created; the catalog a
 * run is validated against; an agent's allowlist over built-in and imported tools.
 *
 * Versions: every import that changes something creates catalog version N+1 with a row per new
 * or changed tool (an unchanged tool keeps its row). The catalog at version V = for each name
 * the row with the highest catalogVersion ≤ V. A run records the current version at submission
 * (`Run.catalogVersion`) and every later validation of it — edits, approvals, claims — uses that
 * version, so a later import never changes what an approved step means.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { nanoid } from "nanoid";
import { z } from "zod";
import { DomainError } from "../../errors/domain-error";
import { Prisma } from "../../generated/prisma/client";
import { canonicalJson } from "../../plan/canonical-json";
import { toolNames } from "../../tools/builtin-tools";
import {
  draftsFromMcpTools,
  draftsFromOpenAiFunctions,
  MAX_TOOLS_PER_IMPORT,
  importedToolSpecSchema,
  type ImportProblem,
  type ImportedToolSpec,
  type JsonSchema,
  type McpToolEntry,
  type OpenAiFunctionDefinition,
} from "../../tools/json-schema-tool";
import { storedRolesSchema, type RecordKindRoles } from "../../records/record-kind-declaration";
import { checkImportStaging, mergeAdminBindings, readToolBindings, TOOL_KEYWORDS, type AdminToolBindings } from "../../tools/tool-bindings";
import { builtinCatalog, catalogWith, type CatalogToolOption, type ToolCatalog } from "../../tools/versioned-catalog";
import { appendAudit, type Actor } from "../audit-log/append-audit";
import { prisma } from "../db/db";
import { requireRole } from "../auth/require-role";
import type { Viewer } from "../auth/viewer";
import { inTransaction, ok } from "../db/transaction";

type Db = Prisma.TransactionClient | typeof prisma;

/** The latest catalog version, or null when nothing was ever imported. */
export async function latestCatalogVersion(db: Db = prisma): Promise<number | null> {
  const row = await db.toolCatalogVersion.findFirst({ orderBy: { version: "desc" }, select: { version: true } });
  return row?.version ?? null;
}

/**
 * The imported tools of catalog `version` (latest row per name with catalogVersion ≤ version).
 * Reads the imported-tool table up to that version — a small configuration table (tens of
 * tools, a row per tool and change), never account data.
 */
export async function importedToolsAt(version: number | null, db: Db = prisma): Promise<ImportedToolSpec[]> {
  if (version === null) return [];
  const rows = await db.importedTool.findMany({
    where: { catalogVersion: { lte: version } },
    orderBy: [{ name: "asc" }, { catalogVersion: "desc" }],
    include: { catalog: { select: { sourceRef: true } } },
  });
  const latest = new Map<string, ImportedToolSpec>();
  for (const r of rows) {
    if (latest.has(r.name)) continue;
    const spec = importedToolSpecSchema.safeParse({
      name: r.name,
      label: r.label,
      description: r.description,
      inputSchema: r.inputSchema,
      annotations: r.annotations,
      effect: r.effect,
      gate: r.gate,
      source: r.source,
      sourceRef: r.catalog.sourceRef,
      catalogVersion: r.catalogVersion,
    });
    if (spec.success) latest.set(r.name, spec.data);
  }
  return [...latest.values()];
}

/** The catalog at `version` (built-in tools plus that version's imported tools). */
export async function catalogAt(version: number | null, db: Db = prisma): Promise<ToolCatalog> {
  if (version === null) return builtinCatalog;
  return catalogWith(await importedToolsAt(version, db), version);
}

/** The current catalog (what a new run is validated against and records). */
export async function currentCatalog(db: Db = prisma): Promise<ToolCatalog> {
  return catalogAt(await latestCatalogVersion(db), db);
}

/** What an import did: the API's import result (lib/api/endpoints/tool-import-api.ts), declared once. */
export type { ImportResult };

export { importToolsBodySchema, allowedToolsBodySchema, type ImportToolsBody } from "../../api/endpoints/tool-import-api";
import type { ImportResult, ImportToolsBody } from "../../api/endpoints/tool-import-api";

/** `tools/list` result (`{tools: [...]}`) or the bare list. Errors: 400 `bad_request`. */
function mcpEntries(payload: unknown): McpToolEntry[] {
  const list = Array.isArray(payload) ? payload : (payload as { tools?: unknown } | null)?.tools;
  if (!Array.isArray(list)) throw new DomainError("bad_request", "Paste the result of MCP tools/list: {\"tools\": [...]} or the list itself.");
  return list.filter((t): t is McpToolEntry => typeof t === "object" && t !== null && typeof (t as McpToolEntry).name === "string");
}

/** OpenAI function definitions (`[{type: "function", function: {...}}]`, `{tools: [...]}` or `{functions: [...]}`). Errors: 400. */
function openAiEntries(payload: unknown): OpenAiFunctionDefinition[] {
  const p = payload as { tools?: unknown; functions?: unknown } | null;
  const list = Array.isArray(payload) ? payload : Array.isArray(p?.tools) ? p.tools : p?.functions;
  if (!Array.isArray(list)) throw new DomainError("bad_request", "Paste a list of function definitions: [{\"type\": \"function\", \"function\": {\"name\", \"parameters\"}}].");
  return list as OpenAiFunctionDefinition[];
}

/**
 * MCP servers an admin may import from in the console, by name: `PLANDESK_MCP_SERVERS` is a JSON
 * object `{"name": {"command": "...", "args": [...]}}`. The console never runs a command typed
 * into a form; the import script (`npm run tools:import -- --mcp "<command>"`) runs any.
 */
export function configuredMcpServers(env: Record<string, string | undefined> = process.env): Record<string, { command: string; args: string[] }> {
  try {
    const parsed = z.record(z.string(), z.object({ command: z.string().min(1), args: z.array(z.string()).default([]) })).safeParse(JSON.parse(env.PLANDESK_MCP_SERVERS ?? "{}"));
    return parsed.success ? parsed.data : {};
  } catch {
    return {};
  }
}

/**
 * Lists an MCP server's tools over stdio with the official SDK (`Client` +
 * `StdioClientTransport`): starts `command args`, `initialize`, `tools/list` (all pages), closes.
 * Errors: throws DomainError `bad_request` when the server cannot be started or answered.
 */
export async function listMcpServerTools(command: string, args: string[], timeoutMs = 20_000): Promise<McpToolEntry[]> {
  return listMcpTools(new StdioClientTransport({ command, args, stderr: "pipe" }), `"${[command, ...args].join(" ")}"`, { timeoutMs });
}

/**
 * Lists the tools of the MCP server at the other end of `transport` (any SDK client transport:
 * stdio, Streamable HTTP) with the official SDK `Client`: `initialize`, `tools/list` (all pages),
 * close. `label` names the server in messages. `refusal` may turn a failure into a more precise
 * typed refusal (e.g. a refused credential); `redact` cleans a failure's text before it is put in
 * a message (e.g. removes a credential an upstream echoed).
 * Errors: DomainError `bad_request` when the server cannot be reached, started or answered (or
 * what `refusal` returns).
 */
export async function listMcpTools(
  transport: Transport,
  label: string,
  opts: { timeoutMs?: number; refusal?: (e: unknown) => DomainError | null; redact?: (text: string) => string } = {},
): Promise<McpToolEntry[]> {
  const timeout = opts.timeoutMs ?? 20_000;
  const client = new Client({ name: "plandesk-tool-import", version: "1.0.0" });
  try {
    await client.connect(transport, { timeout });
    const tools: McpToolEntry[] = [];
    let cursor: string | undefined;
    do {
      const page = await client.listTools(cursor ? { cursor } : {}, { timeout });
      tools.push(...(page.tools as McpToolEntry[]));
      cursor = page.nextCursor;
    } while (cursor);
    return tools;
  } catch (e) {
    const refusal = opts.refusal?.(e);
    if (refusal) throw refusal;
    const text = (opts.redact ?? ((t: string) => t))(e instanceof Error ? e.message : String(e)).slice(0, 500);
    throw new DomainError("bad_request", `The MCP server ${label} could not be listed: ${text}`);
  } finally {
    await client.close().catch(() => undefined);
  }
}

/**
 * Imports tools into the catalog. `drafts` come from json-schema-tool.ts; a draft
 * equal to the current definition of its name is `unchanged`; others are `added` or `changed`
 * and are written as catalog version N+1 (one transaction; a concurrent import retries on the
 * version's unique key). Nothing changed → no new version. Audited `tool_catalog.import`
 * (actor: the admin, or system for the script). Built-in tools are never replaced.
 */
export async function importDrafts(
  drafts: ReturnType<typeof draftsFromMcpTools>,
  source: { kind: "mcp" | "openai"; ref: string },
  actor: Actor,
  db: typeof prisma = prisma,
): Promise<ImportResult> {
  // a concurrent import writes the same version number: its unique key fires, and inTransaction
  // runs the body again on the new latest version
  return inTransaction<ImportResult>(async (tx) => {
    const current = await latestCatalogVersion(tx);
    const existing = new Map((await importedToolsAt(current, tx)).map((s) => [s.name, s]));
    const same = (a: ImportedToolSpec | undefined, d: (typeof drafts.drafts)[number]) =>
      !!a && canonicalJson({ ...a, catalogVersion: 0, sourceRef: "" }) === canonicalJson({ ...d, catalogVersion: 0, sourceRef: "" });
    const added: string[] = [];
    const changed: string[] = [];
    const unchanged: string[] = [];
    const problems = [...drafts.problems];
    const enabledUpstreams = new Set((await tx.mcpUpstream.findMany({ where: { disabledAt: null }, select: { desk: true, name: true } })).map((u) => `${UPSTREAM_REF}${u.desk}/${u.name}`));
    const toWrite = drafts.drafts.filter((d) => {
      const prev = existing.get(d.name);
      if (same(prev, d)) {
        unchanged.push(d.name);
        return false;
      }
      const taken = prev ? takenBy(prev, source, enabledUpstreams) : null;
      if (taken) {
        problems.push({ name: d.name, code: "tool_name_taken", reason: `${d.name} is provided by ${taken} with another definition; one server's import cannot change another's tool (rename it on this server, or disable the other server first).` });
        return false;
      }
      if (prev && prev.annotations?.readOnlyHint !== true && d.annotations?.readOnlyHint === true) {
        problems.push({ name: d.name, code: "read_only_changed", reason: `${d.name} was imported as a write; a re-import cannot make it a read-only tool (which the MCP gateway forwards without approval). Give the read another name.` });
        return false;
      }
      (prev ? changed : added).push(d.name);
      return true;
    });
    if (toWrite.length === 0) return ok({ catalogVersion: current, created: false, added, changed, unchanged, problems });
    const version = (current ?? 0) + 1;
    await tx.toolCatalogVersion.create({ data: { version, source: source.kind, sourceRef: source.ref.slice(0, 500), importedById: actor.kind === "user" ? actor.id : null } });
    for (const d of toWrite) {
      await tx.importedTool.create({
        data: {
          id: `tool_${nanoid(12)}`,
          name: d.name,
          catalogVersion: version,
          label: d.label,
          description: d.description,
          inputSchema: d.inputSchema as Prisma.InputJsonValue,
          annotations: d.annotations as Prisma.InputJsonValue,
          effect: d.effect,
          gate: d.gate,
          source: d.source,
        },
      });
    }
    await appendAudit(tx, { type: "admin_change", actor, data: { what: "tool_catalog.import", target: { kind: "tool_catalog", id: String(version) }, before: null, after: { added, changed, unchanged }, added, changed, unchanged, catalogVersion: version, source: source.kind, sourceRef: source.ref, problems } });
    return ok({ catalogVersion: version, created: true, added, changed, unchanged, problems });
  }, db);
}

const BUILT_IN = new Set<string>(toolNames);

/** The prefix of the catalog source of tools imported from a desk's registered MCP server ("mcp server <desk>/<name>", lib/server/tools/mcp-upstreams.ts). */
const UPSTREAM_REF = "mcp server ";

/**
 * Which registered MCP server (of any desk) provides tool `prev`, when it is not the importing
 * `source` — the catalog is one list of names, and the gateway serves a desk's tool by its
 * definition there, so another server's import must not replace it (its bindings, schema and
 * whether it is a read). Null when the tool came from this source, or not from a registered server
 * that is still enabled (`enabledUpstreams`: the refs of every enabled upstream — a handful of rows).
 */
function takenBy(prev: ImportedToolSpec, source: { ref: string }, enabledUpstreams: ReadonlySet<string>): string | null {
  if (!enabledUpstreams.has(prev.sourceRef) || prev.sourceRef === source.ref.slice(0, 500)) return null;
  return `the MCP server ${prev.sourceRef.slice(UPSTREAM_REF.length)}`;
}

/** `list` unchanged when it holds at most MAX_TOOLS_PER_IMPORT entries. Errors: 422 `validation_failed` {limit, listed}. */
function capped<T>(list: T[]): T[] {
  if (list.length > MAX_TOOLS_PER_IMPORT) {
    throw new DomainError("validation_failed", `An import may list at most ${MAX_TOOLS_PER_IMPORT} tools; this one lists ${list.length}. Import them in parts.`, {
      limit: MAX_TOOLS_PER_IMPORT,
      listed: list.length,
      issues: [{ path: "payload", message: `At most ${MAX_TOOLS_PER_IMPORT} tools per import` }],
    });
  }
  return list;
}

/**
 * An admin imports tools in the console (`POST /api/admin/tools/import`): from a pasted MCP
 * `tools/list` result, pasted OpenAI function definitions, or a configured MCP server by name.
 * `body.desk` and `body.bindings` bind the tools to the desk's declared record kinds (`bindDrafts`).
 * Errors: 403 `forbidden` unless admin; 400 `bad_request` (unreadable payload, unknown server,
 * server failed); 422 `validation_failed` {problems} when no tool could be imported or a binding
 * does not hold (nothing is imported), or
 * {limit} when the list holds more than MAX_TOOLS_PER_IMPORT tools (nothing is imported).
 */
export async function importToolsAsAdmin(admin: Pick<Viewer, "id" | "role">, body: ImportToolsBody): Promise<ImportResult> {
  await requireRole(admin, ["admin"], "admin.import_tools");
  const actor: Actor = { kind: "user", id: admin.id };
  const binding: ImportBinding = { desk: body.desk, bindings: body.bindings };
  if (body.source === "mcp_server") {
    const server = Object.prototype.hasOwnProperty.call(configuredMcpServers(), body.server) ? configuredMcpServers()[body.server] : undefined;
    if (!server) throw new DomainError("bad_request", `No MCP server "${body.server}" is configured (PLANDESK_MCP_SERVERS).`);
    return importMcpTools(await listMcpServerTools(server.command, server.args), `server ${body.server}`, actor, binding);
  }
  if (body.source === "mcp_tools_list") return importMcpTools(mcpEntries(body.payload), body.label, actor, binding);
  const source = { kind: "openai" as const, ref: body.label };
  return importOrRefuse(draftsFromOpenAiFunctions(capped(openAiEntries(body.payload)), body.label, BUILT_IN, new Set(body.readOnly ?? [])), source, actor, binding);
}

/**
 * How an import binds its tools to declared record kinds (lib/tools/tool-bindings.ts): `desk`, whose
 * current declarations the kinds and roles are checked against, and the admin's `bindings`
 * (tool → argument → {record?, max?, window?, effect?}) written into the tools' schemas.
 */
export interface ImportBinding {
  desk?: string;
  bindings?: Record<string, AdminToolBindings>;
}

/**
 * The drafts with the admin's bindings written into their schemas, every binding checked against
 * `binding.desk`'s current declarations (one primary-key read per kind named). Any problem refuses
 * the whole import — 422 `validation_failed` {problems: [{name, code, path, reason}]}, nothing
 * written — so a tool is never imported without the bindings it was meant to have.
 */
export async function bindDrafts(drafts: ReturnType<typeof draftsFromMcpTools>, binding: ImportBinding): Promise<ReturnType<typeof draftsFromMcpTools>> {
  const admin = binding.bindings ?? {};
  const problems: ImportProblem[] = [];
  const names = new Set(drafts.drafts.map((d) => d.name));
  for (const tool of Object.keys(admin)) {
    if (!names.has(tool)) problems.push({ name: tool.slice(0, 64), code: "unknown_argument", path: `bindings.${tool.slice(0, 64)}`, reason: `The import lists no tool "${tool.slice(0, 64)}" to bind${drafts.problems.some((p) => p.name === tool) ? " (it was refused: see its problem)" : ""}.` });
  }
  const out: typeof drafts.drafts = [];
  const cache = new Map<string, RecordKindRoles | null>();
  for (const d of drafts.drafts) {
    let schema = d.inputSchema;
    if (Object.prototype.hasOwnProperty.call(admin, d.name)) {
      const merged = mergeAdminBindings(schema, admin[d.name]);
      if (!merged.ok) {
        problems.push(...merged.problems.map((p) => ({ name: d.name, code: p.code, path: p.path.replace(/^bindings\./, `bindings.${d.name}.`), reason: p.message })));
        continue;
      }
      schema = merged.schema;
    }
    if (kindsNamed(schema).length === 0 && !argumentBindingsIn(schema)) {
      // no argument bound to a record kind (a tool-level keyword needs no desk; checked below with the whole import)
      const read = readToolBindings(schema);
      if (!read.ok) {
        problems.push(...read.problems.map((p) => ({ name: d.name, code: p.code, path: p.path, reason: p.message })));
        continue;
      }
      out.push({ ...d, inputSchema: schema });
      continue;
    }
    if (!binding.desk) {
      problems.push({ name: d.name, code: "desk_required", path: "desk", reason: `${d.name} binds arguments to declared record kinds; name the desk that declares them (desk).` });
      continue;
    }
    const desk = binding.desk;
    const kinds = kindsNamed(schema);
    for (const k of kinds) if (!cache.has(k)) cache.set(k, await declaredRoles(desk, k));
    const read = readToolBindings(schema, (k) => (cache.has(k) ? cache.get(k)! : null));
    if (!read.ok) {
      problems.push(...read.problems.map((p) => ({ name: d.name, code: p.code, path: p.path, reason: p.message })));
      continue;
    }
    out.push({ ...d, inputSchema: schema });
  }
  // staging and compensation name other tools of the same import (a pair comes from one server)
  const staging = checkImportStaging(out.map((d) => ({ name: d.name, inputSchema: d.inputSchema, readOnly: d.annotations?.readOnlyHint === true })));
  for (const [name, list] of staging) problems.push(...list.map((p) => ({ name, code: p.code, path: p.path, reason: p.message })));
  if (problems.length > 0) {
    throw new DomainError("validation_failed", `Nothing was imported: ${problems.map((p) => `${p.name}: ${p.path ? `${p.path}: ` : ""}${p.reason}`).join("; ").slice(0, 2000)}`, { problems });
  }
  return { drafts: out, problems: drafts.problems };
}

/**
 * The roles of kind `kind` as desk `desk` currently declares it, or null when it does not (one read
 * by the primary key of `record_kind`; lib/server/records owns the declarations, this only reads their roles).
 */
async function declaredRoles(desk: string, kind: string): Promise<RecordKindRoles | null> {
  const row = await prisma.recordKind.findUnique({ where: { desk_kind: { desk, kind } }, select: { roles: true } });
  if (!row) return null;
  const parsed = storedRolesSchema.safeParse(typeof row.roles === "string" ? JSON.parse(row.roles) : row.roles);
  return parsed.success ? parsed.data : null;
}

/** Whether any top-level property of `schema` carries an `x-plandesk-…` keyword (an argument binding, which needs a desk), or any keyword is below the root but for the tool-level ones. */
function argumentBindingsIn(schema: JsonSchema): boolean {
  const rest: JsonSchema = { ...schema };
  for (const k of TOOL_KEYWORDS) delete rest[k];
  return JSON.stringify(rest).includes('"x-plandesk-');
}

/** The kinds a schema's top-level bindings name (`order` of `"order.available"`), at most a few dozen. */
function kindsNamed(schema: JsonSchema): string[] {
  const kinds = new Set<string>();
  const props = (schema.properties ?? {}) as Record<string, JsonSchema>;
  for (const node of Object.values(props)) {
    if (typeof node !== "object" || node === null) continue;
    for (const key of ["x-plandesk-record", "x-plandesk-max", "x-plandesk-window"]) {
      const v = node[key];
      if (typeof v === "string") kinds.add(v.split(".")[0]);
    }
    const eff = node["x-plandesk-effect"];
    if (eff && typeof eff === "object" && typeof (eff as { lower?: unknown }).lower === "string") kinds.add(((eff as { lower: string }).lower).split(".")[0]);
  }
  return [...kinds].filter((k) => /^[a-z][a-z0-9_]{1,39}$/.test(k)).slice(0, 50);
}

/**
 * Imports an MCP server's `tools/list` entries into the catalog, as every MCP import does (the
 * console's paste and configured servers, a desk's upstream servers): at most
 * MAX_TOOLS_PER_IMPORT, drafts by json-schema-tool.ts, bound to `binding.desk`'s declared record
 * kinds (`bindDrafts`), written by `importDrafts` as source `mcp` with `ref` (which names the
 * server; never a credential).
 * Errors: 422 `validation_failed` {problems} when no tool could be imported, {limit} when there are too many.
 */
export async function importMcpTools(tools: McpToolEntry[], ref: string, actor: Actor, binding: ImportBinding = {}): Promise<ImportResult> {
  return importOrRefuse(draftsFromMcpTools(capped(tools), ref, BUILT_IN), { kind: "mcp", ref }, actor, binding);
}

/** `importDrafts` of the drafts with their bindings (`bindDrafts`: any binding problem refuses it all), or 422 `validation_failed` {problems} when there is no draft to import. */
async function importOrRefuse(raw: ReturnType<typeof draftsFromMcpTools>, source: { kind: "mcp" | "openai"; ref: string }, actor: Actor, binding: ImportBinding = {}): Promise<ImportResult> {
  const drafts = await bindDrafts(raw, binding);
  if (drafts.drafts.length === 0) {
    throw new DomainError("validation_failed", drafts.problems.length ? `No tool could be imported: ${drafts.problems.map((p) => `${p.name}: ${p.reason}`).join("; ")}` : "The payload lists no tools.", { problems: drafts.problems });
  }
  return importDrafts(drafts, source, actor);
}

/**
 * The current catalog's tools for the admin forms — the one catalog the services check against:
 * built-in tools first (menu order), then the imported tools of the latest version by name.
 * Errors: 403 `forbidden` unless admin.
 */
export async function catalogToolsForAdmin(admin: Pick<Viewer, "id" | "role">): Promise<{ catalogVersion: number | null; tools: CatalogToolOption[] }> {
  await requireRole(admin, ["admin"], "admin.list_tools");
  const catalog = await currentCatalog();
  return { catalogVersion: catalog.version, tools: catalog.names().map((name) => ({ name, label: catalog.get(name)?.label ?? name, imported: !BUILT_IN.has(name) })) };
}

/** The catalog for the admin page: every tool (built-in and imported, with version and gate). Errors: 403. */
export async function listCatalogForAdmin(admin: Pick<Viewer, "id" | "role">): Promise<{ catalogVersion: number | null; imported: ImportedToolSpec[]; builtIn: string[] }> {
  await requireRole(admin, ["admin"], "admin.list_tools");
  const version = await latestCatalogVersion();
  return { catalogVersion: version, imported: await importedToolsAt(version), builtIn: [...toolNames] };
}


/**
 * Sets an agent's allowlist to `tools` (built-in or imported names of the current catalog; the
 * allowlist decides whether the agent may call an imported tool). Audited `agent.allowed_tools`.
 * Errors: 403; 404 `not_found`; 400 `bad_request` {unknown} for names the catalog does not know.
 */
export async function setAgentAllowedTools(admin: Pick<Viewer, "id" | "role">, agentId: string, tools: string[]): Promise<{ id: string; allowedTools: string[] }> {
  await requireRole(admin, ["admin"], "admin.set_allowed_tools");
  const catalog = await currentCatalog();
  const unknown = tools.filter((t) => !catalog.get(t));
  if (unknown.length) throw new DomainError("bad_request", `Unknown tool ${unknown.join(", ")}.`, { unknown });
  const allowedTools = catalog.names().filter((t) => tools.includes(t));
  return inTransaction(async (tx) => {
    const before = await tx.agent.findUnique({ where: { id: agentId } });
    if (!before) throw new DomainError("not_found", `No agent ${agentId}.`);
    await tx.agent.update({ where: { id: agentId }, data: { allowedTools } });
    await appendAudit(tx, { type: "admin_change", actor: { kind: "user", id: admin.id }, data: { what: "agent.allowed_tools", target: { kind: "agent", id: agentId }, before: before.allowedTools, after: allowedTools } });
    return ok({ id: agentId, allowedTools });
  });
}

/** The tools an agent's executor can run: its declared `executesTools`, else its allowlist. */
export function executableToolsOf(agent: { allowedTools: unknown; executesTools: unknown }): string[] {
  const list = Array.isArray(agent.executesTools) ? agent.executesTools : agent.allowedTools;
  return Array.isArray(list) ? list.filter((t): t is string => typeof t === "string") : [];
}

/**
 * Sets the tools agent `agentId`'s executor declares it can run (`null`: its allowlist), audited
 * `admin_change` (`agent.executes_tools`). Admins only. Errors: 400 `bad_request` {unknown} for a
 * tool the catalog does not have; 404 `not_found`; 403 `forbidden`.
 */
export async function setAgentExecutesTools(
  admin: Pick<Viewer, "id" | "role">,
  agentId: string,
  tools: string[] | null,
): Promise<{ id: string; executesTools: string[] | null; effectiveExecutesTools: string[] }> {
  await requireRole(admin, ["admin"], "admin.set_executes_tools");
  const catalog = await currentCatalog();
  const unknown = (tools ?? []).filter((t) => !catalog.get(t));
  if (unknown.length) throw new DomainError("bad_request", `Unknown tool ${unknown.join(", ")}.`, { unknown });
  const executesTools = tools === null ? null : catalog.names().filter((t) => tools.includes(t));
  return inTransaction(async (tx) => {
    const before = await tx.agent.findUnique({ where: { id: agentId } });
    if (!before) throw new DomainError("not_found", `No agent ${agentId}.`);
    await tx.agent.update({ where: { id: agentId }, data: { executesTools: executesTools === null ? Prisma.DbNull : executesTools } });
    await appendAudit(tx, { type: "admin_change", actor: { kind: "user", id: admin.id }, data: { what: "agent.executes_tools", target: { kind: "agent", id: agentId }, before: before.executesTools, after: executesTools } });
    return ok({ id: agentId, executesTools, effectiveExecutesTools: executableToolsOf({ allowedTools: before.allowedTools, executesTools }) });
  });
}
