import { defineToolMeta } from "../tool-meta";

/** Teams a ticket can be escalated to, with labels for the form. */
export const ESCALATION_TEAMS = [
  { value: "billing", label: "Billing" },
  { value: "claims", label: "Claims" },
  { value: "customs", label: "Customs" },
  { value: "operations", label: "Operations" },
  { value: "management", label: "Management" },
] as const;

/**
 * What people and the console's pages see of `escalate_ticket` (name, label, effect, gate, grant class,
 * form fields): plain data, no argument schema, so a page that only shows steps loads no
 * validation code (docs/design.md "Page weight"). The tool's definition (./tool.ts) spreads it.
 */
export const escalateTicketMeta = defineToolMeta({
  name: "escalate_ticket",
  label: "Escalate ticket",
  description: "Assigns the ticket to a specialist team with a note explaining why.",
  effect: "internal",
  gate: "auto",
  fields: [
    { name: "ticketId", label: "Ticket", kind: "ticket_id" },
    { name: "team", label: "Team", kind: "team", options: ESCALATION_TEAMS },
    { name: "note", label: "Note", kind: "textarea" },
  ],
  grantClass: "plain",
  moneyArg: null,
});
