import { NextResponse } from "next/server";
import { applyDemoEffect, demoEffectBodySchema } from "@/lib/server/demo/demo-effects";
import { handle, readJson } from "@/lib/server/http";
import { requireAgent } from "@/lib/server/session";

/**
 * `POST /api/v1/demo/effects` `{runId, stepId, token}` — demo mode only: the simulator's executor
 * writes a claimed step into the demo account data (not part of API.md). 200 `{effect}` (a repeat
 * returns the saved effect with `Idempotent-Replayed: true`); 404 outside demo mode;
 * 409 `invalid_claim_token`, `effect_failed`.
 */
export const POST = handle(async (req: Request) => {
  const agent = await requireAgent(req);
  const body = await readJson(req, demoEffectBodySchema);
  const { effect, replayed } = await applyDemoEffect(agent, body);
  return NextResponse.json({ effect }, { status: 200, headers: replayed ? { "Idempotent-Replayed": "true" } : {} });
});
