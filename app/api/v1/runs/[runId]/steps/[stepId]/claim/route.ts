import { NextResponse } from "next/server";
import { claimBodySchema } from "@/lib/api/bodies";
import { claimStep } from "@/lib/server/claims/claim-step";
import { handle, readJson } from "@/lib/server/http";
import { idempotencyKeyOf } from "@/lib/server/idempotency";
import { requireAgent } from "@/lib/server/session";

/**
 * `POST /api/v1/runs/{runId}/steps/{stepId}/claim` `{digest, taskRevision}` + `Idempotency-Key`
 * — claim a step immediately before writing it (API.md). 200 `{claim: {token, stepId, digest, …}}`
 * (also for a replayed key, with `Idempotent-Replayed: true`); 409 `stopped_stale_task`,
 * `digest_mismatch`, `approval_missing`, `already_claimed`, `run_not_approved`, `expired`,
 * `stale_task`, `idempotency_conflict`; 404; 400 for a malformed body.
 */
export const POST = handle(async (req: Request, ctx: { params: Promise<{ runId: string; stepId: string }> }) => {
  const agent = await requireAgent(req);
  const { runId, stepId } = await ctx.params;
  const key = idempotencyKeyOf(req);
  const body = await readJson(req, claimBodySchema);
  const { claim, replayed } = await claimStep(agent, runId, stepId, body, key);
  return NextResponse.json({ claim }, { status: 200, headers: replayed ? { "Idempotent-Replayed": "true" } : {} });
});
