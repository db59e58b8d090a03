import { defineToolMeta } from "../tool-meta";

/**
 * What people and the console's pages see of `reschedule_delivery` (name, label, effect, gate, grant class,
 * form fields): plain data, no argument schema, so a page that only shows steps loads no
 * validation code (docs/design.md "Page weight"). The tool's definition (./tool.ts) spreads it.
 */
export const rescheduleDeliveryMeta = defineToolMeta({
  name: "reschedule_delivery",
  label: "Reschedule delivery",
  description: "Moves the delivery window of a shipment. The carrier is told; it can be moved again.",
  effect: "reversible",
  gate: "approval",
  fields: [
    { name: "shipmentId", label: "Shipment", kind: "shipment_id" },
    { name: "window", label: "Delivery window", kind: "date_window", help: "First and last day, inclusive (UTC dates)." },
    { name: "reason", label: "Reason", kind: "text" },
  ],
  grantClass: "plain",
  moneyArg: null,
});
