import { z } from "zod";
import type { StepInput } from "../../plan/schema";
import { type DemoRun, type DemoSeedContext, type ScalePlanContext, defineBuiltinTool, usd, isoUtc, MODEL } from "../builtin-tool";
import { rescheduleDeliveryMeta } from "./meta";
import { ownIn, cannotApply } from "../../effects/state";
import { addDays } from "date-fns";
import { utcDateOf } from "../../time/dates";
import { findRecord, own } from "../../desk/lookup";
import { RESCHEDULE_HORIZON_DAYS } from "../../plan/policy";
import type { ToolIssue } from "../types";
import { dateWindowSchema, recordId, requiredText, targetIfExists, unknownIdIssue } from "../shared";

/**
 * `reschedule_delivery` — moves a shipment's delivery window. Args `{shipmentId: "sh_5521",
 * window: {from, to} (ISO dates, inclusive), reason}`; effect reversible, gate approval.
 *
 * Bounds (docs/design.md §1.4; holidays from "The demo domain"):
 * - the shipment exists (`unknown_id`), is not already delivered (`shipment_delivered`) and was
 *   not cancelled (`shipment_cancelled`);
 * - `from ≤ to` (`window_inverted`);
 * - `from` is strictly after today's UTC date of `ctx.now` (`window_not_future`). Decision:
 *   today itself is refused — a same-day change cannot reach the carrier in time, and "today"
 *   is the UTC calendar date so the rule does not depend on anyone's time zone;
 * - `to` is at most the date horizon after today's UTC date (the governing gate-policy rule's
 *   `dateHorizonDays`; default RESCHEDULE_HORIZON_DAYS in lib/plan/policy.ts, one year)
 *   (`window_beyond_horizon`);
 * - neither `from` nor `to` is a holiday at the shipment's destination (`window_on_holiday`).
 *   Days strictly inside the window may be holidays: the carrier delivers on a working day of it.
 */
