/**
 * Gated tools for the console's DEMO desk (demo mode only), used by the examples and tests: each writes its APPROVED step through the console's demo executor
 * (`POST /api/v1/demo/effects`, with the claim's token), the stand-in for a real system of
 * record. A real agent writes to its own systems in `execute` instead; the claim and the outcome
 * report around it are the adapter's. Argument schemas are the console's own (from its OpenAPI
 * document, ./tool-schemas.ts).
 */
import type { AgentClient } from "./client.js";
import { ToolFailure, type ExecutionContext, type ToolOutcome } from "./adapters/core.js";
import { gatedTool } from "./adapters/gated-tool.js";
import { toolArgumentsSchema } from "./tool-schemas.js";

/**
 * Refusals of the demo executor that mean nothing was written: the write failed
 * (`effect_failed`), or the fence blocked it in the write's own transaction (`claim_fenced`,
 * `target_changed`: the record moved since the approval, `invalid_claim_token`, `not_found`). Anything else (a network error, a 5xx) leaves the write
 * unknown.
 */
const NOT_WRITTEN = new Set(["effect_failed", "claim_fenced", "target_changed", "invalid_claim_token", "not_found"]);

/**
 * Writes the claimed step with the demo executor; a refusal that wrote nothing → ToolFailure
 * (reported `failed`). A write reports the source version the record has now (the effect's
 * `targetVersions`) with its outcome, like a real system of record's answer.
 */
async function demoWrite(client: AgentClient, ctx: ExecutionContext): Promise<ToolOutcome> {
  const res = await client.applyDemoEffect({ runId: ctx.runId, stepId: ctx.stepId, token: ctx.claim.token });
  if (!res.ok) {
    if (NOT_WRITTEN.has(res.error.code)) throw new ToolFailure(`Nothing was written (${res.error.code}): ${res.error.message}`);
    throw new Error(`${res.error.code}: ${res.error.message}`); // unknown: the write may or may not have happened
  }
  const rec = res.effect.record;
  return {
    status: "succeeded",
    ...(res.effect.targetVersions && Object.keys(res.effect.targetVersions).length > 0 ? { targetVersions: res.effect.targetVersions } : {}),
    detail: res.effect.summary,
    output: rec ? { record: `${rec.type} ${rec.id}`, before: JSON.parse(JSON.stringify(rec.before)), after: JSON.parse(JSON.stringify(rec.after)) } : { summary: res.effect.summary },
  };
}

/**
 * The three tools of the reference case (ticket #74991): `add_ticket_note`,
 * `reschedule_delivery`, `send_reply`, writing to the demo desk through `client`.
 */
export function demoDeskTools(client: AgentClient) {
  return {
    add_ticket_note: gatedTool({
      description: "Adds an internal note to a support ticket (customers never see it).",
      inputSchema: toolArgumentsSchema("add_ticket_note"),
      execute: async (_args, ctx) => demoWrite(client, ctx),
    }),
    reschedule_delivery: gatedTool({
      description: "Moves the delivery window of a shipment to new ISO dates (from, to inclusive).",
      inputSchema: toolArgumentsSchema("reschedule_delivery"),
      execute: async (_args, ctx) => demoWrite(client, ctx),
    }),
    send_reply: gatedTool({
      description: "Sends a reply to the customer on a ticket.",
      inputSchema: toolArgumentsSchema("send_reply"),
      execute: async (_args, ctx) => demoWrite(client, ctx),
    }),
  };
}
