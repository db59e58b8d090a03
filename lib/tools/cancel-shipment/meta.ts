import { defineToolMeta } from "../tool-meta";

/**
 * What people and the console's pages see of `cancel_shipment` (name, label, effect, gate, grant class,
 * form fields): plain data, no argument schema, so a page that only shows steps loads no
 * validation code (docs/design.md "Page weight"). The tool's definition (./tool.ts) spreads it.
 */
export const cancelShipmentMeta = defineToolMeta({
  name: "cancel_shipment",
  label: "Cancel shipment",
  description: "Cancels a shipment that has not been dispatched yet. The customer's delivery is called off; it cannot be undone.",
  effect: "irreversible",
  gate: "approval",
  grantClass: "plain",
  fields: [
    { name: "shipmentId", label: "Shipment", kind: "shipment_id", help: "Only a shipment not yet dispatched can be cancelled." },
    { name: "reason", label: "Reason", kind: "text" },
  ],
  moneyArg: null,
});