export const rescheduleDelivery = defineBuiltinTool({
  ...rescheduleDeliveryMeta,
  argsSchema: z
    .object({
      shipmentId: recordId("Shipment"),
      window: dateWindowSchema,
      reason: requiredText("Reason", 1000),
    })
    .strict(),
  target: (args, desk) => targetIfExists(desk, "shipment", args.shipmentId),
  amount: () => undefined,
  deliveryWindow: (args) => args.window,
  outcomeEffect: (args) => ({ kind: "delivery_window", shipmentId: args.shipmentId, window: args.window }),
  checkBounds: (args, ctx) => {
    const issues: ToolIssue[] = [];
    const { from, to } = args.window;
    if (from > to) {
      issues.push({
        code: "window_inverted",
        severity: "error",
        path: "window.to",
        message: `The window ends (${to}) before it starts (${from})`,
        details: { from, to },
      });
    }
    const today = utcDateOf(ctx.now);
    if (from <= today) {
      issues.push({
        code: "window_not_future",
        severity: "error",
        path: "window.from",
        message: `The window must start after today (${today}, UTC); ${from} is ${from === today ? "today" : "in the past"}`,
        details: { from, today },
      });
    }
    const horizonDays = ctx.dateHorizonDays ?? RESCHEDULE_HORIZON_DAYS;
    const horizon = utcDateOf(new Date(Date.UTC(ctx.now.getUTCFullYear(), ctx.now.getUTCMonth(), ctx.now.getUTCDate() + horizonDays)));
    if (to > horizon) {
      issues.push({
        code: "window_beyond_horizon",
        severity: "error",
        path: "window.to",
        message: `The window may end at most ${horizonDays} days ahead (by ${horizon}, UTC); ${to} is beyond that`,
        details: { to, horizon, horizonDays },
      });
    }
    const shipment = findRecord(ctx.desk, "shipment", args.shipmentId);
    if (!shipment) return [unknownIdIssue(ctx.desk, "shipment", "shipmentId", args.shipmentId), ...issues];
    if (shipment.status === "delivered") {
      issues.push({
        code: "shipment_delivered",
        severity: "error",
        path: "shipmentId",
        message: `Shipment ${shipment.id} has already been delivered; its window cannot be moved`,
        details: { shipmentId: shipment.id },
      });
    }
    if (shipment.status === "cancelled") {
      issues.push({
        code: "shipment_cancelled",
        severity: "error",
        path: "shipmentId",
        message: `Shipment ${shipment.id} was cancelled; there is no delivery to move`,
        details: { shipmentId: shipment.id },
      });
    }
    const holidays = own(ctx.desk.holidays, shipment.destination) ?? [];
    const ends: Array<["from" | "to", string]> = from === to ? [["from", from]] : [["from", from], ["to", to]];
    for (const [key, day] of ends) {
      if (holidays.includes(day)) {
        issues.push({
          code: "window_on_holiday",
          severity: "error",
          path: `window.${key}`,
          message: `${day} is a holiday at ${shipment.destination}; no deliveries that day`,
          details: { date: day, destination: shipment.destination },
        });
      }
    }
    return issues;
  },
  issueCodes: {
    window_inverted: { severity: "error", meaning: "The delivery window ends before it starts." },
    window_not_future: { severity: "error", meaning: "The window starts today (UTC) or earlier." },
    window_beyond_horizon: { severity: "error", meaning: "The window ends further ahead than the reschedule horizon (one year by default)." },
    window_on_holiday: { severity: "error", meaning: "The window's first or last day is a holiday at the destination." },
    shipment_delivered: { severity: "error", meaning: "The shipment was already delivered." },
    shipment_cancelled: { severity: "error", meaning: "The shipment was cancelled; there is no delivery to move." },
  },
  effectModel: {
    kind: "known",
    apply: (state, args) => {
    const shipment = ownIn(state.shipments, args.shipmentId);
    if (!shipment) return cannotApply(`Shipment ${args.shipmentId} is not in the account data`);
    if (shipment.status === "delivered") return cannotApply(`Shipment ${args.shipmentId} has been delivered; its window does not move`);
    if (shipment.status === "cancelled") return cannotApply(`Shipment ${args.shipmentId} was cancelled; there is no delivery to move`);
    const after = args.window;
    return {
      ok: true,
      state: { ...state, shipments: { ...state.shipments, [args.shipmentId]: { ...shipment, window: after } } },
      changes: [{ kind: "shipment_window", shipmentId: args.shipmentId, before: shipment.window, after }],
    };
  },
  },
  seed: {
    example: (day) => ({ shipmentId: "sh_5521", window: { from: day(3), to: day(3) }, reason: "Consignee away" }),
    demo: {
      runs: ({ day, longDate }: DemoSeedContext): DemoRun[] => [
        {
          key: "ref-74991",
          ticketId: "74991",
          scenario: "late delivery",
          ageHours: 1,
          steps: [
            { id: "st_note", tool: "add_ticket_note", args: { ticketId: "74991", note: "Driver missed the Oslo window for sh_5521; rebooking with carrier." }, provenance: { ticketId: { kind: "user_literal" }, note: MODEL }, title: "Record the missed delivery" },
            {
              id: "st_resched",
              tool: "reschedule_delivery",
              args: { shipmentId: "sh_5521", window: { from: day(3), to: day(3) }, reason: "Missed delivery window; next available slot." },
              provenance: { shipmentId: { kind: "source", recordType: "shipment", recordId: "sh_5521" }, window: MODEL, reason: MODEL },
              title: "Rebook the delivery",
              rationale: "The driver missed today's window and the customer needs the consignment within the next few days.",
              evidence: [{ recordType: "shipment", recordId: "sh_5521", note: "in transit, window was today" }, { recordType: "ticket", recordId: "74991" }],
              risk: "The carrier may have no slot that day; the customer may be closed.",
              stopCondition: "Do not move the window if sh_5521 was delivered meanwhile.",
            },
            {
              id: "st_reply",
              tool: "send_reply",
              args: { ticketId: "74991", body: "Hello, we are sorry the delivery was missed. Your consignment is rebooked with the carrier for the next available slot, and we will confirm the new date in writing once it is on the truck." },
              provenance: { ticketId: { kind: "user_literal" }, body: MODEL },
              title: "Tell the customer",
              rationale: "The customer asked for a written confirmation of the new date.",
              evidence: [{ recordType: "ticket", recordId: "74991" }],
            },
          ],
        },
        {
          key: "address-74994",
          ticketId: "74994",
          scenario: "address change",
          ageHours: 1,
          steps: [
            { id: "st_note", tool: "add_ticket_note", args: { ticketId: "74994", note: "New warehouse address received; re-routing sh_5610." }, provenance: { note: MODEL } },
            { id: "st_resched", tool: "reschedule_delivery", args: { shipmentId: "sh_5610", window: { from: day(8), to: day(9) }, reason: "Re-routing to the new warehouse address." }, provenance: { window: MODEL } },
            { id: "st_reply", tool: "send_reply", args: { ticketId: "74994", body: `Thanks for the new address. The delivery is now planned between ${longDate(8)} and ${longDate(9)}.` }, provenance: { body: MODEL } },
          ],
        },
        {
          key: "perishable-74998",
          ticketId: "74998",
          scenario: "late delivery",
          ageHours: 1,
          steps: [
            { id: "st_resched", tool: "reschedule_delivery", args: { shipmentId: "sh_5580", window: { from: day(2), to: day(2) }, reason: "Earliest available slot for perishables." }, provenance: { window: MODEL } },
            { id: "st_credit", tool: "apply_credit", args: { accountId: "acc_delta", amount: usd(15000), memo: "Perishables delay compensation" }, provenance: { amount: MODEL }, title: "Compensate the perishables delay", evidence: [{ recordType: "account", recordId: "acc_delta" }], risk: "Compensation the contract does not grant", stopCondition: "The customer declines compensation" },
            { id: "st_reply", tool: "send_reply", args: { ticketId: "74998", body: `Your flowers are booked for ${longDate(2)} and a credit of $150.00 was applied.` }, provenance: { body: MODEL } },
          ],
        },
        {
          key: "resched-75002",
          ticketId: "75002",
          scenario: "address change",
          ageHours: 1,
          steps: [
            { id: "st_resched", tool: "reschedule_delivery", args: { shipmentId: "sh_5530", window: { from: day(5), to: day(5) }, reason: "Receiving dock closed on the planned day." }, provenance: {} },
            { id: "st_reply", tool: "send_reply", args: { ticketId: "75002", body: `Done — the delivery is moved to ${longDate(5)}.` }, provenance: {} },
          ],
        },
      ],
    },
    scale: (c: ScalePlanContext): StepInput[] | null => {
      const movable = c.shipments.filter((s) => s.status !== "delivered" && s.status !== "cancelled");
      if (!movable.length) return null;
      const s = c.pick(movable);
      const from = addDays(c.at, c.between(2, 6) + c.shift);
      const to = addDays(from, c.between(0, 1));
      return [
        c.note(`Rebooking ${s.id} with the carrier.`),
        { id: "st_resched", tool: "reschedule_delivery", args: { shipmentId: s.id, window: { from: isoUtc(from), to: isoUtc(to) }, reason: "Missed delivery window; next available slot." }, provenance: {}, rationale: "The carrier has capacity then." },
        c.reply("We are sorry the delivery was missed. Your consignment is rebooked and we will confirm the date in writing."),
      ];
    },
  },
});

/** Parsed arguments of `reschedule_delivery`. */
export type RescheduleDeliveryArgs = z.infer<typeof rescheduleDelivery.argsSchema>;
