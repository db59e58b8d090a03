import { z } from "zod";
import { formatMoney, type Currency } from "../money/format-money";
import { describeChange, formatWindow } from "./preview";
import type { EffectChange, StepEffect } from "./schema";

/*
 * Expected vs actual effect of one executed step: what the approver saw in the
 * effects preview (stored with the approval) next to what the reference executor
 * (lib/server/demo/demo-effects.ts) reports it wrote. Pure and client-safe.
 */

/**
 * What the reference executor wrote for one step, as it saves it: a summary and, for invoices
 * and shipments, the record before/after (`openMinor` in minor units, `fees`, `window` ISO dates,
 * `status`).
 */
export const actualEffectSchema = z.object({
  summary: z.string(),
  record: z
    .object({ type: z.string(), id: z.string(), before: z.record(z.string(), z.unknown()), after: z.record(z.string(), z.unknown()) })
    .nullable(),
  appliedAt: z.string().optional(),
});
/** See {@link actualEffectSchema}. */
export type ActualEffect = z.infer<typeof actualEffectSchema>;

/** One line of the comparison: what changed, the expected and the actual value in words, and whether they agree (null: not comparable). */
export interface EffectComparisonRow {
  what: string;
  expected: string;
  actual: string;
  matches: boolean | null;
}

const windowOf = (v: unknown): { from: string; to: string } | undefined => {
  const w = z.object({ from: z.string(), to: z.string() }).safeParse(v);
  return w.success ? w.data : undefined;
};
const feeOf = (v: unknown, code: string): number | undefined => {
  const fees = z.array(z.object({ code: z.string(), amount: z.object({ minor: z.number() }) })).safeParse(v);
  if (!fees.success) return undefined;
  return fees.data.find((f) => f.code === code)?.amount.minor ?? 0;
};

/** The actual value for one expected change, or undefined when the executor's record does not say. */
function actualOf(c: EffectChange, actual: ActualEffect): { text: string; matches: boolean } | undefined {
  const r = actual.record;
  if (!r) return undefined;
  switch (c.kind) {
    case "invoice_balance": {
      const after = r.after.openMinor;
      if (r.type !== "invoice" || r.id !== c.invoiceId || typeof after !== "number") return undefined;
      return { text: formatMoney({ minor: after, currency: c.after.currency as Currency }), matches: after === c.after.minor };
    }
    case "invoice_fee": {
      const after = r.type === "invoice" && r.id === c.invoiceId ? feeOf(r.after.fees, c.feeCode) : undefined;
      if (after === undefined) return undefined;
      return { text: after === 0 ? "waived" : formatMoney({ minor: after, currency: c.after.currency as Currency }), matches: after === c.after.minor };
    }
    case "shipment_window": {
      const after = r.type === "shipment" && r.id === c.shipmentId ? windowOf(r.after.window) : undefined;
      if (!after) return undefined;
      return { text: formatWindow(after), matches: after.from === c.after.from && after.to === c.after.to };
    }
    case "shipment_status": {
      const after = r.type === "shipment" && r.id === c.shipmentId ? r.after.status : undefined;
      if (typeof after !== "string") return undefined;
      return { text: after.replace(/_/g, " "), matches: after === c.after };
    }
    default:
      return undefined;
  }
}

/** The expected value of one change, in words. */
function expectedText(c: EffectChange): { what: string; text: string } {
  switch (c.kind) {
    case "invoice_balance":
      return { what: `${c.invoiceId} open balance`, text: formatMoney(c.after) };
    case "invoice_fee":
      return { what: `${c.invoiceId} ${c.feeCode} fee`, text: c.after.minor === 0 ? "waived" : formatMoney(c.after) };
    case "shipment_window":
      return { what: `${c.shipmentId} window`, text: formatWindow(c.after) };
    case "shipment_status":
      return { what: `${c.shipmentId} status`, text: c.after.replace(/_/g, " ") };
    default:
      return { what: describeChange(c), text: c.kind === "customer_message" || c.kind === "ticket_note" ? `“${c.text}”` : describeChange(c) };
  }
}

/**
 * Rows comparing `expected` (the approval's stored preview, or null when the approval predates
 * previews) with `actual` (the executor's saved write, or null when it saved none): one row per
 * expected change, the actual value from the executor's record where it has one (`matches` true
 * or false), else its summary (`matches` null). With no expected changes, one row for the actual.
 */
export function compareEffects(expected: StepEffect | null, actual: ActualEffect | null): EffectComparisonRow[] {
  const actualSummary = actual ? actual.summary : "The executor reported no write";
  if (!expected || expected.status !== "previewed" || expected.changes.length === 0) {
    const why = !expected ? "No preview was stored with this approval" : expected.status === "previewed" ? "No change expected" : expected.reason;
    return [{ what: "Effect", expected: why, actual: actualSummary, matches: null }];
  }
  return expected.changes.map((c) => {
    const e = expectedText(c);
    const a = actual ? actualOf(c, actual) : undefined;
    return { what: e.what, expected: e.text, actual: a?.text ?? actualSummary, matches: a?.matches ?? null };
  });
}
