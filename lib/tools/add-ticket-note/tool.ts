import { z } from "zod";
import { type DemoRun, defineBuiltinTool } from "../builtin-tool";
import { addTicketNoteMeta } from "./meta";
import { checkTicketExists, recordId, requiredText, targetIfExists } from "../shared";

/**
 * `add_ticket_note` — an internal note on a ticket; customers never see it.
 * Args `{ticketId: "74991", note}`; effect internal, gate auto.
 * Bounds: the ticket exists (`unknown_id`). Source: docs/design.md "The demo domain".
 */
export const addTicketNote = defineBuiltinTool({
  ...addTicketNoteMeta,
  argsSchema: z
    .object({
      ticketId: recordId("Ticket"),
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
    state: { ...state, notes: [...state.notes, { ticketId: args.ticketId, text: args.note }] },
    changes: [{ kind: "ticket_note", ticketId: args.ticketId, text: args.note }],
  }),
  },
  seed: {
    example: () => ({ ticketId: "74991", note: "Called the consignee." }),
    demo: {
      runs: (): DemoRun[] => [
        {
          key: "note-75004",
          ticketId: "75004",
          scenario: "address change",
          ageHours: 2,
          steps: [
            { id: "st_note", tool: "add_ticket_note", args: { ticketId: "75004", note: "New Oslo delivery contact: Ingrid Berg, +47 22 00 00 00." }, provenance: {} },
          ],
        },
      ],
    },
    scale: null,
  },
});

/** Parsed arguments of `add_ticket_note`. */
export type AddTicketNoteArgs = z.infer<typeof addTicketNote.argsSchema>;
