import { z } from "zod";
import type { StepInput } from "../../plan/schema";
import { type DemoRun, type ScalePlanContext, defineBuiltinTool, MODEL } from "../builtin-tool";
import { cancelShipmentMeta } from "./meta";
import { cannotApply, ownIn } from "../../effects/state";
import { findRecord } from "../../desk/lookup";
import type { ShipmentStatus } from "../../desk/snapshot";
import { recordId, requiredText, targetIfExists, unknownIdIssue } from "../shared";

/** Why a shipment in `status` cannot be cancelled: issue code and the sentence people read; null when it can. */
function refusal(id: string, status: ShipmentStatus): { code: string; message: string } | null {
  switch (status) {
    case "scheduled":
      return null;
    case "in_transit":
    case "held":
      return { code: "shipment_dispatched", message: `Shipment ${id} has been dispatched (${status === "held" ? "held on the way" : "in transit"}); only a shipment not yet dispatched can be cancelled` };
    case "delivered":
      return { code: "shipment_delivered", message: `Shipment ${id} has already been delivered; it cannot be cancelled` };
    case "cancelled":
      return { code: "shipment_cancelled", message: `Shipment ${id} is already cancelled` };
  }
}

/**
 * `cancel_shipment` — cancels a shipment that has not been dispatched yet. Args
 * `{shipmentId: "sh_5521", reason}`; effect irreversible (the booking is given up and the
 * customer's delivery with it; a new one is a new booking), gate always approval.
 *
 * Bounds, against account data:
 * - the shipment exists (`unknown_id`) and belongs to the ticket's account
 *   (`shipment_other_account`: no plan cancels another customer's delivery);
 * - it is `scheduled`: a dispatched one (`in_transit`, `held`) is refused with
 *   `shipment_dispatched`, a delivered one with `shipment_delivered`, a cancelled one with
 *   `shipment_cancelled`.
 */
export const cancelShipment = defineBuiltinTool({
  ...cancelShipmentMeta,
  issueCodes: {
    shipment_dispatched: { severity: "error", meaning: "The shipment has been dispatched (in transit or held on the way); only one not yet dispatched can be cancelled." },
    shipment_other_account: { severity: "error", meaning: "The shipment belongs to another account than the ticket's." },
  },
  argsSchema: z
    .object({
      shipmentId: recordId("Shipment"),
      reason: requiredText("Reason", 1000),
    })
    .strict(),
  target: (args, desk) => targetIfExists(desk, "shipment", args.shipmentId),
  amount: () => undefined,
  checkBounds: (args, ctx) => {
    const shipment = findRecord(ctx.desk, "shipment", args.shipmentId);
    if (!shipment) return [unknownIdIssue(ctx.desk, "shipment", "shipmentId", args.shipmentId)];
    const issues = [];
    if (shipment.accountId !== ctx.desk.ticket.accountId) {
      issues.push({
        code: "shipment_other_account",
        severity: "error" as const,
        path: "shipmentId",
        message: `Shipment ${shipment.id} belongs to another account than the one on ticket #${ctx.desk.ticket.id}; it cannot be cancelled from this ticket`,
        details: { shipmentId: shipment.id, accountId: shipment.accountId, ticketAccountId: ctx.desk.ticket.accountId },
      });
    }
    const no = refusal(shipment.id, shipment.status);
    if (no) issues.push({ ...no, severity: "error" as const, path: "shipmentId", details: { shipmentId: shipment.id, status: shipment.status } });
    return issues;
  },
  effectModel: {
    kind: "known",
    apply: (state, args) => {
      const shipment = ownIn(state.shipments, args.shipmentId);
      if (!shipment) return cannotApply(`Shipment ${args.shipmentId} is not in the account data`);
      const no = refusal(args.shipmentId, shipment.status as ShipmentStatus);
      if (no) return cannotApply(no.message);
      return {
        ok: true,
        state: { ...state, shipments: { ...state.shipments, [args.shipmentId]: { ...shipment, status: "cancelled" } } },
        changes: [{ kind: "shipment_status", shipmentId: args.shipmentId, before: shipment.status, after: "cancelled" }],
      };
    },
  },
  seed: {
    example: () => ({ shipmentId: "sh_5521", reason: "The customer withdrew the order" }),
    demo: {
      records: ({ day }) => ({
        tickets: [{ id: "75021", accountId: "acc_hanse", subject: "Order withdrawn — cancel the Oslo delivery", body: "The customer withdrew order 8812. Shipment sh_5691 to Oslo is booked but not dispatched yet; please cancel it and confirm. (sh_5692 to Hamburg left yesterday and stays as it is.)", ageHours: 2 }],
        shipments: [
          { id: "sh_5691", accountId: "acc_hanse", destination: "NO-OSL", windowFrom: day(9), windowTo: day(10), status: "scheduled", address: "Lilleakerveien 2, 0283 Oslo" },
          { id: "sh_5692", accountId: "acc_hanse", destination: "DE-HAM", windowFrom: day(1), windowTo: day(2), status: "in_transit", address: "Ludwig-Erhard-Str. 18, 20459 Hamburg" },
        ],
      }),
      runs: (): DemoRun[] => [
        {
          key: "cancel-75021",
          ticketId: "75021",
          scenario: "order withdrawn",
          ageHours: 1,
          steps: [
            { id: "st_cancel", tool: "cancel_shipment", args: { shipmentId: "sh_5691", reason: "Order 8812 withdrawn by the customer" }, provenance: { shipmentId: { kind: "source", recordType: "shipment", recordId: "sh_5691" }, reason: MODEL }, title: "Cancel the Oslo delivery", rationale: "The customer withdrew the order before the shipment left.", evidence: [{ recordType: "shipment", recordId: "sh_5691" }], risk: "A cancelled delivery cannot be restored; a new booking is needed", stopCondition: "The shipment left the depot meanwhile" },
            { id: "st_reply", tool: "send_reply", args: { ticketId: "75021", body: "We have cancelled shipment sh_5691 to Oslo as you asked; nothing will be delivered for order 8812." }, provenance: { body: MODEL }, rationale: "The customer asked for a confirmation." },
          ],
        },
      ],
    },
    scale: (c: ScalePlanContext): StepInput[] | null => {
      const scheduled = c.shipments.filter((s) => s.status === "scheduled");
      if (!scheduled.length) return null;
      const s = c.pick(scheduled);
      return [
        c.note(`Customer withdrew the order; cancelling ${s.id}.`),
        { id: "st_cancel", tool: "cancel_shipment", args: { shipmentId: s.id, reason: "Order withdrawn by the customer" }, provenance: { shipmentId: { kind: "source", recordType: "shipment", recordId: s.id } }, rationale: "The shipment has not left yet." },
        c.reply(`We have cancelled shipment ${s.id} as you asked.`),
      ];
    },
  },
});

/** Parsed arguments of `cancel_shipment`. */
export type CancelShipmentArgs = z.infer<typeof cancelShipment.argsSchema>;
