import { z } from "zod";

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

/** `POST /api/runs/{runId}/approvals`: which steps of which version, the idempotency key, acknowledged warnings. */
export const approveBodySchema = z
  .object({
    planVersion: z.number().int().min(1),
    stepIds: z.union([z.literal("all"), z.array(z.string().min(1).max(64)).min(1).max(100)]),
    idempotencyKey: z.string().min(1).max(200),
    acknowledgedWarnings: z.array(z.object({ code: z.string().max(100), stepId: z.string().max(64) }).strict()).max(200).optional(),
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
  })
  .strict();
export type DemoEffectBody = z.infer<typeof demoEffectBodySchema>;
