import { z } from "zod";
import type { StepInput } from "../../plan/schema";
import { type DemoRun, type ScalePlanContext, defineBuiltinTool, MODEL } from "../builtin-tool";
import { ESCALATION_TEAMS, escalateTicketMeta } from "./meta";
import { ownIn } from "../../effects/state";
import { checkTicketExists, recordId, requiredText, targetIfExists } from "../shared";

/** Schema of an escalation team value. */
export const teamSchema = z.enum(
  ESCALATION_TEAMS.map((t) => t.value) as [(typeof ESCALATION_TEAMS)[number]["value"], ...(typeof ESCALATION_TEAMS)[number]["value"][]],
  { error: "Choose a team: billing, claims, customs, operations or management" },
);

/**
 * `escalate_ticket` — hands a ticket to a team with a note. Args `{ticketId, team, note}`
 * (team ∈ billing | claims | customs | operations | management); effect internal, gate auto.
 * Bounds: the ticket exists (`unknown_id`). Source: docs/design.md "The demo domain".
 */
export const escalateTicket = defineBuiltinTool({
  ...escalateTicketMeta,
  argsSchema: z
    .object({
      ticketId: recordId("Ticket"),
      team: teamSchema,
      note: requiredText("Note", 4000),
    })
    .strict(),
  target: (args, desk) => targetIfExists(desk, "ticket", args.ticketId),
  amount: () => undefined,
  checkBounds: (args, ctx) => checkTicketExists(ctx, args.ticketId),
  issueCodes: {},
  effectModel: {
    kind: "known",
    apply: (state, args) => ({
    ok: true,
    state: { ...state, escalations: { ...state.escalations, [args.ticketId]: args.team } },
    changes: [{ kind: "ticket_escalation", ticketId: args.ticketId, before: ownIn(state.escalations, args.ticketId) ?? null, after: args.team }],
  }),
  },
  seed: {
    example: () => ({ ticketId: "74991", team: "claims" as const, note: "Damage claim" }),
    demo: {
      runs: (): DemoRun[] => [
        {
          key: "customs-74995",
          ticketId: "74995",
          scenario: "customs hold",
          ageHours: 4,
          steps: [
            { id: "st_escalate", tool: "escalate_ticket", args: { ticketId: "74995", team: "customs", note: "Temperature-controlled pharma held at Oslo customs; certificate missing." }, provenance: { team: MODEL } },
            { id: "st_reply", tool: "send_reply", args: { ticketId: "74995", body: "Your shipment is held by customs pending a certificate. Our customs team is on it and will update you today." }, provenance: { body: MODEL } },
          ],
        },
        {
          key: "damaged-75001",
          ticketId: "75001",
          scenario: "damaged goods",
          ageHours: 6,
          steps: [
            { id: "st_escalate", tool: "escalate_ticket", args: { ticketId: "75001", team: "claims", note: "Three crushed sacks on sh_5620; photos attached." }, provenance: {} },
            { id: "st_note", tool: "add_ticket_note", args: { ticketId: "75001", note: "Claim opened with the claims team." }, provenance: {} },
          ],
        },
        {
          key: "customs-75003",
          ticketId: "75003",
          scenario: "customs hold",
          ageHours: 7,
          steps: [
            { id: "st_escalate", tool: "escalate_ticket", args: { ticketId: "75003", team: "customs", note: "Documents resubmitted for sh_5541 at Rotterdam." }, provenance: {} },
            { id: "st_reply", tool: "send_reply", args: { ticketId: "75003", body: "Thanks — the documents are with customs; we will let you know as soon as the hold is lifted." }, provenance: {} },
          ],
        },
      ],
    },
    scale: (c: ScalePlanContext): StepInput[] | null => [
      { id: "st_escalate", tool: "escalate_ticket", args: { ticketId: c.ticketId, team: c.pick(["customs", "claims", "billing", "operations"]), note: "Needs a specialist." }, provenance: {} },
      c.note("Escalated to the specialist team."),
    ],
  },
});

/** Parsed arguments of `escalate_ticket`. */
export type EscalateTicketArgs = z.infer<typeof escalateTicket.argsSchema>;
