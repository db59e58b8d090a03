import { defineToolMeta } from "../tool-meta";

/**
 * What people and the console's pages see of `apply_credit` (name, label, effect, gate, grant class,
 * form fields): plain data, no argument schema, so a page that only shows steps loads no
 * validation code (docs/design.md "Page weight"). The tool's definition (./tool.ts) spreads it.
 */
export const applyCreditMeta = defineToolMeta({
  name: "apply_credit",
  label: "Apply account credit",
  description: "Adds a credit to a customer account, usable against future invoices. It cannot be undone.",
  effect: "irreversible",
  gate: "approval",
  fields: [
    { name: "accountId", label: "Account", kind: "account_id" },
    { name: "amount", label: "Amount", kind: "money" },
    { name: "memo", label: "Memo", kind: "text" },
  ],
  grantClass: "money",
  moneyArg: "amount",
});
