/** Declarations of the desk administration API (`/api/admin/desks`, admin session). */
import { z } from "zod";
import { createDeskSchema, updateAgentSchema } from "../desk/desks";
import { defineEndpoint } from "./contract";
import { agentViewSchema } from "./schemas";
import { ADMIN, idParam, page } from "./endpoints/common";

/** A desk as admins see it: id, name, when it was made (ISO UTC) and how many people, agents and accounts it has. */
export const deskViewSchema = z
  .object({ id: z.string(), name: z.string(), createdAt: z.string(), users: z.number().int(), agents: z.number().int(), accounts: z.number().int() })
  .meta({ id: "Desk" });


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
