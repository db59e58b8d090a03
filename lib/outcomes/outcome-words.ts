import { formatMoney, type Money } from "../money/format-money";

/*
 * The outcome record's words for people, apart from the record's computation (./outcome.ts, which
 * re-exports them) so the run page's outcome section loads no tool catalog (docs/design.md
 * "Page weight"). Money in minor units.
 */

/**
 * One shipment whose delivery the edit set differently from the agent's plan: the window each
 * would have set (null: that plan did not move it) and `daysLater`, whole days from the agent's
 * first day to the executed first day (negative: earlier; null when one of them did not move it).
 */
export interface DeliveryDifference {
  shipmentId: string;
  proposed: { from: string; to: string } | null;
  executed: { from: string; to: string } | null;
  daysLater: number | null;
}

/**
 * One fee the edit waived differently from the agent's plan: what each waived (null: none) and
 * executed − proposed (signed minor units, in the fee's currency).
 */
export interface FeeDifference {
  invoiceId: string;
  feeCode: string;
  proposed: Money | null;
  executed: Money | null;
  difference: Money;
}

/** "the same day", "1 day later", "3 days later". */
export function laterInWords(days: number): string {
  if (days <= 0) return "the same day";
  return `${days} day${days === 1 ? "" : "s"} later`;
}

/** "the edit moved the delivery of sh_5521 2 days later than the agent proposed", "… 1 day earlier …", "… which the agent's plan left where it was", "the edit left … where the agent's plan moved it". */
export function deliveryWords(d: DeliveryDifference): string {
  if (d.executed && !d.proposed) return `the edit moved the delivery of ${d.shipmentId}, which the agent's plan left where it was`;
  if (!d.executed && d.proposed) return `the edit left the delivery of ${d.shipmentId} where it was; the agent proposed moving it`;
  const n = d.daysLater ?? 0;
  if (n === 0) return `the edit changed the delivery window of ${d.shipmentId} (the same first day as the agent proposed)`;
  const days = `${Math.abs(n)} day${Math.abs(n) === 1 ? "" : "s"}`;
  return `the edit moved the delivery of ${d.shipmentId} ${days} ${n > 0 ? "later" : "earlier"} than the agent proposed`;
}

/** "the edit waived $45.00 more of the LATE_FEE fee on in_74121 than the agent proposed", "… less …", "… a STORAGE fee on in_74701 the agent's plan did not waive". */
export function feeWords(f: FeeDifference): string {
  const amount = formatMoney({ minor: Math.abs(f.difference.minor), currency: f.difference.currency });
  if (!f.proposed) return `the edit waived ${amount} of the ${f.feeCode} fee on ${f.invoiceId}, which the agent's plan did not waive`;
  if (!f.executed) return `the edit waived none of the ${f.feeCode} fee on ${f.invoiceId}; the agent proposed waiving ${formatMoney(f.proposed)}`;
  return `the edit waived ${amount} ${f.difference.minor > 0 ? "more" : "less"} of the ${f.feeCode} fee on ${f.invoiceId} than the agent proposed`;
}
