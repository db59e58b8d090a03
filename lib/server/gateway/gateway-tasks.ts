/**
 * The MCP long-running-call mechanism on Plandesk's MCP gateway (docs/design.md "MCP gateway",
 * "Tasks"): the MCP specification's tasks (revision 2025-11-25, experimental in the SDK this
 * repository uses, `@modelcontextprotocol/sdk` 1.32), over the gateway's own records — no second
 * store. A write's MCP task IS its `gateway_call` row ("gwc_…"): every instance reads the same row,
 * so any instance answers `tasks/get` and `tasks/result` (the gateway is stateless).
 *
 * Negotiated as the specification says: the server declares `tasks.requests.tools.call`, each write
 * tool `execution.taskSupport: "optional"` (a read answers at once: no task), and the client opts in
 * per call with `params.task`. A client that does not gets the typed `pending` answer with the run
 * to poll, as before (./call-gateway-tool.ts).
 *
 * - `tools/call` with `task` of a write: held exactly as without (`holdGatewayWrite`: the one
 *   submission path), answered with `CreateTaskResult {task}` and, for the model,
 *   `_meta["io.modelcontextprotocol/model-immediate-response"]`. The same call again with the same
 *   `plandesk/idempotencyKey` answers the same task where it stands. Refused at submission: a
 *   JSON-RPC error -32602 whose `data` is the typed refusal (`{status: "rejected", code, message,
 *   issues?}`) — no task was accepted. A read with `task`: -32601 (the tool's taskSupport is absent).
 * - the task's state is the gateway's answer to the same call repeated (`answerOf`): `pending` →
 *   `working` (its `statusMessage` says who acts next; `_meta["plandesk/progress"]` the run, step,
 *   run status, deadline and poll URL); the upstream's own answer → `completed`, or `failed` when it
 *   is an error (`isError`, as the specification counts it); a rejection, a stop, the run's expiry
 *   or an `unknown` outcome → `failed`. `tasks/result` answers exactly that answer (blocking while
 *   `working`, polled by the SDK every `pollInterval`, until the deadline ends the run at the latest:
 *   never an endless wait).
 * - `ttl` is null: the task lives as long as the run's record. `pollInterval` is the executor's pass
 *   interval (asking more often learns nothing new).
 * - `tasks/list` and `tasks/cancel` are not offered (not declared; -32601): a held write is decided,
 *   edited or rejected by a person in Plandesk, never withdrawn by its agent.
 *
 * Scope: the store is made per request for the authenticated agent; a task of another agent or
 * desk is "not found" (-32602), like a task that never existed.
 */
import { McpError, ErrorCode, type CallToolResult, type CreateTaskResult, type Result, type Task } from "@modelcontextprotocol/sdk/types.js";
import type { TaskStore } from "@modelcontextprotocol/sdk/experimental/tasks/interfaces.js";
import { DomainError, isDomainError } from "../../errors/domain-error";
import { agentDesk, type AgentCaller } from "../auth/viewer";
import { prisma } from "../db/db";
import { answerOf, holdGatewayWrite, refusalResult } from "./call-gateway-tool";
import { gatewayPassIntervalMs } from "./execute-gateway-steps";
import { gatewayToolOf } from "./gateway-tools";

/** The `_meta` key of CreateTaskResult whose string a host may hand the model at once (MCP 2025-11-25, "Creating Tasks"). */
export const MODEL_IMMEDIATE_RESPONSE = "io.modelcontextprotocol/model-immediate-response";

/** The `_meta` key of a working task naming where its write stands: `{runId, stepId, runStatus, expiresAt, poll}`. */
export const META_PROGRESS = "plandesk/progress";

/** Who acts next on a held write, by its run's status, as a task's `statusMessage` says it. */
const WAITING: Record<string, string> = {
  pending_review: "waits for a person's review",
  needs_decision: "waits for a person's new decision",
  approved: "is approved; Plandesk calls the upstream next",
  executing: "is being executed by Plandesk",
};

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/** The first text of an answer, at most 500 characters. */
const textOf = (result: CallToolResult): string => {
  const first = (result.content ?? []).find((c) => c.type === "text");
  return (first && first.type === "text" ? first.text : "").slice(0, 500);
};

/** A write's row as a task is made from it. */
type TaskRow = { id: string; runId: string | null; stepId: string | null; tool: string; status: string; result: unknown; error: string | null; createdAt: Date; updatedAt: Date };

/**
 * The MCP task of the gateway write `row` whose answer now is `answer` (see the module comment);
 * `runUpdatedAt`: when its run last changed (its last update when later than the row's);
 * `pollIntervalMs`: the suggested interval between two `tasks/get`. Pure.
 */
