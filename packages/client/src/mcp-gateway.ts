/**
 * Pointing an agent's MCP client at Plandesk's MCP gateway (`POST /api/mcp`) instead of the
 * upstream tool server (the console's docs/api-extensions.md "MCP gateway"; this package's README
 * "Through Plandesk's MCP gateway"). No MCP library is needed here: every MCP client (the official
 * SDK's `StreamableHTTPClientTransport`, OpenAI Agents' `MCPServerStreamableHttp`, the AI SDK's and
 * LangChain's MCP clients) takes a URL and request headers, which {@link mcpGatewayConnection}
 * gives; {@link readGatewayAnswer} reads what a `tools/call` through the gateway answered.
 */

/** The gateway's URL and the headers to send with every request (the agent's key, the task). */
export interface McpGatewayConnection {
  /** `<baseUrl>/api/mcp`. */
  url: string;
  /** `Authorization: Bearer <apiKey>`, and `Plandesk-Task-Id` when a task was named. */
  headers: Record<string, string>;
}

/**
 * The connection to Plandesk's MCP gateway for an agent: `baseUrl` is the console's origin (e.g.
 * "http://localhost:3000"), `apiKey` the agent's key (the upstream's own credential stays in
 * Plandesk), `taskId` the task every write of this connection serves — sent as the
 * `Plandesk-Task-Id` header, for frameworks that cannot set `_meta["plandesk/taskId"]` on a call
 * (a call's own `_meta` wins). Pure. Throws TypeError for a `baseUrl` that is not an absolute URL.
 */
export function mcpGatewayConnection(opts: { baseUrl: string; apiKey: string; taskId?: string }): McpGatewayConnection {
  const url = new URL("/api/mcp", opts.baseUrl).toString();
  return { url, headers: { authorization: `Bearer ${opts.apiKey}`, ...(opts.taskId ? { "plandesk-task-id": opts.taskId } : {}) } };
}

/** A `tools/call` result as any MCP client returns it (only the fields read here). */
export interface McpToolResult {
  content?: unknown;
  structuredContent?: unknown;
  isError?: boolean;
  _meta?: unknown;
}

/**
 * What a call through the gateway came to:
 * - `pending`: a write held for a person's approval as step `stepId` of run `runId` until
 *   `expiresAt` (the run's deadline, ISO 8601 UTC; `""` from a console that does not say) (poll `GET
 *   /api/v1/runs/{runId}`, e.g. `client.getRun(runId, {waitSeconds: 30})`; the same call again with
 *   the same `_meta["plandesk/idempotencyKey"]` answers where it stands);
 * - `rejected`: refused (the validator's `issues`, an unknown tool or task, a run that ended
 *   without executing: `code` `run_<status>`);
 * - `unknown`: Plandesk called the upstream and lost the answer; a person reconciles it, it is
 *   never called again;
 * - `result`: the upstream's own answer — a read, or a write Plandesk executed (`runId` set), with
 *   `addedSteps` when a person added steps to that run that the agent did not call (each with where
 *   it stood when answered: `pending`, `claimed`, `succeeded`, `failed`, `unknown`, `cannot_execute`);
 * - `unreachable`: never read from an answer — what a caller concludes when it could not reach the
 *   console until the held write's deadline plus a grace had passed ({@link gatewayDeadlinePassed}):
 *   nobody can approve it any more, and the console expires the run without executing it.
 */
/** A step a person added to the run of a write the gateway executed, and where it stood (`_meta["plandesk/addedSteps"]`). */
export interface GatewayAddedStep {
  stepId: string;
  tool: string;
  status: string;
}

export type GatewayAnswer =
  | { kind: "pending"; runId: string; stepId: string; runStatus: string; poll: string; expiresAt: string }
  | { kind: "rejected"; code: string; message: string; issues: unknown[]; runId?: string }
  | { kind: "unknown"; runId: string; stepId: string; message: string }
  | { kind: "result"; result: McpToolResult; runId?: string; readId?: string; addedSteps?: GatewayAddedStep[] }
  | { kind: "unreachable"; runId: string; stepId: string; message: string };

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
const str = (v: unknown): string => (typeof v === "string" ? v : "");

/**
 * Reads one `tools/call` result of the gateway (see {@link GatewayAnswer}). Pure; never throws: a
 * result without Plandesk's `structuredContent.status` is the upstream's own answer (`result`).
 */
export function readGatewayAnswer(result: McpToolResult): GatewayAnswer {
  const s = isObject(result.structuredContent) ? result.structuredContent : {};
  const meta = isObject(result._meta) ? result._meta : {};
  if (s.status === "pending" && typeof s.runId === "string") return { kind: "pending", runId: s.runId, stepId: str(s.stepId), runStatus: str(s.runStatus), poll: str(s.poll), expiresAt: str(s.expiresAt) };
  if (result.isError && s.status === "rejected") {
    return { kind: "rejected", code: str(s.code), message: str(s.message), issues: Array.isArray(s.issues) ? s.issues : [], ...(typeof s.runId === "string" ? { runId: s.runId } : {}) };
  }
  if (result.isError && s.status === "unknown" && typeof s.runId === "string") return { kind: "unknown", runId: s.runId, stepId: str(s.stepId), message: str(s.message) };
  const runId = typeof meta["plandesk/runId"] === "string" ? meta["plandesk/runId"] : undefined;
  const readId = typeof meta["plandesk/readId"] === "string" ? meta["plandesk/readId"] : undefined;
  const added = Array.isArray(meta["plandesk/addedSteps"])
    ? meta["plandesk/addedSteps"].filter(isObject).map((a) => ({ stepId: str(a.stepId), tool: str(a.tool), status: str(a.status) }))
    : [];
  return { kind: "result", result, ...(runId ? { runId } : {}), ...(readId ? { readId } : {}), ...(added.length ? { addedSteps: added } : {}) };
}

/** How long after a held write's deadline a caller that cannot reach the console keeps trying, by default: 30 s (like `PollOptions.graceMs`). */
export const GATEWAY_GRACE_MS = 30_000;

/**
 * Whether a write still `pending` can no longer be decided at `now` (ms since the epoch): its
 * deadline (`expiresAt`) plus `graceMs` (default {@link GATEWAY_GRACE_MS}) has passed. A caller
 * that cannot reach the console asks again until then, then ends `unreachable`. A pending answer
 * without a deadline (`""`, or one that does not parse) never passes it. Pure.
 */
export function gatewayDeadlinePassed(pending: Extract<GatewayAnswer, { kind: "pending" }>, now = Date.now(), graceMs = GATEWAY_GRACE_MS): boolean {
  const deadline = Date.parse(pending.expiresAt);
  return Number.isFinite(deadline) && now > deadline + graceMs;
}
