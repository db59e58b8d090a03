import { z } from "zod";
import { deskIdSchema } from "../../desk/desks";
import { defineEndpoint } from "../contract";
import { ADMIN, idParam, page } from "./common";
import { importResultSchema, importUpstreamBodySchema } from "./tool-import-api";

/*
 * A desk's upstream MCP tool servers (docs/api-extensions.md "Upstream MCP servers of a desk"): an admin registers a stdio server the server's
 * configuration allows, or a Streamable HTTP URL with an optional credential, lists and disables
 * them, and imports their tools into the tool catalog. A credential is write-only: no answer ever
 * carries it (only its kind, header and at most its last 4 characters). Declared once like every
 * endpoint (lib/api/contract.ts); listed in ENDPOINTS (lib/api/endpoints.ts).
 */

/** An upstream's name on its desk: 1–40 lower-case letters, digits, `_` or `-`, starting with a letter or digit. */
export const mcpUpstreamNameSchema = z
  .string()
  .regex(/^[a-z0-9][a-z0-9_-]{0,39}$/, "1–40 lower-case letters, digits, _ or -, starting with a letter or digit");

/** Visible ASCII only (a header value may not hold control characters or line breaks). */
const secretText = z
  .string()
  .min(1)
  .max(4096)
  .regex(/^[\x21-\x7E](?:[\x20-\x7E]*[\x21-\x7E])?$/, "visible ASCII characters without leading or trailing spaces");

/** Headers a credential may not replace (the transport's own). */
const RESERVED_HEADERS = new Set(["host", "content-type", "content-length", "accept", "connection", "transfer-encoding", "mcp-session-id", "mcp-protocol-version", "last-event-id", "cookie"]);

/**
 * The credential Plandesk sends to an HTTP upstream: `bearer` (`Authorization: Bearer <token>`) or
 * `header` (`<header>: <value>`, e.g. `x-api-key`). Stored encrypted; never answered back.
 */
export const mcpCredentialInputSchema = z.discriminatedUnion("kind", [
  z.object({ kind: z.literal("bearer"), token: secretText }).strict(),
  z
    .object({
      kind: z.literal("header"),
      header: z
        .string()
        .regex(/^[A-Za-z0-9][A-Za-z0-9-]{0,63}$/, "a header name (letters, digits, -)")
        .transform((h) => h.toLowerCase())
        .refine((h) => !RESERVED_HEADERS.has(h), "a header the transport sets itself"),
      value: secretText,
    })
    .strict(),
]);

/** An http(s) URL without user name or password in it (a credential goes in `credential`). */
const upstreamUrl = z
  .string()
  .max(2000)
  .refine((u) => {
    try {
      const url = new URL(u);
      return (url.protocol === "http:" || url.protocol === "https:") && !url.username && !url.password;
    } catch {
      return false;
    }
  }, "an http:// or https:// URL without a user name or password (put the credential in `credential`)");

/**
 * Body of `POST /api/admin/desks/{deskId}/mcp-servers`: a stdio server named in the server's
 * configuration (`server`: a `PLANDESK_MCP_SERVERS` name, or `carrier`, the shipped example, in
 * demo mode), or a Streamable HTTP `url` with an optional `credential`.
 */
export const registerMcpUpstreamBodySchema = z.discriminatedUnion("transport", [
  z.object({ transport: z.literal("stdio"), name: mcpUpstreamNameSchema, server: z.string().min(1).max(100) }).strict(),
  z.object({ transport: z.literal("http"), name: mcpUpstreamNameSchema, url: upstreamUrl, credential: mcpCredentialInputSchema.optional() }).strict(),
]);
/** A parsed {@link registerMcpUpstreamBodySchema}. */
export type RegisterMcpUpstreamBody = z.output<typeof registerMcpUpstreamBodySchema>;

/** An upstream MCP server as every answer shows it: never its credential. */
export const mcpUpstreamViewSchema = z
  .object({
    id: z.string(),
    desk: z.string(),
    name: z.string(),
    transport: z.enum(["stdio", "http"]),
    command: z.string().nullable().meta({ description: "stdio: the program Plandesk starts" }),
    args: z.array(z.string()).nullable(),
    url: z.string().nullable().meta({ description: "http: the Streamable HTTP endpoint" }),
    credential: z
      .object({
        kind: z.enum(["bearer", "header"]),
        header: z.string(),
        last4: z.string().nullable().meta({ description: "The credential's last 4 characters (null when it is shorter than 16)" }),
      })
      .nullable()
      .meta({ description: "null: no credential is stored (none was given, or the server was disabled)" }),
    createdAt: z.string(),
    createdById: z.string(),
    disabledAt: z.string().nullable(),
  })
  .meta({ id: "McpUpstream" });
