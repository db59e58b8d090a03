import type { Currency } from "../money/format-money";
import type { TaskContract } from "./schema";

/** One sentence per constraint, for the card: "deliver not before 2026-04-10", "compensation at most $150.00"… */
export function describeConstraints(c: TaskContract, money: (m: { minor: number; currency: Currency }) => string): string[] {
  const k = c.constraints;
  const out: string[] = [];
  if (k.deliveryNotBefore) out.push(`deliver not before ${k.deliveryNotBefore}`);
  if (k.deliveryNotAfter) out.push(`deliver not after ${k.deliveryNotAfter}`);
  if (k.compensationCap) out.push(`compensation at most ${money(k.compensationCap)}`);
  if (k.noRefund) out.push("no refund");
  if (k.accountsInScope) out.push(`accounts in scope: ${k.accountsInScope.join(", ")}`);
  return out;
}
