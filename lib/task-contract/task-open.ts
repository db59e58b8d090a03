import { z } from "zod";
import { MAX_PARTS_PER_REVISION, taskContractSchema, taskTextPartInputSchema, TEXT_SOURCE_LABELS, type TaskTextPartInput } from "./schema";

/** Longest ticket id the integration may post (characters); the task id `task_<ticketId>` stays within an id's 128. */
export const MAX_TICKET_ID = 64;

/**
 * The ticketing integration opens a task for a new ticket (`POST /api/v1/tasks`): the ticket's id
 * in the ticketing system (`ticketId`, an identifier such as "74991"), the customer account it is
 * about (`accountId`, an account of the key's desk), its subject, the task's text as parts with
 * their sources (`parts: [{source, text}]`, at least one; customer and attachment text is data,
 * never instruction) and optionally the task contract (`{intent, constraints}`, checked against
 * the desk's catalog by the service). Strict: an unknown field is a 400.
 */
export const openTaskBodySchema = z
  .object({
    ticketId: z
      .string()
      .trim()
      .min(1)
      .max(MAX_TICKET_ID)
      .regex(/^[A-Za-z0-9][A-Za-z0-9_.:-]*$/, "A ticket id is letters, digits and _ . : - (starting with a letter or digit)"),
    accountId: z.string().trim().min(1).max(64),
    subject: z.string().trim().min(1, "Give the ticket a subject").max(200),
    parts: z.array(taskTextPartInputSchema).min(1, "Send the task's text as at least one part").max(MAX_PARTS_PER_REVISION),
    contract: taskContractSchema.optional(),
  })
  .strict();
/** The parsed body of `POST /api/v1/tasks` (see `openTaskBodySchema`). */
export type OpenTaskBody = z.output<typeof openTaskBodySchema>;

/**
 * The body of a task opened from `parts`, composed as a revision composes the parts it appends
 * (lib/server/tasks/revise-task.ts): one part is its text alone; several are each labelled with
 * their source ("customer message: …") and separated by a blank line, so the body is the whole
 * text and says who wrote what.
 */
export function composeOpeningBody(parts: readonly TaskTextPartInput[]): string {
  if (parts.length === 1) return parts[0].text;
  return parts.map((p) => `${TEXT_SOURCE_LABELS[p.source]}: ${p.text}`).join("\n\n");
}
