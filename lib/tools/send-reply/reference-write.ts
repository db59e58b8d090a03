import type { ReferenceWrite } from "../reference-write";
import type { SendReplyArgs } from "./tool";

/** The reference write of `send_reply`: recorded only (the demo desk keeps no ticket thread). */
export const writeSendReply: ReferenceWrite<SendReplyArgs> = async (_tx, { ticketId }) => ({
  summary: `Recorded a reply to the customer on ticket ${ticketId}.`,
  record: null,
});
