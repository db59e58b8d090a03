import type { StepReasonKey } from "./step-reason-keys";
import { z } from "zod";
import { MAX_PLAN_READS, readStepSchema } from "../reads/schema";
import { stepIdSchema } from "./step-id";

/**
 * Where one argument's value came from. Approval records consent; it never relabels an origin.
 * - `model`: proposed by the agent's model;
 * - `user_literal`: taken from the task text (optional `quote`);
 * - `source`: read from account data (`recordType`, `recordId`);
 * - `computed`: derived deterministically (optional `formula`);
 * - `operator`: set by a person (`userId`, `at` ISO-8601 UTC, `previous` value or undefined when new).
 * Source: docs/design.md §3 (provenance).
 */
export const provenanceSchema = z.discriminatedUnion("kind", [
  z.object({ kind: z.literal("model") }).strict(),
  z.object({ kind: z.literal("user_literal"), quote: z.string().max(2000).optional() }).strict(),
  z
    .object({ kind: z.literal("source"), recordType: z.string().min(1).max(64), recordId: z.string().min(1).max(128) })
    .strict(),
  z.object({ kind: z.literal("computed"), formula: z.string().max(500).optional() }).strict(),
  z
    .object({
      kind: z.literal("operator"),
      userId: z.string().min(1),
      at: z.string().datetime(),
      previous: z.unknown().optional(),
    })
    .strict(),
]);
export type Provenance = z.infer<typeof provenanceSchema>;

/**
 * Who wrote a step: the agent's model, or a named person (user id).
 * Source: docs/design.md §11, docs/api.md (`author`).
 */
export const authorSchema = z.discriminatedUnion("kind", [
  z.object({ kind: z.literal("model") }).strict(),
  z.object({ kind: z.literal("user"), userId: z.string().min(1) }).strict(),
]);
export type Author = z.infer<typeof authorSchema>;

export { stepIdSchema };

/**
 * What a step relies on, named by the agent — one of:
 * - a record of account data `{recordType, recordId}` (`invoice`, `shipment`, `ticket`, `account`;
 *   other types are accepted but cannot be verified), with an optional `note` on what it shows;
 * - a read step of the same plan `{readStepId}` (lib/reads/schema.ts): what the agent read and saw.
 * Checked by the validator (lib/validation/evidence.ts): evidence must exist, belong to the task's
 * account and, for a read, be a successful one; where the gate policy requires evidence, a write
 * without usable evidence is refused.
 */
export const recordEvidenceSchema = z
  .object({
    recordType: z.string().min(1).max(64),
    recordId: z.string().min(1).max(128),
    note: z.string().max(500).optional(),
  })
  .strict();
/** Evidence naming a read step of the plan by its id. */
export const readEvidenceSchema = z.object({ readStepId: stepIdSchema, note: z.string().max(500).optional() }).strict();
export const evidenceRefSchema = z.union([recordEvidenceSchema, readEvidenceSchema]);
export type EvidenceRef = z.infer<typeof evidenceRefSchema>;

/**
 * Why a step is in the plan, as the agent explains it (all optional, free text for people):
 * `title` (a short name for the step), `rationale` (why it is needed), `evidence` (records it
 * relies on), `risk` (what could go wrong), `stopCondition` (when the executor should not do
 * it). Reasons are NOT part of the digest (docs/design.md §4: digest = {tool, args}); an edit keeps
 * a step's reasons unless the operator changes them. A write step without a rationale gets the
 * `missing_rationale` warning. Source: docs/api.md.
 */
export const stepReasonsShape = {
  title: z.string().max(200).optional(),
  rationale: z.string().max(4000).optional(),
  evidence: z.array(evidenceRefSchema).max(50).optional(),
  risk: z.string().max(2000).optional(),
  stopCondition: z.string().max(2000).optional(),
};
export { STEP_REASON_KEYS, type StepReasonKey } from "./step-reason-keys";
/** A step's reasons (each optional). */
export type StepReasons = { [K in StepReasonKey]?: z.infer<(typeof stepReasonsShape)[K]> };

/**
 * One step of a plan as stored: a typed tool call.
 * `args` is validated against the tool's own zod schema by the pipeline (shape stage), so
 * here it is only "a JSON object". `provenance` maps a top-level argument name (or a dotted
 * path such as `window.from`) to its origin; the optional reasons (`title`, `rationale`,
 * `evidence`, `risk`, `stopCondition`) are described at {@link stepReasonsShape}. Source: docs/design.md §2.
 */
export const stepSchema = z
  .object({
    id: stepIdSchema,
    tool: z.string().min(1).max(64),
    args: z.record(z.string(), z.unknown()),
    provenance: z.record(z.string(), provenanceSchema).default({}),
    author: authorSchema.default({ kind: "model" }),
    /**
     * Earlier steps whose success this step's write needs (plan order). Absent: every
     * earlier step. Not part of the digest (that is `{tool, args}`), but a change of it changes what
     * an approval consented to, so it withdraws the step's approval like a move does.
     */
    dependsOn: z.array(stepIdSchema).max(20).optional(),
    ...stepReasonsShape,
  })
  .strict();
export type Step = z.infer<typeof stepSchema>;
export type StepInput = z.input<typeof stepSchema>;

/**
 * An immutable plan version: ordered steps. `version` starts at 1 and grows by one per edit.
 * Source: docs/design.md §2, §6.
 */
export const planSchema = z
  .object({
    version: z.number().int().min(1),
    steps: z.array(stepSchema),
    /** The reads the agent made (lib/reads/schema.ts); never approved, claimed or digested. */
    reads: z.array(readStepSchema).max(MAX_PLAN_READS).optional(),
  })
  .strict();
export type Plan = z.infer<typeof planSchema>;

/** Maximum number of steps in one plan (docs/design.md §1, structure stage). */
export const MAX_PLAN_STEPS = 20;
