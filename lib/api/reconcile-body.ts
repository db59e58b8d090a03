import { z } from "zod";

/**
 * Body of `POST /api/runs/{runId}/steps/{stepId}/reconcile`: what a person found out happened to
 * a step whose outcome is unknown (docs/design.md §9). Shared by the supervisor's form and the route.
 */
export const reconcileBodySchema = z
  .object({
    resolution: z.enum(["succeeded", "failed"], { error: "Say whether the write happened" }),
    note: z.string().trim().min(3, "Say how you found out (at least 3 characters)").max(2000),
  })
  .strict();
export type ReconcileBody = z.infer<typeof reconcileBodySchema>;
