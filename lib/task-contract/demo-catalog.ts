import type { Intent, TaskContractInput } from "./schema";

/**
 * The demo freight desk's intent catalog (seeded as data per desk; a desk's catalog is what its
 * tasks' contracts may name). Each intent lists the tools a step of such a task may call: a
 * question permits replies and notes; a tool that moves money (refund, credit, fee waiver) needs an
 * intent that permits it. `general_exception` is an exception not classified yet: it permits the
 * desk's whole built-in toolset, so the account checks alone govern it.
 */
export const DEMO_INTENTS: readonly Intent[] = [
  { name: "question", label: "Question", description: "The customer asks something; the answer is a reply (a note, or a hand-off to a team).", permittedTools: ["send_reply", "add_ticket_note", "escalate_ticket"] },
  {
    name: "delivery_exception",
    label: "Delivery exception",
    description: "A delivery went wrong: rebook it, compensate within the contract, tell the customer.",
    permittedTools: ["add_ticket_note", "reschedule_delivery", "cancel_shipment", "send_reply", "escalate_ticket", "issue_refund", "apply_credit", "waive_fee", "book_inspection", "print_label"],
  },
  {
    name: "billing_dispute",
    label: "Billing dispute",
    description: "The customer disputes a charge or a fee.",
    permittedTools: ["add_ticket_note", "send_reply", "escalate_ticket", "waive_fee", "issue_refund", "apply_credit"],
  },
  { name: "refund_request", label: "Refund request", description: "The customer asks for money back.", permittedTools: ["add_ticket_note", "send_reply", "escalate_ticket", "issue_refund", "apply_credit"] },
  {
    name: "damage_claim",
    label: "Damage claim",
    description: "Goods arrived damaged: inspect, claim, compensate.",
    permittedTools: ["add_ticket_note", "send_reply", "escalate_ticket", "issue_refund", "apply_credit", "book_inspection"],
  },
  {
    name: "customs_hold",
    label: "Customs hold",
    description: "A shipment is held by customs: escalate, rebook, reimburse storage or duties within the contract.",
    permittedTools: ["add_ticket_note", "send_reply", "escalate_ticket", "reschedule_delivery", "waive_fee", "issue_refund", "apply_credit"],
  },
  { name: "account_update", label: "Account update", description: "Contact or address details change.", permittedTools: ["add_ticket_note", "send_reply", "reschedule_delivery"] },
  { name: "goodwill_request", label: "Goodwill request", description: "An unhappy customer asks whether anything can be done.", permittedTools: ["add_ticket_note", "send_reply", "escalate_ticket", "apply_credit"] },
  {
    name: "general_exception",
    label: "General exception",
    description: "Not classified yet: every built-in tool; the account checks govern.",
    permittedTools: ["add_ticket_note", "reschedule_delivery", "cancel_shipment", "send_reply", "escalate_ticket", "issue_refund", "apply_credit", "waive_fee"],
  },
];

/**
 * The contract of each demo ticket's task (by ticket number), built for `day(n)` = the ISO date n
 * days after the desk's `now`. The reference case (74991) is a delivery exception whose intent
 * permits the refund an operator adds; with no accounts in scope, the cross-account refund stays
 * an acknowledgement for the approver.
 */
export function demoContracts(day: (n: number) => string): Record<string, TaskContractInput> {
  const usd = (minor: number) => ({ minor, currency: "USD" as const });
  return {
    "74991": { intent: "delivery_exception", constraints: {} },
    "74992": { intent: "damage_claim", constraints: { compensationCap: usd(106000), accountsInScope: ["acc_fjord"] } },
    "74993": { intent: "refund_request", constraints: { compensationCap: usd(450000), accountsInScope: ["acc_lumen"] } },
    "74994": { intent: "delivery_exception", constraints: { deliveryNotBefore: day(1), noRefund: true, accountsInScope: ["acc_oak"] } },
    "74995": { intent: "customs_hold", constraints: {} },
    "74996": { intent: "billing_dispute", constraints: { accountsInScope: ["acc_hanse"] } },
    "74997": { intent: "delivery_exception", constraints: { compensationCap: usd(25000), noRefund: true } },
    "74998": { intent: "delivery_exception", constraints: { deliveryNotAfter: day(4), compensationCap: usd(15000) } },
    "74999": { intent: "billing_dispute", constraints: { compensationCap: usd(24000) } },
    "75000": { intent: "refund_request", constraints: { compensationCap: usd(240000), accountsInScope: ["acc_rhine"] } },
    "75001": { intent: "damage_claim", constraints: {} },
    "75002": { intent: "general_exception", constraints: {} },
    "75003": { intent: "customs_hold", constraints: {} },
    "75004": { intent: "general_exception", constraints: {} },
    "75005": { intent: "goodwill_request", constraints: { compensationCap: usd(30000), noRefund: true } },
    "75006": { intent: "general_exception", constraints: {} },
    "75007": { intent: "question", constraints: { noRefund: true } },
    "75008": { intent: "question", constraints: {} },
    "75009": { intent: "billing_dispute", constraints: {} },
    "75010": { intent: "billing_dispute", constraints: {} },
    "75011": { intent: "customs_hold", constraints: {} },
    "75012": { intent: "question", constraints: {} },
    "75013": { intent: "question", constraints: {} },
    "75014": { intent: "delivery_exception", constraints: {} },
    "75015": { intent: "question", constraints: {} },
    "75016": { intent: "general_exception", constraints: {} },
    "75017": { intent: "general_exception", constraints: {} },
    "75018": { intent: "general_exception", constraints: {} },
    "75019": { intent: "general_exception", constraints: {} },
    "75020": { intent: "general_exception", constraints: {} },
    // The cancel_shipment tool's own demo ticket (lib/tools/cancel-shipment/tool.ts): an order withdrawn.
    "75021": { intent: "delivery_exception", constraints: {} },
  };
}
