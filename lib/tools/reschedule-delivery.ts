import { z } from "zod";
import { utcDateOf } from "../dates";
import { findRecord, own } from "../desk/lookup";
import { RESCHEDULE_HORIZON_DAYS } from "../policy";
import { defineTool, type ToolIssue } from "./types";
import { dateWindowSchema, recordId, requiredText, targetIfExists, unknownIdIssue } from "./shared";

/**
 * `reschedule_delivery` — moves a shipment's delivery window. Args `{shipmentId: "sh_5521",
 * window: {from, to} (ISO dates, inclusive), reason}`; effect reversible, gate approval.
 *
 * Bounds (DESIGN.md §1.4; holidays from "The demo domain"):
 * - the shipment exists (`unknown_id`) and is not already delivered (`shipment_delivered`);
 * - `from ≤ to` (`window_inverted`);
 * - `from` is strictly after today's UTC date of `ctx.now` (`window_not_future`). Decision:
 *   today itself is refused — a same-day change cannot reach the carrier in time, and "today"
 *   is the UTC calendar date so the rule does not depend on anyone's time zone;
 * - `to` is at most RESCHEDULE_HORIZON_DAYS (lib/policy.ts, one year) after today's UTC date
 *   (`window_beyond_horizon`);
 * - neither `from` nor `to` is a holiday at the shipment's destination (`window_on_holiday`).
 *   Days strictly inside the window may be holidays: the carrier delivers on a working day of it.
 */
export const rescheduleDelivery = defineTool({
  name: "reschedule_delivery",
  label: "Reschedule delivery",
  description: "Moves the delivery window of a shipment. The carrier is told; it can be moved again.",
  effect: "reversible",
  gate: "approval",
  argsSchema: z
    .object({
      shipmentId: recordId("Shipment"),
      window: dateWindowSchema,
      reason: requiredText("Reason", 1000),
    })
    .strict(),
  fields: [
    { name: "shipmentId", label: "Shipment", kind: "shipment_id" },
    { name: "window", label: "Delivery window", kind: "date_window", help: "First and last day, inclusive (UTC dates)." },
    { name: "reason", label: "Reason", kind: "text" },
  ],
  target: (args, desk) => targetIfExists(desk, "shipment", args.shipmentId),
  amount: () => undefined,
  deliveryWindow: (args) => args.window,
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
    const horizonDays = ctx.rescheduleHorizonDays ?? RESCHEDULE_HORIZON_DAYS;
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
});

/** Parsed arguments of `reschedule_delivery`. */
export type RescheduleDeliveryArgs = z.infer<typeof rescheduleDelivery.argsSchema>;
