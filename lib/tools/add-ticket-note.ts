import { z } from "zod";
import { defineTool } from "./types";
import { checkTicketExists, recordId, requiredText, targetIfExists } from "./shared";

/**
 * `add_ticket_note` — an internal note on a ticket; customers never see it.
 * Args `{ticketId: "74991", note}`; effect internal, gate auto.
 * Bounds: the ticket exists (`unknown_id`). Source: DESIGN.md "The demo domain".
 */
export const addTicketNote = defineTool({
  name: "add_ticket_note",
  label: "Add ticket note",
  description: "Adds an internal note to a ticket. Customers never see it.",
  effect: "internal",
  gate: "auto",
  argsSchema: z
    .object({
      ticketId: recordId("Ticket"),
      note: requiredText("Note", 4000),
    })
    .strict(),
  fields: [
    { name: "ticketId", label: "Ticket", kind: "ticket_id" },
    { name: "note", label: "Note", kind: "textarea", help: "Internal only; the customer does not see it." },
  ],
  target: (args, desk) => targetIfExists(desk, "ticket", args.ticketId),
  amount: () => undefined,
  checkBounds: (args, ctx) => checkTicketExists(ctx, args.ticketId),
});

/** Parsed arguments of `add_ticket_note`. */
export type AddTicketNoteArgs = z.infer<typeof addTicketNote.argsSchema>;
