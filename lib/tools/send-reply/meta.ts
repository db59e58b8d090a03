import { defineToolMeta } from "../tool-meta";

/**
 * What people and the console's pages see of `send_reply` (name, label, effect, gate, grant class,
 * form fields): plain data, no argument schema, so a page that only shows steps loads no
 * validation code (docs/design.md "Page weight"). The tool's definition (./tool.ts) spreads it.
 */
export const sendReplyMeta = defineToolMeta({
  name: "send_reply",
  label: "Send reply",
  description: "Sends a reply to the customer on the ticket. The customer sees it at once.",
  effect: "customer_visible",
  gate: "approval",
  fields: [
    { name: "ticketId", label: "Ticket", kind: "ticket_id" },
    { name: "body", label: "Reply", kind: "textarea", help: "Sent to the customer as written." },
  ],
  grantClass: "plain",
  moneyArg: null,
});