/** A parsed {@link mcpUpstreamViewSchema}. */
export type McpUpstreamView = z.output<typeof mcpUpstreamViewSchema>;

const deskParams = z.object({ deskId: deskIdSchema });
const upstreamParams = z.object({ deskId: deskIdSchema, upstreamId: idParam });

export const listMcpUpstreamsEndpoint = defineEndpoint({
  id: "listMcpUpstreams",
  method: "GET",
  path: "/api/admin/desks/{deskId}/mcp-servers",
  summary: "A desk's upstream MCP servers, one page in name order (credentials never shown)",
  caller: ADMIN,
  params: deskParams,
  query: z.object(page),
  success: { status: [200], schema: z.object({ servers: z.array(mcpUpstreamViewSchema), nextCursor: z.string().nullable() }), description: "{servers, nextCursor}" },
  refusals: ["not_found"],
});

export const registerMcpUpstreamEndpoint = defineEndpoint({
  id: "registerMcpUpstream",
  method: "POST",
  path: "/api/admin/desks/{deskId}/mcp-servers",
  summary: "Register an upstream MCP server for a desk: a configured stdio server, or a Streamable HTTP URL with its credential (stored encrypted, never shown again)",
  description:
    "A stdio `server` must be configured on the Plandesk server (PLANDESK_MCP_SERVERS; `carrier` in demo mode): the console never runs a command typed into a form (422 `validation_failed` otherwise). A credential is sealed with AES-256-GCM under PLANDESK_SECRETS_KEY; without that key outside demo mode a credential is refused 409 `secrets_key_missing`. A name the desk already uses (also by a disabled server) is 409 `mcp_upstream_taken`. Audited `admin_change` `desk.mcp_server.register` without the credential.",
  caller: ADMIN,
  params: deskParams,
  body: registerMcpUpstreamBodySchema,
  success: { status: [201], schema: z.object({ server: mcpUpstreamViewSchema }), description: "{server}" },
  refusals: ["not_found", "mcp_upstream_taken", "secrets_key_missing", "validation_failed"],
});

export const disableMcpUpstreamEndpoint = defineEndpoint({
  id: "disableMcpUpstream",
  method: "DELETE",
  path: "/api/admin/desks/{deskId}/mcp-servers/{upstreamId}",
  summary: "Disable a desk's upstream MCP server and erase its stored credential (the row stays for the record)",
  description: "Disabling a disabled server answers it unchanged. Audited `admin_change` `desk.mcp_server.disable`. Tools imported from it stay in the catalog.",
  caller: ADMIN,
  params: upstreamParams,
  success: { status: [200], schema: z.object({ server: mcpUpstreamViewSchema }), description: "{server}" },
  refusals: ["not_found"],
});

export const importMcpUpstreamToolsEndpoint = defineEndpoint({
  id: "importMcpUpstreamTools",
  method: "POST",
  path: "/api/admin/desks/{deskId}/mcp-servers/{upstreamId}/import",
  summary: "Connect to a desk's upstream MCP server and import its tools into the tool catalog (as every MCP import)",
  description:
    "stdio: the configured command is started; http: Streamable HTTP with the decrypted credential as its header. The upstream refusing the credential (401/403) is 422 `upstream_auth_failed`; any other failure to connect or list is 400 `bad_request` (messages never carry the credential). A stored credential that fails authentication (changed, or another key) is 409 `credential_unreadable`. The optional body's `bindings` bind the tools' arguments to the desk's declared record kinds (as the tool import's); a binding that does not hold is 422 `validation_failed` {problems} and nothing is imported.",
  caller: ADMIN,
  params: upstreamParams,
  body: importUpstreamBodySchema,
  success: { status: [201], schema: importResultSchema, description: "{catalogVersion, created, added, changed, unchanged, problems}" },
  refusals: ["not_found", "mcp_upstream_disabled", "upstream_auth_failed", "credential_unreadable", "secrets_key_missing", "validation_failed"],
});
