import { NextResponse } from "next/server";
import { handle, readJson } from "@/lib/server/http";
import { submitRun } from "@/lib/server/runs/submit-run";
import { submitRunBodySchema } from "@/lib/api/bodies";
import { requireAgent } from "@/lib/server/session";
import { idempotencyKeyOf } from "@/lib/server/idempotency";

/**
 * `POST /api/v1/tasks/{taskId}/runs` — submit a plan. 201 `{run}` (also for a replayed
 * `Idempotency-Key`); 422 `validation_failed` with every issue; 409 `stale_task`; 404.
 */
export const POST = handle(async (req: Request, ctx: { params: Promise<{ taskId: string }> }) => {
  const agent = await requireAgent(req);
  const { taskId } = await ctx.params;
  const key = idempotencyKeyOf(req);
  const body = await readJson(req, submitRunBodySchema);
  const { run, replayed } = await submitRun(agent, taskId, body, key);
  return NextResponse.json({ run }, { status: 201, headers: replayed ? { "Idempotent-Replayed": "true" } : {} });
});
