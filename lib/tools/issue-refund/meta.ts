import { defineToolMeta } from "../tool-meta";

/**
 * What people and the console's pages see of `issue_refund` (name, label, effect, gate, grant class,
 * form fields): plain data, no argument schema, so a page that only shows steps loads no
 * validation code (docs/design.md "Page weight"). The tool's definition (./tool.ts) spreads it.
 */
export const issueRefundMeta = defineToolMeta({
  name: "issue_refund",
  label: "Issue refund",
  description: "Refunds money against an open invoice. Money leaves the company; it cannot be undone.",
  effect: "irreversible",
  gate: "approval",
  fields: [
    { name: "invoiceId", label: "Invoice", kind: "invoice_id" },
    { name: "amount", label: "Amount", kind: "money" },
    { name: "reason", label: "Reason", kind: "text" },
  ],
  grantClass: "money",
  moneyArg: "amount",
});
