import type { ReferenceWrite } from "../reference-write";
import { writeFailed } from "../reference-write";
import type { IssueRefundArgs } from "./tool";

/**
 * The reference write of `issue_refund`: lowers the desk's invoice's open balance by the amount (minor
 * units), if the invoice exists, is open, is in the refund's currency and its open balance still
 * covers it. Errors: `effect_failed` {reason: missing | invoice_not_open | currency | balance | concurrent_change}.
 */
export const writeIssueRefund: ReferenceWrite<IssueRefundArgs> = async (tx, { invoiceId, amount }, desk) => {
  const inv = await tx.invoice.findUnique({ where: { desk_id: { desk, id: invoiceId } } });
  if (!inv) throw writeFailed(`Invoice ${invoiceId} does not exist.`, { reason: "missing" });
  if (inv.status !== "open") throw writeFailed(`Invoice ${invoiceId} is ${inv.status}; nothing can be refunded.`, { reason: "invoice_not_open" });
  if (inv.currency !== amount.currency) throw writeFailed(`Invoice ${invoiceId} is in ${inv.currency}, the refund in ${amount.currency}.`, { reason: "currency" });
  if (amount.minor > inv.openMinor) {
    throw writeFailed(`The open balance of ${invoiceId} (${inv.openMinor} minor units) no longer covers the refund of ${amount.minor}.`, { reason: "balance", openMinor: inv.openMinor });
  }
  const res = await tx.invoice.updateMany({
    where: { desk, id: invoiceId, version: inv.version, openMinor: { gte: amount.minor } },
    data: { openMinor: { decrement: amount.minor }, version: { increment: 1 } },
  });
  if (res.count !== 1) throw writeFailed(`Invoice ${invoiceId} changed during the write; nothing was refunded.`, { reason: "concurrent_change" });
  return {
    summary: `Refunded ${amount.minor} ${amount.currency} minor units on ${invoiceId}.`,
    record: { type: "invoice", id: invoiceId, before: { openMinor: inv.openMinor, version: inv.version }, after: { openMinor: inv.openMinor - amount.minor, version: inv.version + 1 } },
  };
};
