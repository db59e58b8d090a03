import { z } from "zod";
import { type DemoRun, defineBuiltinTool } from "../builtin-tool";
import { sendReplyMeta } from "./meta";
import { checkTicketExists, recordId, requiredText, targetIfExists } from "../shared";

/**
 * `send_reply` — a reply to the customer on a ticket. Args `{ticketId, body}`; effect
 * customer_visible, gate approval; the body goes through the commitment scan of the content
 * stage whoever wrote it. Bounds: the ticket exists (`unknown_id`).
 * Source: docs/design.md "The demo domain", §1.6.
 */
export const sendReply = defineBuiltinTool({
  ...sendReplyMeta,
  argsSchema: z
    .object({
      ticketId: recordId("Ticket"),
      body: requiredText("Reply", 10000),
    })
    .strict(),
  target: (args, desk) => targetIfExists(desk, "ticket", args.ticketId),
  amount: () => undefined,
  customerText: (args) => args.body,
  checkBounds: (args, ctx) => checkTicketExists(ctx, args.ticketId),
  issueCodes: {},
  effectModel: {
    kind: "known",
    apply: (state, args) => ({
    ok: true,
    state: { ...state, told: [...state.told, { ticketId: args.ticketId, text: args.body }] },
    changes: [{ kind: "customer_message", ticketId: args.ticketId, text: args.body }],
  }),
  },
  seed: {
    example: () => ({ ticketId: "74991", body: "Thanks, we are on it." }),
    demo: {
      runs: (): DemoRun[] => [
        {
          key: "goodwill-75005",
          ticketId: "75005",
          scenario: "fee dispute",
          ageHours: 9,
          steps: [
            { id: "st_reply", tool: "send_reply", args: { ticketId: "75005", body: "We are sorry for the delays this quarter. We will apply a goodwill credit of $300.00 to your account." }, provenance: {} },
          ],
        },
      ],
    },
    scale: null,
  },
});

/** Parsed arguments of `send_reply`. */
export type SendReplyArgs = z.infer<typeof sendReply.argsSchema>;
