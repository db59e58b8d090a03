import { nanoid } from "nanoid";
import { z } from "zod";
import { DomainError } from "../../errors";
import type { Prisma, PrismaClient } from "../../generated/prisma/client";
import { digest } from "../../plan/digest";
import { serverConfig } from "../config";
import { prisma } from "../db";
import { checkFence } from "../claims/fence-claim";
import { lockRun } from "../lifecycle/run-lifecycle";
import { storedSteps } from "../runs/run-view";
import type { AgentCaller } from "../session";
import { readJsonColumn, toJsonColumn } from "../json-column";
import { demoEffectSchema } from "../../api/schemas";
import type { DemoEffectBody } from "../../api/bodies";

/**
 * The demo executor's "write" (demo mode only): applies the effect of a claimed step to the demo
 * account data, so the simulator (scripts/simulate.ts) can show real effects without an outside
 * system. Not part of API.md; a real executor writes to its own systems, then reports.
 *
 * The effect is derived from the step as approved (stored plan version of the claim, checked
 * against the claim's digest) — never from the request — and is applied at most once per claim:
 * the answer is saved as an idempotency record keyed by the claim, in the same transaction as
 * the write. Account records change by conditional updates on their `version` column. Like any
 * outside system's write it is not a console audit event; the executor's outcome report is.
 */


/** What a demo write did. `record` is the account record changed (before/after), or null for ticket-only tools. */
export interface DemoEffect {
  runId: string;
  stepId: string;
  tool: string;
  summary: string;
  record: null | { type: "invoice" | "shipment"; id: string; before: Record<string, unknown>; after: Record<string, unknown> };
  appliedAt: string;
}

type Tx = Prisma.TransactionClient;
type Money = { minor: number; currency: string };
/** Stored fees of an invoice: `[{code, amount: {minor, currency}}]`. */
const feesSchema = z.array(z.object({ code: z.string(), amount: z.object({ minor: z.number().int(), currency: z.string() }) }));
type Fee = { code: string; amount: Money };

const fail = (message: string, details: Record<string, unknown> = {}) => new DomainError("effect_failed", message, details);

/**
 * Applies the claimed step's effect once (demo mode only; DESIGN.md "The demo domain"):
 * `issue_refund` lowers the invoice's open balance; `waive_fee` removes (or reduces) the fee and
 * lowers the open balance by the waived amount; `reschedule_delivery` moves the shipment window;
 * `apply_credit`, `add_ticket_note`, `send_reply`, `escalate_ticket` are recorded only (the demo
 * desk keeps no account balance or ticket thread). A repeat with the same claim returns the
 * saved effect (`replayed: true`) and writes nothing.
 * The write happens only if the claim's fence holds, checked in the write's own transaction
 * (claims/fence-claim.ts): a fenced or lapsed token writes nothing.
 * Errors: 404 `not_found` when demo mode is off; 409 `invalid_claim_token` (not this agent's
 * claim of that step), `claim_fenced` {reason} (outcome already reported, lease lapsed, run not
 * executing, task revised, approval withdrawn); 409 `effect_failed` {reason} when
 * the write is impossible now (e.g. the invoice balance no longer covers the refund) — report
 * the step `failed`.
 */
export async function applyDemoEffect(
  agent: AgentCaller,
  body: DemoEffectBody,
  now = new Date(),
  db: PrismaClient = prisma,
): Promise<{ effect: DemoEffect; replayed: boolean }> {
  if (!serverConfig().demo) throw new DomainError("not_found", "Demo effects exist only in demo mode.");
  const out = await db.$transaction(
    async (tx): Promise<{ ok: true; effect: DemoEffect; replayed: boolean } | { ok: false; error: DomainError }> => {
      await lockRun(tx, body.runId);
      const exec = await tx.stepExecution.findUnique({ where: { token: body.token }, include: { run: true } });
      if (!exec || exec.runId !== body.runId || exec.stepId !== body.stepId || exec.run.agentId !== agent.id) {
        return { ok: false, error: new DomainError("invalid_claim_token", `This token is not the claim of step ${body.stepId} of run ${body.runId}.`) };
      }
      const scope = `effect:${exec.runId}:${exec.stepId}`;
      const saved = await tx.idempotencyRecord.findUnique({ where: { scope_key: { scope, key: exec.id } } });
      if (saved) return { ok: true, effect: readJsonColumn(demoEffectSchema, saved.body, "demo effect") as DemoEffect, replayed: true };
      // The reference executor checks the fence in the same transaction as its write (issue #12).
      const fence = await checkFence(tx, body.token, now, agent.id);
      if (!fence.ok) {
        return { ok: false, error: fence.error };
      }
      const pv = await tx.planVersion.findUniqueOrThrow({ where: { runId_version: { runId: exec.runId, version: exec.planVersion } } });
      const step = storedSteps(pv.steps).find((s) => s.id === exec.stepId);
      if (!step || digest(step) !== exec.digest) {
        return { ok: false, error: fail(`Step ${exec.stepId} as stored is not the step that was claimed; nothing is written.`, { reason: "digest" }) };
      }
      let effect: DemoEffect;
      try {
        effect = { runId: exec.runId, stepId: exec.stepId, tool: step.tool, appliedAt: now.toISOString(), ...(await writeEffect(tx, step.tool, step.args)) };
      } catch (e) {
        if (e instanceof DomainError) return { ok: false, error: e };
        throw e;
      }
      await tx.idempotencyRecord.create({
        data: { id: nanoid(), scope, key: exec.id, status: 200, body: toJsonColumn(effect), createdAt: now },
      });
      return { ok: true, effect, replayed: false };
    },
    { maxWait: 20_000, timeout: 20_000 },
  );
  if (!out.ok) throw out.error;
  return { effect: out.effect, replayed: out.replayed };
}

