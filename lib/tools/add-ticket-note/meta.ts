import { defineToolMeta } from "../tool-meta";

/**
 * What people and the console's pages see of `add_ticket_note` (name, label, effect, gate, grant class,
 * form fields): plain data, no argument schema, so a page that only shows steps loads no
 * validation code (docs/design.md "Page weight"). The tool's definition (./tool.ts) spreads it.
 */
export const addTicketNoteMeta = defineToolMeta({
  name: "add_ticket_note",
  label: "Add ticket note",
  description: "Adds an internal note to a ticket. Customers never see it.",
  effect: "internal",
  gate: "auto",
  fields: [
    { name: "ticketId", label: "Ticket", kind: "ticket_id" },
    { name: "note", label: "Note", kind: "textarea", help: "Internal only; the customer does not see it." },
  ],
  grantClass: "plain",
  moneyArg: null,
});
