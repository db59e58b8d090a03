import { z } from "zod";
import type { Prisma } from "../../generated/prisma/client";
import type { ReferenceWrite } from "../reference-write";
import { writeFailed } from "../reference-write";
import type { WaiveFeeArgs } from "./tool";

/** Stored fees of an invoice: `[{code, amount: {minor, currency}}]`. */
const feesSchema = z.array(z.object({ code: z.string(), amount: z.object({ minor: z.number().int(), currency: z.string() }) }));

/**
 * The reference write of `waive_fee`: removes (or reduces) the desk's invoice's fee line and lowers the open
 * balance by the waived amount (minor units), if the invoice still has that fee and both cover
 * the waiver. Errors: `effect_failed` {reason: missing | fee_missing | balance | concurrent_change}.
 */
export const writeWaiveFee: ReferenceWrite<WaiveFeeArgs> = async (tx, { invoiceId, feeCode, amount }, desk) => {
  const inv = await tx.invoice.findUnique({ where: { desk_id: { desk, id: invoiceId } } });
  if (!inv) throw writeFailed(`Invoice ${invoiceId} does not exist.`, { reason: "missing" });
  const stored = feesSchema.safeParse(inv.fees ?? []);
  if (!stored.success) throw new Error(`Stored invoice fees of ${invoiceId} do not match their schema.`);
  const fees = stored.data;
  const fee = fees.find((f) => f.code === feeCode);
  if (!fee) throw writeFailed(`Invoice ${invoiceId} has no ${feeCode} fee any more.`, { reason: "fee_missing" });
  if (amount.minor > fee.amount.minor || amount.minor > inv.openMinor) {
    throw writeFailed(`The ${feeCode} fee (${fee.amount.minor}) or the open balance (${inv.openMinor}) no longer covers a waiver of ${amount.minor}.`, { reason: "balance" });
  }
  const nextFees = fees
    .map((f) => (f.code === feeCode ? { ...f, amount: { ...f.amount, minor: f.amount.minor - amount.minor } } : f))
    .filter((f) => f.amount.minor > 0);
  const res = await tx.invoice.updateMany({
    where: { desk, id: invoiceId, version: inv.version },
    data: { fees: nextFees as unknown as Prisma.InputJsonValue, openMinor: { decrement: amount.minor }, version: { increment: 1 } },
  });
  if (res.count !== 1) throw writeFailed(`Invoice ${invoiceId} changed during the write; nothing was waived.`, { reason: "concurrent_change" });
  return {
    summary: `Waived ${amount.minor} of ${feeCode} on ${invoiceId}.`,
    record: {
      type: "invoice",
      id: invoiceId,
      before: { openMinor: inv.openMinor, fees, version: inv.version },
      after: { openMinor: inv.openMinor - amount.minor, fees: nextFees, version: inv.version + 1 },
    },
  };
};
