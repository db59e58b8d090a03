/** Declarations of the admin API (`/api/admin`, admin session) and the public OpenAPI document. */
import { z } from "zod";
import { createAgentSchema, createApiKeySchema, createIntegrationKeySchema, createUserSchema, grantInputSchema, updateUserSchema } from "../../people/admin-schemas";
import { defineEndpoint } from "../contract";
import { adminUserSchema, agentViewSchema, apiKeySchema, grantViewSchema, integrationKeySchema } from "../schemas";
import { idParam, page, ADMIN } from "./common";

// ── admin API ────────────────────────────────────────────────────────────────

const userParams = z.object({ userId: idParam });

export const listUsersEndpoint = defineEndpoint({
  id: "listUsers",
  method: "GET",
  path: "/api/admin/users",
  summary: "People, one page",
  caller: ADMIN,
  query: z.object(page),
  success: { status: [200], schema: z.object({ users: z.array(adminUserSchema), nextCursor: z.string().nullable().optional() }), description: "{users, nextCursor}" },
  refusals: [],
});

export const createUserEndpoint = defineEndpoint({
  id: "createUser",
  method: "POST",
  path: "/api/admin/users",
  summary: "Create a person with a role and an initial password",
  caller: ADMIN,
  body: createUserSchema,
  success: { status: [201], schema: z.object({ user: adminUserSchema }), description: "{user}" },
  refusals: ["email_taken", "unknown_desk"],
});

export const getUserEndpoint = defineEndpoint({
  id: "getUser",
  method: "GET",
  path: "/api/admin/users/{userId}",
  summary: "A person with a grant row per tool",
  caller: ADMIN,
  params: userParams,
  success: { status: [200], schema: z.object({ user: adminUserSchema, grants: z.array(grantViewSchema) }), description: "{user, grants}" },
  refusals: ["not_found"],
});

export const updateUserEndpoint = defineEndpoint({
  id: "updateUser",
  method: "PATCH",
  path: "/api/admin/users/{userId}",
  summary: "Change a person's role or disable them (ends their sessions)",
  caller: ADMIN,
  params: userParams,
  body: updateUserSchema,
  success: { status: [200], schema: z.object({ user: adminUserSchema }), description: "{user}" },
  refusals: ["not_found", "last_admin", "unknown_desk"],
});

export const setGrantEndpoint = defineEndpoint({
  id: "setGrant",
  method: "PUT",
  path: "/api/admin/users/{userId}/grants/{tool}",
  summary: "Set a person's authority over one tool (approve, author, ceilings)",
  caller: ADMIN,
  params: z.object({ userId: idParam, tool: idParam }),
  body: grantInputSchema,
  success: { status: [200], schema: z.object({ grant: grantViewSchema }), description: "{grant}" },
  refusals: ["not_found"],
});

export const listAgentsEndpoint = defineEndpoint({
  id: "listAgents",
  method: "GET",
  path: "/api/admin/agents",
  summary: "Agents with their allowlists and keys, one page",
  caller: ADMIN,
  query: z.object(page),
  success: { status: [200], schema: z.object({ agents: z.array(agentViewSchema), nextCursor: z.string().nullable().optional() }), description: "{agents, nextCursor}" },
  refusals: [],
});

export const createAgentEndpoint = defineEndpoint({
  id: "createAgent",
  method: "POST",
  path: "/api/admin/agents",
  summary: "Create an agent with a tool allowlist",
  caller: ADMIN,
  body: createAgentSchema,
  success: { status: [201], schema: z.object({ agent: agentViewSchema }), description: "{agent}" },
  refusals: ["unknown_desk"],
});

export const createApiKeyEndpoint = defineEndpoint({
  id: "createApiKey",
  method: "POST",
  path: "/api/admin/agents/{agentId}/keys",
  summary: "Create an API key for an agent (shown once), optionally named and with an expiry",
  description:
    "Body (optional): name (1–100 characters, where the key is used) and expiresAt (an ISO-8601 instant in the future; absent or null: never). From expiresAt on, requests with the key are refused 401 unauthorized. The key's lastUsedAt is kept to the minute.",
  caller: ADMIN,
  params: z.object({ agentId: idParam }),
  body: createApiKeySchema,
  success: { status: [201], schema: z.object({ apiKey: apiKeySchema, key: z.string() }), description: "{apiKey, key} — the key is shown only here" },
  refusals: ["not_found", "validation_failed"],
});

export const revokeApiKeyEndpoint = defineEndpoint({
  id: "revokeApiKey",
  method: "POST",
  path: "/api/admin/agents/{agentId}/keys/{keyId}/revoke",
  summary: "Revoke an agent's API key",
  caller: ADMIN,
  params: z.object({ agentId: idParam, keyId: idParam }),
  success: { status: [200], schema: z.object({ apiKey: apiKeySchema }), description: "{apiKey}" },
  refusals: ["not_found"],
});

export const listIntegrationKeysEndpoint = defineEndpoint({
  id: "listIntegrationKeys",
  method: "GET",
  path: "/api/admin/integration-keys",
  summary: "Ticketing-integration keys (prefix, created, last used, revoked), one page",
  caller: ADMIN,
  query: z.object(page),
  success: { status: [200], schema: z.object({ integrationKeys: z.array(integrationKeySchema), nextCursor: z.string().nullable().optional() }), description: "{integrationKeys, nextCursor}" },
  refusals: [],
});

export const createIntegrationKeyEndpoint = defineEndpoint({
  id: "createIntegrationKey",
  method: "POST",
  path: "/api/admin/integration-keys",
  summary: "Create an integration key (shown once) with its scopes: tasks, records, or both",
  description:
    "scopes (at least one; absent: both, as keys made before scopes existed): `tasks` opens and revises tasks and reports ticket events (POST /api/v1/tasks, …/revisions, …/events); `records` writes and reads the records door (PUT/DELETE/GET /api/v1/records/{kind}/{id}, POST /api/v1/records/batch). A key used outside its scopes is refused 403 key_scope_missing {scope, keyScopes}. desk (optional) binds the key to one desk's tasks and records.",
  caller: ADMIN,
  body: createIntegrationKeySchema,
  success: { status: [201], schema: z.object({ integrationKey: integrationKeySchema, key: z.string() }), description: "{integrationKey, key} — the key is shown only here" },
  refusals: ["unknown_desk"],
});

export const revokeIntegrationKeyEndpoint = defineEndpoint({
  id: "revokeIntegrationKey",
  method: "POST",
  path: "/api/admin/integration-keys/{keyId}/revoke",
  summary: "Revoke a ticketing-integration key (its next request gets 401)",
  caller: ADMIN,
  params: z.object({ keyId: idParam }),
  success: { status: [200], schema: z.object({ integrationKey: integrationKeySchema }), description: "{integrationKey}" },
  refusals: ["not_found"],
});

// ── public ───────────────────────────────────────────────────────────────────

export const openApiEndpoint = defineEndpoint({
  id: "getOpenApi",
  method: "GET",
  path: "/api/openapi.json",
  summary: "This document",
  caller: { kind: "public" },
  success: { status: [200], schema: z.record(z.string(), z.unknown()), description: "OpenAPI 3.1" },
  refusals: [],
});
