import { z } from "zod";
import { offeredSignatureSchema } from "../signatures/schema";

/*
 * Request bodies of the HTTP API (docs/api.md) that no form shares, declared once and read by the
 * route handlers (through the endpoint declarations in lib/api/endpoints.ts), the services'
 * types and the OpenAPI document. Client-safe: no server imports. Bodies a form shares live
 * beside the form's concept (lib/task-contract/task-revision.ts, lib/api/reconcile-body.ts, lib/people/admin-schemas.ts).
 */

/** `POST /api/v1/tasks/{taskId}/runs`: steps are checked by the validation pipeline, not here. */
export const submitRunBodySchema = z
  .object({
    taskRevision: z.number().int().min(1),
    steps: z.array(z.unknown()),
    /** The reads the agent made (read steps, lib/reads/schema.ts); read steps may also be sent in `steps` with `kind: "read"`. */
    reads: z.array(z.unknown()).nullish(),
    /** null means absent (strict-mode nulls). */
    expiresInSeconds: z.number().int().positive().nullish(),
    /**
     * One task, one live plan: a new run supersedes the task's waiting runs (pending or
     * approved, not yet executing) unless the agent says it is an addition to them.
     */
    addition: z.boolean().nullish(),
  })
  .strict();
export type SubmitRunBody = z.infer<typeof submitRunBodySchema>;

/** `POST /api/v1/runs/{runId}/steps/{stepId}/claim`: the digest the executor will write and the task revision it works from. */
export const claimBodySchema = z
  .object({
    digest: z.string().regex(/^[0-9a-f]{64}$/, "digest must be the 64 lowercase hex characters of SHA-256"),
    taskRevision: z.number().int().min(1),
  })
  .strict();
export type ClaimBody = z.infer<typeof claimBodySchema>;

/** At most this many records in one `targetVersions` (a step names a handful of records). */
export const MAX_TARGET_VERSIONS = 50;

/**
 * Record versions by record key (lib/records/record-key.ts `RecordVersions`): `{"invoice:in_74119": 8}`
 * — the key `<kind>:<id>`, the system of record's version a non-negative safe integer. The claim's
 * `recordVersions` (what the approval saw), the fence's and the outcome's `targetVersions` (what the
 * executor read of its target right before, or right after, its write).
 */
export const recordVersionsSchema = z
  .record(z.string().regex(/^[a-z_]+:.{1,128}$/, "a record key is <kind>:<id>, e.g. invoice:in_74119"), z.number().int().min(0).max(Number.MAX_SAFE_INTEGER))
  .refine((o) => Object.keys(o).length <= MAX_TARGET_VERSIONS, { message: `At most ${MAX_TARGET_VERSIONS} record versions` });

/**
 * `POST /api/v1/claims/{token}/fence` (optional body): the live versions of the step's target
 * records, read by the executor right before its write. A record whose live version differs from
 * the one its approval saw is refused `target_changed`; a key the approval did not see is ignored.
 */
export const fenceBodySchema = z
  .object({
    targetVersions: recordVersionsSchema.nullish(),
  })
  .strict();
export type FenceBody = z.infer<typeof fenceBodySchema>;

/** `POST /api/v1/runs/{runId}/steps/{stepId}/outcome`: what the write did. */
export const outcomeBodySchema = z
  .object({
    token: z.string().min(1).max(200),
    /**
     * `cannot_execute`: the executor cannot run this step at all (e.g. a tool it does not
     * implement); nothing was written. Recorded as `failed` with flag `cannot_execute`: the run
     * ends (outcome `cannot_execute`) and the step is listed for reconciliation.
     */
    status: z.enum(["succeeded", "failed", "unknown", "cannot_execute"]),
    detail: z.string().max(4000).nullish(),
    /**
     * The executor found the step's stop condition (the claim's `stopCondition`) met and wrote
     * nothing: only with status `failed`. The run stops (`stopped`, stopReason code
     * `stop_condition_met`); `detail` says what it found.
     */
    stopConditionMet: z.boolean().nullish(),
    /**
     * With `succeeded`: the versions the system of record gave the target after the write
     * (`{"invoice:in_74119": 9}`). The written amount keeps holding on the invoice until the local
     * copy syncs a version at least this one; without it, until a synced version changed at or
     * after the report. Ignored with other statuses.
     */
    targetVersions: recordVersionsSchema.nullish(),
  })
  .strict()
  .refine((b) => !b.stopConditionMet || b.status === "failed", { path: ["stopConditionMet"], message: "A met stop condition means nothing was written: report it with status failed" });
export type OutcomeBody = z.infer<typeof outcomeBodySchema>;

/** `POST /api/runs/{runId}/edits`: the base version and the whole edited plan (validated from scratch). */
export const submitEditBodySchema = z
  .object({
    baseVersion: z.number().int().min(1),
    steps: z.array(z.unknown()).max(100),
  })
  .strict();
export type SubmitEditBody = z.infer<typeof submitEditBodySchema>;

/** `POST /api/runs/{runId}/approvals`: which steps of which version, the idempotency key, acknowledged warnings and concurrent runs. */
export const approveBodySchema = z
  .object({
    planVersion: z.number().int().min(1),
    stepIds: z.union([z.literal("all"), z.array(z.string().min(1).max(64)).min(1).max(100)]),
    idempotencyKey: z.string().min(1).max(200),
    acknowledgedWarnings: z.array(z.object({ code: z.string().max(100), stepId: z.string().max(64) }).strict()).max(200).optional(),
    /**
     * Ids of the other runs of this task being executed that the person acknowledges (the run
     * details' `concurrentRuns`): approving while one is unacknowledged is 409
     * `concurrent_run_unacknowledged`. An id of a run not (or no longer) being executed is ignored.
     */
    acknowledgedConcurrentRuns: z.array(z.string().min(1).max(64)).max(50).optional(),
    /**
     * The approver's passkey signature, required when a listed step's gate rule says
     * `requireSignature`: the nonce of `POST /api/runs/{runId}/signature-challenges` and the WebAuthn
     * assertion over its challenge. Without it: 403 `signature_required`.
     */
    signature: offeredSignatureSchema.optional(),
  })
  .strict();
export type ApproveBody = z.infer<typeof approveBodySchema>;

/** `POST /api/runs/{runId}/rejections`: the reason is read by the agent on its run. */
export const rejectBodySchema = z
  .object({
    planVersion: z.number().int().min(1),
    reason: z
      .string({ error: "Give the agent a reason" })
      .trim()
      .min(3, "Give the agent a reason (at least 3 characters)")
      .max(2000, "Keep the reason under 2,000 characters"),
  })
  .strict();
export type RejectBody = z.infer<typeof rejectBodySchema>;

/** `POST /api/v1/demo/effects` (demo mode): the claim whose step the reference executor writes. */
export const demoEffectBodySchema = z
  .object({
    runId: z.string().min(1).max(100),
    stepId: z.string().min(1).max(100),
    token: z.string().min(1).max(200),
    stage: z
      .boolean()
      .optional()
      .meta({ description: "true: keep the write staged (nothing applied) until POST /api/v1/demo/effects/promote applies every staged write of the run at once; default false (write now)" }),
  })
  .strict();
export type DemoEffectBody = z.infer<typeof demoEffectBodySchema>;

/** `POST /api/v1/demo/effects/promote` (demo mode): the run whose staged writes are applied, all or nothing. */
export const demoPromoteBodySchema = z.object({ runId: z.string().min(1).max(100) }).strict();
export type DemoPromoteBody = z.infer<typeof demoPromoteBodySchema>;
