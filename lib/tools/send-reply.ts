import { z } from "zod";
import { defineTool } from "./types";
import { checkTicketExists, recordId, requiredText, targetIfExists } from "./shared";

/**
 * `send_reply` — a reply to the customer on a ticket. Args `{ticketId, body}`; effect
 * customer_visible, gate approval; the body goes through the commitment scan of the content
 * stage whoever wrote it. Bounds: the ticket exists (`unknown_id`).
 * Source: DESIGN.md "The demo domain", §1.6.
 */
export const sendReply = defineTool({
  name: "send_reply",
  label: "Send reply",
  description: "Sends a reply to the customer on the ticket. The customer sees it at once.",
  effect: "customer_visible",
  gate: "approval",
  argsSchema: z
    .object({
      ticketId: recordId("Ticket"),
      body: requiredText("Reply", 10000),
    })
    .strict(),
  fields: [
    { name: "ticketId", label: "Ticket", kind: "ticket_id" },
    { name: "body", label: "Reply", kind: "textarea", help: "Sent to the customer as written." },
  ],
  target: (args, desk) => targetIfExists(desk, "ticket", args.ticketId),
  amount: () => undefined,
  customerText: (args) => args.body,
  checkBounds: (args, ctx) => checkTicketExists(ctx, args.ticketId),
});

/** Parsed arguments of `send_reply`. */
export type SendReplyArgs = z.infer<typeof sendReply.argsSchema>;
