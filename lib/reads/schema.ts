import { z } from "zod";
import { stepIdSchema } from "../plan/step-id";

/**
 * A read step: a record the agent read before proposing its writes, and what it saw. Read steps
 * are part of the plan (`plan.reads`) but are never approved, claimed or executed, and are not in
 * the digest set an executor claims: they are evidence. Shape:
 * - `id`: a step id, unique among the plan's read and write steps (a write names it in `evidence`);
 * - `kind`: always "read";
 * - `tool`: a read tool of lib/reads/catalog.ts (`read_invoice`, `read_shipment`, `read_ticket`);
 * - `args`: that read tool's arguments (its own strict zod schema), naming the record read;
 * - `status`: "ok" (the read succeeded) or "failed" (it did not: nothing it "saw" is a fact);
 * - `observed`: what the agent saw, by the read tool's field names (e.g. `{openMinor: 212000}`);
 * - `digest`: the agent's digest of what it saw (sha256 of the canonical JSON of the observed
 *   fields, lib/reads/catalog.ts `observedDigest`); Plandesk re-reads the record and compares;
 * - `error`: why a failed read failed, as the agent reports it; `title`: a short label.
 */
export const readStepSchema = z
  .object({
    id: stepIdSchema,
    kind: z.literal("read"),
    tool: z.string().min(1).max(64),
    args: z.record(z.string(), z.unknown()),
    status: z.enum(["ok", "failed"]),
    observed: z.record(z.string(), z.unknown()).optional(),
    digest: z.string().regex(/^[0-9a-f]{64}$/, "A digest is 64 lowercase hex characters (sha256)").optional(),
    error: z.string().max(1000).optional(),
    title: z.string().max(200).optional(),
  })
  .strict();
/** A parsed read step. */
export type ReadStep = z.infer<typeof readStepSchema>;

/** The most read steps one plan carries. */
export const MAX_PLAN_READS = 30;
