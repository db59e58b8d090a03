import { defineToolMeta } from "../tool-meta";

/**
 * What people and the console's pages see of `waive_fee` (name, label, effect, gate, grant class,
 * form fields): plain data, no argument schema, so a page that only shows steps loads no
 * validation code (docs/design.md "Page weight"). The tool's definition (./tool.ts) spreads it.
 */
export const waiveFeeMeta = defineToolMeta({
  name: "waive_fee",
  label: "Waive fee",
  description: "Waives all or part of a fee on an open invoice. It cannot be undone.",
  effect: "irreversible",
  gate: "approval",
  fields: [
    { name: "invoiceId", label: "Invoice", kind: "invoice_id" },
    { name: "feeCode", label: "Fee", kind: "fee_code" },
    { name: "amount", label: "Amount", kind: "money" },
  ],
  grantClass: "money",
  moneyArg: "amount",
});
