import { z } from "zod";
import { deskIdSchema } from "../../desk/desks";
import { importedToolSpecSchema } from "../../tools/json-schema-tool";
import { defineEndpoint } from "../contract";

/*
 * The tool catalog's endpoints: an admin imports tools from JSON Schema (MCP
 * `tools/list`, OpenAI function definitions, a configured MCP server) and sets an agent's
 * allowlist over built-in and imported tools. Declared once like every endpoint
 * (lib/api/contract.ts); listed in ENDPOINTS (lib/api/endpoints.ts).
 */

const ADMIN = { kind: "session", roles: ["admin"] } as const;
const agentId = z
  .string()
  .min(1)
  .max(128)
  .regex(/^[A-Za-z0-9][A-Za-z0-9_.:-]*$/, "not an identifier");

const boundedRecord = <T extends z.ZodType>(value: T, max: number, what: string) =>
  z.record(z.string().min(1).max(64), value).refine((r) => Object.keys(r).length <= max, `At most ${max} ${what}`);

/**
 * The admin's bindings of imported tools to a desk's declared record kinds (lib/tools/tool-bindings.ts),
 * for servers whose schemas lack them: tool name → argument → `{record?: "<kind>", max?:
 * "<kind>.available", window?: "<kind>.window", effect?: {lower: "<kind>.available"}}`. The keys
 * and values are checked by the import (typed problems with their paths, nothing imported on any).
 */
export const toolBindingsBodySchema = boundedRecord(boundedRecord(z.record(z.string().max(64), z.unknown()), 100, "arguments per tool"), 200, "tools");

/**
 * What every import source may add: `desk`, the desk whose declared record kinds the tools'
 * bindings name (required when a tool carries `x-plandesk-…` bindings), and `bindings`
 * (see toolBindingsBodySchema).
 */
const bindingFields = { desk: deskIdSchema.optional(), bindings: toolBindingsBodySchema.optional() };

/** Body of `POST /api/admin/tools/import` (one of three sources, each with optional `desk` and `bindings`). */
export const importToolsBodySchema = z.discriminatedUnion("source", [
  z.object({ source: z.literal("mcp_tools_list"), label: z.string().trim().min(1).max(200), payload: z.unknown(), ...bindingFields }).strict(),
  z.object({ source: z.literal("openai_functions"), label: z.string().trim().min(1).max(200), payload: z.unknown(), readOnly: z.array(z.string()).max(200).optional(), ...bindingFields }).strict(),
  z.object({ source: z.literal("mcp_server"), server: z.string().min(1).max(100), ...bindingFields }).strict(),
]);

/** Body of `POST /api/admin/desks/{deskId}/mcp-servers/{upstreamId}/import` (optional; empty: none): the admin's bindings of the server's tools to the desk's declared kinds. */
export const importUpstreamBodySchema = z.object({ bindings: toolBindingsBodySchema.optional() }).strict();
export type ImportToolsBody = z.infer<typeof importToolsBodySchema>;

/**
 * Body of `PUT /api/admin/agents/{agentId}/executes-tools`: every tool the agent's executor can
 * run, or null for "its allowlist".
 */
export const executesToolsBodySchema = z.object({ executesTools: z.array(z.string().min(1).max(64)).max(500).nullable() }).strict();

/** Body of `PUT /api/admin/agents/{agentId}/allowed-tools`: the agent's whole allowlist. */
export const allowedToolsBodySchema = z.object({ allowedTools: z.array(z.string().min(1).max(64)).max(500) }).strict();

/** A tool the import refused: its name and reason; a binding problem also has its code and path (lib/tools/tool-bindings.ts BindingProblemCode). */
const problemSchema = z.object({ name: z.string(), reason: z.string(), code: z.string().optional(), path: z.string().optional() });
/** What an import did. */
export const importResultSchema = z.object({
  catalogVersion: z.number().int().nullable(),
  created: z.boolean(),
  added: z.array(z.string()),
  changed: z.array(z.string()),
  unchanged: z.array(z.string()),
  problems: z.array(problemSchema),
});
/** What an import did. */
export type ImportResult = z.output<typeof importResultSchema>;

export const listToolCatalogEndpoint = defineEndpoint({
  id: "listToolCatalog",
  method: "GET",
  path: "/api/admin/tools",
  summary: "The tool catalog: built-in tool names and the imported tools of the latest catalog version",
  caller: ADMIN,
  success: {
    status: [200],
    schema: z.object({ catalogVersion: z.number().int().nullable(), imported: z.array(importedToolSpecSchema), builtIn: z.array(z.string()) }),
    description: "{catalogVersion, imported: [tool], builtIn: [name]}",
  },
  refusals: [],
});

export const importToolsEndpoint = defineEndpoint({
  id: "importTools",
  method: "POST",
  path: "/api/admin/tools/import",
  summary: "Import tools from an MCP tools/list, OpenAI function definitions or a configured MCP server",
  description:
    "Each tool's JSON Schema becomes its argument schema (validator shape stage and typed form). A change makes catalog version N+1; runs keep the version they were validated against. MCP annotations set gate defaults: readOnlyHint → auto; destructiveHint false → approval; destructive or unannotated → irreversible (always approval). Arguments may be bound to the record kinds `desk` declared (`x-plandesk-record`, `x-plandesk-max`, `x-plandesk-window`, `x-plandesk-effect` in the schema, or `bindings` in the body): a bound tool gets the checks of the built-in money tools. A binding that does not hold is 422 `validation_failed` {problems: [{name, code, path, reason}]} and nothing is imported.",
  caller: ADMIN,
  body: importToolsBodySchema,
  success: { status: [201], schema: importResultSchema, description: "{catalogVersion, created, added, changed, unchanged, problems}" },
  refusals: ["validation_failed"],
});

export const setAllowedToolsEndpoint = defineEndpoint({
  id: "setAllowedTools",
  method: "PUT",
  path: "/api/admin/agents/{agentId}/allowed-tools",
  summary: "Set which tools (built-in or imported) an agent may call",
  caller: ADMIN,
  params: z.object({ agentId }),
  body: allowedToolsBodySchema,
  success: { status: [200], schema: z.object({ agent: z.object({ id: z.string(), allowedTools: z.array(z.string()) }) }), description: "{agent: {id, allowedTools}}" },
  refusals: ["not_found"],
});

export const setExecutesToolsEndpoint = defineEndpoint({
  id: "setExecutesTools",
  method: "PUT",
  path: "/api/admin/agents/{agentId}/executes-tools",
  summary: "Declare which tools the agent's executor can run (null: its allowlist)",
  description:
    "An operator's edit may not add a step whose tool the run's agent cannot execute (422 validation_failed, issue code tool_not_executable); an executor that meets such a step reports cannot_execute.",
  caller: ADMIN,
  params: z.object({ agentId }),
  body: executesToolsBodySchema,
  success: {
    status: [200],
    schema: z.object({ agent: z.object({ id: z.string(), executesTools: z.array(z.string()).nullable(), effectiveExecutesTools: z.array(z.string()) }) }),
    description: "{agent: {id, executesTools, effectiveExecutesTools}}",
  },
  refusals: ["not_found"],
});
