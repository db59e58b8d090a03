import { NextResponse } from "next/server";
import { outcomeBodySchema } from "@/lib/api/bodies";
import { reportOutcome } from "@/lib/server/claims/report-outcome";
import { handle, readJson } from "@/lib/server/http";
import { requireAgent } from "@/lib/server/session";

/**
 * `POST /api/v1/runs/{runId}/steps/{stepId}/outcome` `{token, status, detail?}` — report what the
 * write did (API.md). 200 `{step, run: {id, status}}` (a repeat of the same report returns the
 * saved step); 409 `invalid_claim_token`, `outcome_already_reported`; 400 for a malformed body.
 */
export const POST = handle(async (req: Request, ctx: { params: Promise<{ runId: string; stepId: string }> }) => {
  const agent = await requireAgent(req);
  const { runId, stepId } = await ctx.params;
  const body = await readJson(req, outcomeBodySchema);
  const { step, run, replayed } = await reportOutcome(agent, runId, stepId, body);
  return NextResponse.json({ step, run }, { status: 200, headers: replayed ? { "Idempotent-Replayed": "true" } : {} });
});
