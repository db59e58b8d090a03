import { DomainError } from "../errors/domain-error";
import type { Prisma } from "../generated/prisma/client";

/*
 * What a built-in tool's reference write is: the write the demo (reference) executor does to the
 * demo account data for one claimed step (lib/server/demo/demo-effects.ts runs it in the claim's
 * transaction, after the fence and digest checks). Each built-in tool keeps its own write beside
 * its definition (lib/tools/<tool>/reference-write.ts); lib/server/demo/reference-writes.ts maps
 * every tool name to it, typed `Record<ToolName, …>` so a new tool without a write does not compile.
 */

/**
 * What a reference write did: one sentence for people and, when it changed an account record,
 * that record before/after (invoices: `openMinor` minor units, `fees`, `version`; shipments:
 * `window` ISO dates, `status`, `version`). `record` is null for tools the demo desk only records.
 */
export interface ReferenceWriteResult {
  summary: string;
  record: null | { type: "invoice" | "shipment"; id: string; before: Record<string, unknown>; after: Record<string, unknown> };
}

/**
 * One tool's reference write: applies `args` (as approved: parsed by the tool's schema when the
 * step was validated) inside `tx`, to the records of tenant desk `desk` (the run's: record ids are
 * per desk, every read and update has the desk in its key). Changes records by conditional
 * updates on their `version` column. Errors: throws DomainError `effect_failed` {reason} (see {@link writeFailed}) when the
 * write is impossible now; nothing is written then.
 */
export type ReferenceWrite<A> = (tx: Prisma.TransactionClient, args: A, desk: string) => Promise<ReferenceWriteResult>;

/** The typed failure of a reference write: 409 `effect_failed` with `message` and `details` (at least `reason`). */
export function writeFailed(message: string, details: Record<string, unknown> = {}): DomainError {
  return new DomainError("effect_failed", message, details);
}
