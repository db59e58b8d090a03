import { z } from "zod";
import { currencySchema } from "../money/money";

/*
 * The shapes of the effects preview: what the account will look like after each
 * step of a plan. One zod schema per concept, used by the API response (lib/api/schemas.ts),
 * the approval's stored `expectedEffect` column (read back with readJsonColumn) and the UI.
 * Client-safe. Money is integer minor units + currency; dates are ISO `YYYY-MM-DD`.
 */

const money = z.object({ minor: z.number().int(), currency: currencySchema });
const window = z.object({ from: z.string(), to: z.string() });

/**
 * One record changed by one step, before → after:
 * - `invoice_balance`: the open balance of an invoice (a refund or a fee waiver lowers it);
 * - `invoice_fee`: one fee line of an invoice (after `minor: 0` means the fee is gone);
 * - `account_credit`: the credit this plan puts on an account (the desk keeps no credit balance,
 *   so `before` is what the plan's earlier steps applied: 0 at the first credit);
 * - `shipment_window`: a shipment's delivery window (ISO dates, inclusive);
 * - `shipment_status`: a shipment's status (e.g. `scheduled` → `cancelled`);
 * - `customer_message`: a reply the customer receives on a ticket (`text` as sent);
 * - `ticket_note`: an internal note on a ticket (customers never see it);
 * - `ticket_escalation`: the team a ticket is handed to (`before` null: not escalated by this plan);
 * - `record_balance`: the available amount of a record of a declared kind (`recordKind`, e.g.
 *   `order`; `title` its title role) that a bound tool's `x-plandesk-effect` lowers.
 * A money or shipment change on a record of another account than the ticket's carries that account's
 * name as `otherAccount` (so the line says whose record it is).
 */
export const effectChangeSchema = z.discriminatedUnion("kind", [
  z.object({ kind: z.literal("invoice_balance"), invoiceId: z.string(), before: money, after: money, otherAccount: z.string().optional() }),
  z.object({ kind: z.literal("invoice_fee"), invoiceId: z.string(), feeCode: z.string(), before: money, after: money, otherAccount: z.string().optional() }),
  z.object({ kind: z.literal("account_credit"), accountId: z.string(), before: money, after: money, otherAccount: z.string().optional() }),
  z.object({ kind: z.literal("shipment_window"), shipmentId: z.string(), before: window, after: window, otherAccount: z.string().optional() }),
  z.object({ kind: z.literal("shipment_status"), shipmentId: z.string(), before: z.string(), after: z.string(), otherAccount: z.string().optional() }),
  z.object({ kind: z.literal("customer_message"), ticketId: z.string(), text: z.string() }),
  z.object({ kind: z.literal("ticket_note"), ticketId: z.string(), text: z.string() }),
  z.object({ kind: z.literal("ticket_escalation"), ticketId: z.string(), before: z.string().nullable(), after: z.string() }),
  z.object({ kind: z.literal("record_balance"), recordKind: z.string(), recordId: z.string(), title: z.string().optional(), before: money, after: money, otherAccount: z.string().optional() }),
]);
/** See {@link effectChangeSchema}. */
export type EffectChange = z.infer<typeof effectChangeSchema>;

/**
 * The preview of one step, in plan order (`position` 1-based):
 * - `previewed`: `changes` this step makes to the state its earlier steps left, and `customerTold`
 *   — every customer-visible message of the plan up to and including this step, per ticket;
 * - `unknown_effect`: an imported tool — Plandesk does not know what it does ("no preview: effect unknown");
 * - `cannot_preview`: the step's target or arguments do not resolve against the account data
 *   (or it would take a balance or fee below zero after earlier steps); `reason` says which.
 */
export const stepEffectSchema = z.discriminatedUnion("status", [
  z.object({
    status: z.literal("previewed"),
    stepId: z.string(),
    position: z.number().int(),
    tool: z.string(),
    changes: z.array(effectChangeSchema),
    customerTold: z.array(z.object({ ticketId: z.string(), text: z.string() })),
  }),
  z.object({ status: z.literal("unknown_effect"), stepId: z.string(), position: z.number().int(), tool: z.string(), reason: z.string() }),
  z.object({ status: z.literal("cannot_preview"), stepId: z.string(), position: z.number().int(), tool: z.string(), reason: z.string() }),
]).meta({ id: "StepEffect" });
/** See {@link stepEffectSchema}. */
export type StepEffect = z.infer<typeof stepEffectSchema>;
