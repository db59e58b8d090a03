import { z } from "zod";
import { defineEndpoint } from "../contract";
import { runSchema } from "../schemas";
import { AGENT, DESK, runParams } from "./common";

/*
 * Plandesk as the agent's MCP server (docs/design.md "MCP gateway", docs/api-extensions.md
 * "MCP gateway"): MCP Streamable HTTP, stateless, authenticated with the agent's API key like the
 * rest of /api/v1 and rate limited by the same wrapper. Declared once like every endpoint; listed
 * in ENDPOINTS (lib/api/endpoints.ts).
 */

/** A JSON-RPC 2.0 message (the MCP transport's answer: a result or an error). */
export const jsonRpcMessageSchema = z
  .looseObject({ jsonrpc: z.literal("2.0"), id: z.union([z.string(), z.number()]).nullable().optional(), result: z.unknown().optional(), error: z.looseObject({ code: z.number(), message: z.string() }).optional() })
  .meta({ id: "JsonRpcMessage" });

export const mcpGatewayEndpoint = defineEndpoint({
  id: "mcpGateway",
  method: "POST",
  path: "/api/mcp",
  summary: "Plandesk's MCP endpoint (Streamable HTTP, JSON-RPC): the desk's upstream tools, reads forwarded, writes held for approval and executed by Plandesk",
  description:
    'The request body is one MCP JSON-RPC message (initialize, tools/list, tools/call…), read by the MCP SDK\'s Streamable HTTP server transport (stateless: no session id; send `Accept: application/json, text/event-stream`). tools/list: the tools of the desk\'s enabled upstream MCP servers that the agent\'s allowlist permits. tools/call of a read-only tool: forwarded with Plandesk\'s stored credential, the answer recorded (`_meta["plandesk/readId"]`). tools/call of a write: held as a step of a plan for the task in `_meta["plandesk/taskId"]` (or, when the call names none, the `Plandesk-Task-Id` request header: for MCP clients that set headers once and no per-call `_meta`), validated and gated as any submitted plan; answers at once `structuredContent {status: "pending", runId, stepId, runStatus, poll}`, or `isError` with `{status: "rejected", code, message, issues}`. After approval Plandesk calls the upstream with exactly the approved arguments, once (`_meta["plandesk/idempotencyKey"]`). Refusals of the tool call are MCP results, not HTTP errors; HTTP errors are those of any agent route.',
  caller: AGENT,
  success: { status: [200, 202], schema: jsonRpcMessageSchema, description: "A JSON-RPC answer (202 with no body for a notification)" },
  refusals: ["payload_too_large", "invalid_encoding"],
});

export const undoWrittenStepsEndpoint = defineEndpoint({
  id: "undoWrittenSteps",
  method: "POST",
  path: "/api/runs/{runId}/undo",
  summary: "Propose undoing a gateway run's written steps after it stopped part-way: a new plan of compensating steps, reviewed like any plan",
  description:
    "For a run Plandesk executed through its MCP gateway that ended `stopped` or `failed` after some writes succeeded, when every written step's tool declares a compensating tool (`x-plandesk-compensate`): submits, for the run's agent, a new run with one compensating step per written step (last written first, with the arguments the written step was approved with). Nothing is written: the new run waits for review and Plandesk executes it only after approval. Asking again returns the same run (200). 409 `nothing_to_undo` {reason: not_stopped | nothing_written | no_compensation | compensation_unavailable}.",
  caller: DESK,
  params: runParams,
  success: { status: [201, 200], schema: z.object({ run: runSchema }), description: "201 {run} (the undo plan); 200 when it was proposed before" },
  refusals: ["not_found", "nothing_to_undo", "validation_failed", "stale_task", "forbidden"],
});
