import type { ReferenceWrite } from "../reference-write";
import type { AddTicketNoteArgs } from "./tool";

/** The reference write of `add_ticket_note`: recorded only (the demo desk keeps no ticket thread). */
export const writeAddTicketNote: ReferenceWrite<AddTicketNoteArgs> = async (_tx, { ticketId }) => ({
  summary: `Recorded an internal note on ticket ${ticketId}.`,
  record: null,
});
