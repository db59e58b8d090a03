import { z } from "zod";
import { defineTool } from "./types";
import { checkTicketExists, recordId, requiredText, targetIfExists } from "./shared";

/** Teams a ticket can be escalated to, with labels for the form. */
export const ESCALATION_TEAMS = [
  { value: "billing", label: "Billing" },
  { value: "claims", label: "Claims" },
  { value: "customs", label: "Customs" },
  { value: "operations", label: "Operations" },
  { value: "management", label: "Management" },
] as const;

/** Schema of an escalation team value. */
export const teamSchema = z.enum(
  ESCALATION_TEAMS.map((t) => t.value) as [(typeof ESCALATION_TEAMS)[number]["value"], ...(typeof ESCALATION_TEAMS)[number]["value"][]],
  { error: "Choose a team: billing, claims, customs, operations or management" },
);

/**
 * `escalate_ticket` — hands a ticket to a team with a note. Args `{ticketId, team, note}`
 * (team ∈ billing | claims | customs | operations | management); effect internal, gate auto.
 * Bounds: the ticket exists (`unknown_id`). Source: DESIGN.md "The demo domain".
 */
export const escalateTicket = defineTool({
  name: "escalate_ticket",
  label: "Escalate ticket",
  description: "Assigns the ticket to a specialist team with a note explaining why.",
  effect: "internal",
  gate: "auto",
  argsSchema: z
    .object({
      ticketId: recordId("Ticket"),
      team: teamSchema,
      note: requiredText("Note", 4000),
    })
    .strict(),
  fields: [
    { name: "ticketId", label: "Ticket", kind: "ticket_id" },
    { name: "team", label: "Team", kind: "team", options: ESCALATION_TEAMS },
    { name: "note", label: "Note", kind: "textarea" },
  ],
  target: (args, desk) => targetIfExists(desk, "ticket", args.ticketId),
  amount: () => undefined,
  checkBounds: (args, ctx) => checkTicketExists(ctx, args.ticketId),
});

/** Parsed arguments of `escalate_ticket`. */
export type EscalateTicketArgs = z.infer<typeof escalateTicket.argsSchema>;
