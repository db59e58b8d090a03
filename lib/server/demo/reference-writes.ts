import type { ToolName } from "../../tools/builtin-tools";
import type { ReferenceWrite } from "../../tools/reference-write";
import { writeAddTicketNote } from "../../tools/add-ticket-note/reference-write";
import { writeApplyCredit } from "../../tools/apply-credit/reference-write";
import { writeCancelShipment } from "../../tools/cancel-shipment/reference-write";
import { writeEscalateTicket } from "../../tools/escalate-ticket/reference-write";
import { writeIssueRefund } from "../../tools/issue-refund/reference-write";
import { writeRescheduleDelivery } from "../../tools/reschedule-delivery/reference-write";
import { writeSendReply } from "../../tools/send-reply/reference-write";
import { writeWaiveFee } from "../../tools/waive-fee/reference-write";

/**
 * The reference executor's write per built-in tool (each beside its tool in
 * lib/tools/<tool>/reference-write.ts). Typed `Record<ToolName, …>`: a built-in tool without a
 * write does not compile. Imported tools have none; the demo executor refuses them.
 */
export const REFERENCE_WRITES: Readonly<Record<ToolName, ReferenceWrite<never>>> = {
  add_ticket_note: writeAddTicketNote,
  reschedule_delivery: writeRescheduleDelivery,
  send_reply: writeSendReply,
  issue_refund: writeIssueRefund,
  apply_credit: writeApplyCredit,
  waive_fee: writeWaiveFee,
  escalate_ticket: writeEscalateTicket,
  cancel_shipment: writeCancelShipment,
};