export function taskOf(row: TaskRow, answer: CallToolResult, runUpdatedAt: Date | null, pollIntervalMs = gatewayPassIntervalMs()): Task & { _meta?: Record<string, unknown> } {
  const s = isObject(answer.structuredContent) ? answer.structuredContent : {};
  const working = s.status === "pending";
  const lastUpdated = runUpdatedAt && runUpdatedAt > row.updatedAt ? runUpdatedAt : row.updatedAt;
  const base = { taskId: row.id, ttl: null, createdAt: row.createdAt.toISOString(), lastUpdatedAt: lastUpdated.toISOString(), pollInterval: pollIntervalMs };
  if (working) {
    const runStatus = String(s.runStatus ?? "");
    return {
      ...base,
      status: "working",
      statusMessage: `${row.tool} (step ${row.stepId} of run ${row.runId}) ${WAITING[runStatus] ?? `waits (${runStatus})`}; a person decides by ${String(s.expiresAt ?? "its deadline")}.`,
      _meta: { [META_PROGRESS]: { runId: s.runId, stepId: s.stepId, runStatus, expiresAt: s.expiresAt, poll: s.poll } },
    };
  }
  return { ...base, status: answer.isError ? "failed" : "completed", statusMessage: textOf(answer) };
}

/** The agent's write row `taskId` (desk and agent in the `where`), or null. */
async function rowOf(agent: AgentCaller, taskId: string): Promise<(TaskRow & { runId: string; stepId: string }) | null> {
  const row = await prisma.gatewayCall.findFirst({
    where: { id: taskId.slice(0, 64), agentId: agent.id, desk: agentDesk(agent), kind: "write" },
    select: { id: true, runId: true, stepId: true, tool: true, status: true, result: true, error: true, createdAt: true, updatedAt: true },
  });
  return row?.runId && row.stepId ? { ...row, runId: row.runId, stepId: row.stepId } : null;
}

/** The task `taskId` of `agent` now, with its answer; null when the agent has no such task. */
async function loadTask(agent: AgentCaller, taskId: string): Promise<{ task: Task; answer: CallToolResult } | null> {
  const row = await rowOf(agent, taskId);
  if (!row) return null;
  const answer = await answerOf(row);
  const run = await prisma.run.findUnique({ where: { id: row.runId }, select: { updatedAt: true } });
  return { task: taskOf(row, answer, run?.updatedAt ?? null), answer };
}

/**
 * A task-augmented `tools/call` of `name` by `agent` (see the module comment). Returns the
 * CreateTaskResult. Throws McpError -32602 (InvalidParams) with the typed refusal as `data` when
 * the tool is unknown or the write is refused, -32601 (MethodNotFound) for a read; other errors
 * are unexpected (the transport answers them as internal errors).
 */
export async function createGatewayTask(agent: AgentCaller, name: string, args: unknown, meta: Record<string, unknown>): Promise<CreateTaskResult> {
  const tool = await gatewayToolOf(agent, name);
  if (!tool) throw refused(refusalResult(new DomainError("not_found", `There is no tool "${name}" for this agent on Plandesk's MCP gateway (tools/list names them).`)));
  if (tool.read) throw new McpError(ErrorCode.MethodNotFound, `${name} is a read: it answers at once and is not run as a task. Call it without "task".`);
  let held;
  try {
    held = await holdGatewayWrite(agent, tool, args, meta);
  } catch (e) {
    if (isDomainError(e)) throw refused(refusalResult(e));
    throw e;
  }
  const loaded = await loadTask(agent, held.callId);
  if (!loaded) throw new McpError(ErrorCode.InternalError, "The held write's task could not be read back.");
  return { task: loaded.task, _meta: { [MODEL_IMMEDIATE_RESPONSE]: textOf(held.result) } };
}

/** A typed refusal (a tools/call result) as the JSON-RPC error of a task-augmented call: -32602, the refusal in `data`. */
function refused(result: CallToolResult): McpError {
  return new McpError(ErrorCode.InvalidParams, textOf(result), result.structuredContent);
}

/** The error of a task operation Plandesk does not offer to agents. */
const notOffered = (what: string) => new McpError(ErrorCode.InvalidRequest, `${what}: a write held by Plandesk is decided, edited or rejected by a person, not by its agent.`);

/**
 * The SDK's task store for `agent`'s requests (the SDK's `tasks/get` and `tasks/result` handlers
 * read it; see the module comment). Tasks are made only by a task-augmented write
 * (`createGatewayTask`) and end only by the run's own life, so the writing methods refuse:
 * -32600 (InvalidRequest).
 */
export function gatewayTaskStore(agent: AgentCaller): TaskStore {
  return {
    createTask: async () => {
      throw notOffered("Tasks are made by a tools/call of a write");
    },
    getTask: async (taskId) => (await loadTask(agent, taskId))?.task ?? null,
    storeTaskResult: async () => {
      throw notOffered("A task's result is the upstream's answer to Plandesk's call");
    },
    getTaskResult: async (taskId): Promise<Result> => {
      const loaded = await loadTask(agent, taskId);
      if (!loaded) throw new McpError(ErrorCode.InvalidParams, `Task not found: ${taskId.slice(0, 64)}`);
      return loaded.answer;
    },
    updateTaskStatus: async () => {
      throw notOffered("A task cannot be cancelled or moved by its agent");
    },
    listTasks: async () => {
      throw new McpError(ErrorCode.MethodNotFound, "tasks/list is not offered: a write's task id is in its tools/call answer.");
    },
  };
}
