import type { ReferenceWrite } from "../reference-write";
import type { EscalateTicketArgs } from "./tool";

/** The reference write of `escalate_ticket`: recorded only (the demo desk keeps no ticket queue). */
export const writeEscalateTicket: ReferenceWrite<EscalateTicketArgs> = async (_tx, { ticketId, team }) => ({
  summary: `Recorded an escalation of ticket ${ticketId} to ${team}.`,
  record: null,
});
