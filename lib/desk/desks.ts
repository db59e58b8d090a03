import { z } from "zod";

/**
 * Tenant desks: a desk is a boundary around its people, agents, customer accounts, tickets and
 * runs — nothing of one desk is seen or reached from another, not in a step's target, a
 * validation message, a preview, a suggestion or a count. Client-safe: no server imports.
 */

/** The desk every account, person and agent belongs to unless assigned another (the column default). */
export const DEFAULT_DESK = "freight";

/**
 * The id of a desk's task for ticket `ticketId`, from the desk and the ticket alone — never from
 * what another desk holds, so the id a desk gets tells it nothing about other desks:
 * `task_<ticketId>` on the default desk (the reference case's `task_74991`), `task_<desk>_<ticketId>`
 * on every other desk (a desk id has no underscore, so two desks' ids never meet except when a
 * default-desk ticket id is itself shaped `<desk>_<ticketId>`; the opener then takes a generated
 * id, lib/server/tasks/open-task.ts).
 */
export function taskIdFor(desk: string, ticketId: string): string {
  return desk === DEFAULT_DESK ? `task_${ticketId}` : `task_${desk}_${ticketId}`;
}

/** A desk id: 2–32 lower-case letters, digits or hyphens, starting with a letter (e.g. "retail"). */
export const deskIdSchema = z
  .string({ error: "Enter a desk id" })
  .trim()
  .regex(/^[a-z][a-z0-9-]{1,31}$/, "2–32 lower-case letters, digits or hyphens, starting with a letter");

/** Body of `POST /api/admin/desks`: a new desk's id and display name. */
export const createDeskSchema = z
  .object({
    id: deskIdSchema,
    name: z.string({ error: "Enter a name" }).trim().min(1, "Enter a name").max(100, "At most 100 characters"),
  })
  .strict();
export type CreateDeskInput = z.infer<typeof createDeskSchema>;

/** Body of `PATCH /api/admin/agents/{agentId}`: the desk the agent works. */
export const updateAgentSchema = z.object({ desk: deskIdSchema }).strict();
export type UpdateAgentInput = z.infer<typeof updateAgentSchema>;

/** A desk as the admin console and the API list it: id, name, when it was made (ISO UTC) and how many people, agents and accounts it has (counts of that desk only). */
export const deskViewSchema = z
  .object({ id: z.string(), name: z.string(), createdAt: z.string(), users: z.number().int(), agents: z.number().int(), accounts: z.number().int() })
  .meta({ id: "Desk" });
export type DeskView = z.output<typeof deskViewSchema>;
