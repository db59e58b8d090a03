/** Declarations of the desk administration API (`/api/admin/desks`, admin session). */
import { z } from "zod";
import { createDeskSchema, deskIdSchema, deskViewSchema, updateAgentSchema } from "../desk/desks";
import { intentCatalogDraftSchema } from "../task-contract/intent-catalog";
import { intentSchema } from "../task-contract/schema";
import { defineEndpoint } from "./contract";
import { agentViewSchema } from "./schemas";
import { ADMIN, idParam, page } from "./endpoints/common";



export const listDesksEndpoint = defineEndpoint({
  id: "listDesks",
  method: "GET",
  path: "/api/admin/desks",
  summary: "Tenant desks with their counts of people, agents and accounts, one page (id order)",
  caller: ADMIN,
  query: z.object(page),
  success: { status: [200], schema: z.object({ desks: z.array(deskViewSchema), nextCursor: z.string().nullable() }), description: "{desks, nextCursor}" },
  refusals: [],
});

export const createDeskEndpoint = defineEndpoint({
  id: "createDesk",
  method: "POST",
  path: "/api/admin/desks",
  summary: "Create a tenant desk (a boundary around its people, agents, accounts and runs)",
  caller: ADMIN,
  body: createDeskSchema,
  success: { status: [201], schema: z.object({ desk: deskViewSchema }), description: "{desk}" },
  refusals: ["desk_taken"],
});

export const updateAgentEndpoint = defineEndpoint({
  id: "updateAgent",
  method: "PATCH",
  path: "/api/admin/agents/{agentId}",
  summary: "Assign an agent to a desk (it then reads, plans and claims for that desk only)",
  caller: ADMIN,
  params: z.object({ agentId: idParam }),
  body: updateAgentSchema,
  success: { status: [200], schema: z.object({ agent: agentViewSchema }), description: "{agent}" },
  refusals: ["not_found", "unknown_desk"],
});

/** A desk's intent catalog as the editor reads it: the desk, its intents in order, their digest and the tools an intent may permit. */
/** A desk's intent catalog as the admin editor and the API show it. */
export const intentCatalogViewSchema = z
  .object({
    desk: z.object({ id: z.string(), name: z.string() }),
    intents: z.array(intentSchema),
    digest: z.string().meta({ description: "Lowercase hex SHA-256 of the canonical JSON of {intents, defaultIntent}; send it back as baseDigest." }),
    tools: z.array(z.object({ name: z.string(), label: z.string(), imported: z.boolean() })),
    notInCatalog: z.array(z.string()).meta({ description: "Tools the saved intents permit that the current catalog does not have (kept; in force once imported)." }),
    defaultIntent: z.string().nullable().meta({ description: "The intent a task gets when the integration posts no contract; null: none declared (only replies and notes are permitted)." }),
  })
  .meta({ id: "IntentCatalog" });
/** A parsed {@link intentCatalogViewSchema}. */
export type IntentCatalogView = z.output<typeof intentCatalogViewSchema>;
const deskParams = z.object({ deskId: deskIdSchema });

export const getIntentCatalogEndpoint = defineEndpoint({
  id: "getIntentCatalog",
  method: "GET",
  path: "/api/admin/desks/{deskId}/intents",
  summary: "A desk's intent catalog (what its task contracts may name, and the tools each intent permits)",
  caller: ADMIN,
  params: deskParams,
  success: { status: [200], schema: intentCatalogViewSchema, description: "{desk, intents, digest, tools}" },
  refusals: ["not_found"],
});

export const saveIntentCatalogEndpoint = defineEndpoint({
  id: "saveIntentCatalog",
  method: "PUT",
  path: "/api/admin/desks/{deskId}/intents",
  summary: "Replace a desk's intent catalog (audited); a task whose intent is removed then permits no tool",
  description: "`baseDigest` must be the digest of the catalog as it is (409 `stale_intent_catalog` {digest} otherwise). A permitted tool the current catalog does not have is 422 `validation_failed` {issues: [{path, code: \"unknown_tool\", message}]}. `defaultIntent` (optional) sets the intent a task gets when the integration posts no contract: an intent of the new catalog, null for none, absent to keep it; one the new catalog lacks is 400 `bad_request` {issues: [{path: \"defaultIntent\", message}]}, and so is removing the current default intent without naming another (or null).",
  caller: ADMIN,
  params: deskParams,
  body: intentCatalogDraftSchema,
  success: { status: [200], schema: intentCatalogViewSchema, description: "{desk, intents, digest, tools}" },
  refusals: ["not_found", "stale_intent_catalog", "validation_failed"],
});