async function writeEffect(tx: Tx, tool: string, args: Record<string, unknown>): Promise<Pick<DemoEffect, "summary" | "record">> {
  switch (tool) {
    case "issue_refund": {
      const { invoiceId, amount } = args as { invoiceId: string; amount: Money };
      const inv = await tx.invoice.findUnique({ where: { id: invoiceId } });
      if (!inv) throw fail(`Invoice ${invoiceId} does not exist.`, { reason: "missing" });
      if (inv.status !== "open") throw fail(`Invoice ${invoiceId} is ${inv.status}; nothing can be refunded.`, { reason: "invoice_not_open" });
      if (inv.currency !== amount.currency) throw fail(`Invoice ${invoiceId} is in ${inv.currency}, the refund in ${amount.currency}.`, { reason: "currency" });
      if (amount.minor > inv.openMinor) {
        throw fail(`The open balance of ${invoiceId} (${inv.openMinor} minor units) no longer covers the refund of ${amount.minor}.`, { reason: "balance", openMinor: inv.openMinor });
      }
      const res = await tx.invoice.updateMany({
        where: { id: invoiceId, version: inv.version, openMinor: { gte: amount.minor } },
        data: { openMinor: { decrement: amount.minor }, version: { increment: 1 } },
      });
      if (res.count !== 1) throw fail(`Invoice ${invoiceId} changed during the write; nothing was refunded.`, { reason: "concurrent_change" });
      return {
        summary: `Refunded ${amount.minor} ${amount.currency} minor units on ${invoiceId}.`,
        record: { type: "invoice", id: invoiceId, before: { openMinor: inv.openMinor, version: inv.version }, after: { openMinor: inv.openMinor - amount.minor, version: inv.version + 1 } },
      };
    }
    case "waive_fee": {
      const { invoiceId, feeCode, amount } = args as { invoiceId: string; feeCode: string; amount: Money };
      const inv = await tx.invoice.findUnique({ where: { id: invoiceId } });
      if (!inv) throw fail(`Invoice ${invoiceId} does not exist.`, { reason: "missing" });
      const fees: Fee[] = readJsonColumn(feesSchema, inv.fees ?? [], "invoice fees");
      const fee = fees.find((f) => f.code === feeCode);
      if (!fee) throw fail(`Invoice ${invoiceId} has no ${feeCode} fee any more.`, { reason: "fee_missing" });
      if (amount.minor > fee.amount.minor || amount.minor > inv.openMinor) {
        throw fail(`The ${feeCode} fee (${fee.amount.minor}) or the open balance (${inv.openMinor}) no longer covers a waiver of ${amount.minor}.`, { reason: "balance" });
      }
      const nextFees = fees
        .map((f) => (f.code === feeCode ? { ...f, amount: { ...f.amount, minor: f.amount.minor - amount.minor } } : f))
        .filter((f) => f.amount.minor > 0);
      const res = await tx.invoice.updateMany({
        where: { id: invoiceId, version: inv.version },
        data: { fees: toJsonColumn(nextFees), openMinor: { decrement: amount.minor }, version: { increment: 1 } },
      });
      if (res.count !== 1) throw fail(`Invoice ${invoiceId} changed during the write; nothing was waived.`, { reason: "concurrent_change" });
      return {
        summary: `Waived ${amount.minor} of ${feeCode} on ${invoiceId}.`,
        record: {
          type: "invoice",
          id: invoiceId,
          before: { openMinor: inv.openMinor, fees, version: inv.version },
          after: { openMinor: inv.openMinor - amount.minor, fees: nextFees, version: inv.version + 1 },
        },
      };
    }
    case "reschedule_delivery": {
      const { shipmentId, window } = args as { shipmentId: string; window: { from: string; to: string } };
      const sh = await tx.shipment.findUnique({ where: { id: shipmentId } });
      if (!sh) throw fail(`Shipment ${shipmentId} does not exist.`, { reason: "missing" });
      if (sh.status === "delivered") throw fail(`Shipment ${shipmentId} was delivered meanwhile.`, { reason: "delivered" });
      const res = await tx.shipment.updateMany({
        where: { id: shipmentId, version: sh.version },
        data: { windowFrom: window.from, windowTo: window.to, version: { increment: 1 } },
      });
      if (res.count !== 1) throw fail(`Shipment ${shipmentId} changed during the write; nothing was moved.`, { reason: "concurrent_change" });
      return {
        summary: `Moved ${shipmentId} to ${window.from}…${window.to}.`,
        record: {
          type: "shipment",
          id: shipmentId,
          before: { window: { from: sh.windowFrom, to: sh.windowTo }, version: sh.version },
          after: { window, version: sh.version + 1 },
        },
      };
    }
    case "apply_credit": {
      const { accountId, amount } = args as { accountId: string; amount: Money };
      return { summary: `Recorded a credit of ${amount.minor} ${amount.currency} minor units for ${accountId} (the demo desk keeps no account balance).`, record: null };
    }
    case "add_ticket_note":
      return { summary: `Recorded an internal note on ticket ${String(args.ticketId)}.`, record: null };
    case "send_reply":
      return { summary: `Recorded a reply to the customer on ticket ${String(args.ticketId)}.`, record: null };
    case "escalate_ticket":
      return { summary: `Recorded an escalation of ticket ${String(args.ticketId)} to ${String(args.team)}.`, record: null };
    default:
      throw fail(`The demo executor cannot write ${tool} steps.`, { reason: "unknown_tool" });
  }
}
