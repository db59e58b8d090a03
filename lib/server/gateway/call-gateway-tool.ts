/**
 * One `tools/call` an agent makes through Plandesk's MCP gateway (`/api/mcp`; docs/design.md
 * "MCP gateway"):
 *
 * - a **read** (the upstream annotated the tool `readOnlyHint: true`) is checked against the tool's
 *   argument schema, forwarded at once to the desk's upstream with Plandesk's stored credential, and
 *   its answer recorded (`gateway_call`, kind read; audited `gateway_call`). The answer's `_meta`
 *   names the record (`plandesk/readId`), which a later write call cites as evidence
 *   (`_meta["plandesk/evidence"]`: the step's evidence `{recordType: "gateway_read", recordId}`);
 * - a **write** becomes a one-step plan for the task named in `_meta["plandesk/taskId"]`, submitted
 *   through the one submission path (`submitRun`, lib/server/runs/submit-run.ts: the same
 *   validation, gate policy, approvals and audit as a plan an agent posts) as an addition to the
 *   agent's other plans for the task. The caller gets a typed answer at once, never a wait:
 *   `{status: "pending", runId, stepId, runStatus, poll, expiresAt}` (isError false) — Plandesk executes the
 *   step itself once it is approved (./execute-gateway-steps.ts) — or `{status: "rejected", code,
 *   message, issues?}` (isError true).
 *
 * No answer carries a credential: the upstream's answers and error text are cleaned by the upstream's
 * redactor (every string of an answer, before it is stored, returned or reported).
 */
import { createHash } from "node:crypto";
import { nanoid } from "nanoid";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { submitRunBodySchema } from "../../api/bodies";
import { DomainError, isDomainError } from "../../errors/domain-error";
import { Prisma } from "../../generated/prisma/client";
import { isTerminal, type RunStatus } from "../../lifecycle/run-state";
import { CANNOT_EXECUTE_FLAG } from "../../lifecycle/run-outcome";
import { appendAudit } from "../audit-log/append-audit";
import { agentDesk, type AgentCaller } from "../auth/viewer";
import { prisma } from "../db/db";
import { inTransaction, ok } from "../db/transaction";
import { submitRun } from "../runs/submit-run";
import { catalogWith } from "../../tools/versioned-catalog";
import { connectUpstream, redactAnswer } from "../tools/mcp-upstreams";
import { gatewayToolOf, type GatewayTool } from "./gateway-tools";
import { stagingOfSchema } from "../../tools/tool-bindings";
import { expireIfDue, moveRun } from "../lifecycle/run-lifecycle";
import { importedToolsAt, latestCatalogVersion } from "../tools/imported-tools";
import { moveApprovals } from "../lifecycle/approval-lifecycle";
import { loadPlanVersionRow } from "../plans/load-run";
import { storedSteps } from "../plans/stored-plan";

/** The `_meta` keys the gateway reads on a tools/call. */
export const META_TASK_ID = "plandesk/taskId";
export const META_TASK_REVISION = "plandesk/taskRevision";
export const META_EVIDENCE = "plandesk/evidence";
export const META_TITLE = "plandesk/title";
export const META_RATIONALE = "plandesk/rationale";
export const META_IDEMPOTENCY_KEY = "plandesk/idempotencyKey";
/** On a write: the agent's held gateway run (still waiting for review, unedited) this write joins as one more step. */
export const META_RUN_ID = "plandesk/runId";

/** How long a forwarded read may take upstream (connect and call), in milliseconds. */
export const READ_TIMEOUT_MS = 20_000;

/** At most this many characters of an upstream's answer are kept in `gateway_call.result`. */
const MAX_RESULT_CHARS = 64_000;

/** The typed answer of a gateway call the agent sees in `structuredContent`. */
export type GatewayAnswer =
  | { status: "pending"; runId: string; stepId: string; runStatus: string; poll: string; gatewayCallId: string; /** The run's deadline (ISO 8601, UTC): no decision by then, it expires. */ expiresAt: string }
  | { status: "rejected"; code: string; message: string; issues?: unknown[]; runId?: string }
  | { status: "unknown"; runId: string; stepId: string; message: string };

/** A result answering `answer` (a text for clients that read only content, the same in structuredContent). */
function answerResult(answer: GatewayAnswer, text: string): CallToolResult {
  return { content: [{ type: "text", text }], structuredContent: answer as unknown as Record<string, unknown>, isError: answer.status !== "pending" };
}

/** A typed refusal as a tools/call result (isError, with its code, message and issues). */
export function refusalResult(e: DomainError, extra: { runId?: string } = {}): CallToolResult {
  const issues = Array.isArray(e.details.issues) ? (e.details.issues as unknown[]) : undefined;
  return answerResult({ status: "rejected", code: e.code, message: e.message, ...(issues ? { issues } : {}), ...extra }, `Refused (${e.code}): ${e.message}`);
}

/** `value` as stored JSON, cut to MAX_RESULT_CHARS (then `{truncated: true, text}`). */
export function storableResult(value: unknown): Prisma.InputJsonValue {
  const text = JSON.stringify(value ?? null);
  return (text.length <= MAX_RESULT_CHARS ? JSON.parse(text) : { truncated: true, text: text.slice(0, MAX_RESULT_CHARS) }) as Prisma.InputJsonValue;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/**
 * Answers one tools/call of `name` with `args` and `meta` (the request's `_meta`) for `agent`.
 * Returns the MCP result; never throws a DomainError (refusals are results with isError).
 * Unknown tool: isError `unknown_tool`. Errors thrown: only unexpected ones (the transport answers
 * them as a JSON-RPC internal error).
 */
export async function callGatewayTool(agent: AgentCaller, name: string, args: unknown, meta: Record<string, unknown>): Promise<CallToolResult> {
  try {
    const tool = await gatewayToolOf(agent, name);
    if (!tool) throw new DomainError("not_found", `There is no tool "${name}" for this agent on Plandesk's MCP gateway (tools/list names them).`);
    const object = argumentsObject(args);
    // a read's arguments are checked here, by the tool's schema; a write's by the one validator, at submission
    return tool.read ? await forwardRead(agent, tool, object, meta) : (await submitWrite(agent, tool, object, meta)).result;
  } catch (e) {
    if (isDomainError(e)) return refusalResult(e);
    throw e;
  }
}

/** A write the gateway holds (or found again by its `plandesk/idempotencyKey`): its gateway call and the answer a plain tools/call gets. */
export interface HeldWrite {
  /** The `gateway_call` row of the write ("gwc_…"): what a task-augmented call names as its task. */
  callId: string;
  result: CallToolResult;
}

/**
 * The write path of {@link callGatewayTool} for a caller that needs the gateway call behind the
 * answer (./gateway-tasks.ts: the call's MCP task is that row): `tool` must be a write of the
 * agent's gateway tools (`gatewayToolOf`). Returns the held write — `pending`, or where an earlier
 * call with the same idempotency key stands. Errors: the submission's DomainError (422
 * `validation_failed` {issues}, 404 `not_found`, 409 `stale_task`, `run_not_pending`…), thrown.
 */
export async function holdGatewayWrite(agent: AgentCaller, tool: GatewayTool, args: unknown, meta: Record<string, unknown>): Promise<HeldWrite> {
  return submitWrite(agent, tool, argumentsObject(args), meta);
}

/** The call's arguments as a JSON object (absent: `{}`). Errors: 422 `validation_failed` {issues} for anything else. */
function argumentsObject(args: unknown): Record<string, unknown> {
  const raw = args ?? {};
  if (!isObject(raw)) throw new DomainError("validation_failed", "The arguments must be a JSON object.", { issues: [{ path: "arguments", message: "must be an object" }] });
  return raw;
}

/** Forwards a read (see the module comment) and records it. */
async function forwardRead(agent: AgentCaller, tool: GatewayTool, args: Record<string, unknown>, meta: Record<string, unknown>): Promise<CallToolResult> {
  // the tool's own definition, as gatewayToolsOf read it from the current catalog (no second read of the catalog)
  const schema = catalogWith([tool.spec], tool.spec.catalogVersion).get(tool.spec.name)?.argsSchema;
  if (!schema) throw new DomainError("validation_failed", `${tool.spec.name} is not in the current tool catalog, so its arguments cannot be checked; nothing was sent.`, { issues: [{ path: "name", message: "not in the current catalog" }] });
  const parsed = schema.safeParse(args);
  if (!parsed.success) {
    const issues = parsed.error.issues.map((i) => ({ path: ["arguments", ...i.path].join("."), message: i.message }));
    throw new DomainError("validation_failed", `The arguments of ${tool.spec.name} are not valid: ${issues.map((i) => `${i.path}: ${i.message}`).join("; ")}.`, { issues });
  }
  const id = `gwc_${nanoid(14)}`;
  const taskId = typeof meta[META_TASK_ID] === "string" ? (meta[META_TASK_ID] as string).slice(0, 200) : null;
  let result: CallToolResult;
  let failure: string | null = null;
  const { client, redact } = await connectUpstream(tool.upstream, READ_TIMEOUT_MS);
  try {
    result = redactAnswer((await client.callTool({ name: tool.spec.name, arguments: args }, undefined, { timeout: READ_TIMEOUT_MS })) as CallToolResult, redact);
  } catch (e) {
    failure = redact(e instanceof Error ? e.message : String(e)).slice(0, 500);
    result = { content: [{ type: "text", text: `The upstream MCP server did not answer the read: ${failure}` }], isError: true };
  } finally {
    await client.close().catch(() => undefined);
  }
  const status = result.isError ? "failed" : "ok";
  await inTransaction(async (tx) => {
    await tx.gatewayCall.create({
      data: { id, desk: agentDesk(agent), agentId: agent.id, upstreamId: tool.upstream.id, tool: tool.spec.name, kind: "read", taskId, arguments: args as Prisma.InputJsonValue, status, result: storableResult(result), error: failure },
    });
    await appendAudit(tx, { type: "gateway_call", actor: { kind: "agent", id: agent.id }, data: { callId: id, kind: "read", tool: tool.spec.name, upstream: tool.upstream.name, status, taskId } });
    return ok(undefined);
  });
  return { ...result, _meta: { ...(isObject(result._meta) ? result._meta : {}), "plandesk/readId": id, "plandesk/readStatus": status } };
}

/** The evidence a write cites: `_meta["plandesk/evidence"]`, gateway read ids of this agent. Errors: 422 `validation_failed`. */
async function evidenceOf(agent: AgentCaller, meta: Record<string, unknown>): Promise<{ recordType: string; recordId: string; note: string }[]> {
  const raw = meta[META_EVIDENCE];
  if (raw === undefined) return [];
  const ids = Array.isArray(raw) ? raw : [raw];
  if (ids.length > 20 || !ids.every((i): i is string => typeof i === "string" && i.length <= 64)) {
    throw new DomainError("validation_failed", `_meta["${META_EVIDENCE}"] lists at most 20 read ids (plandesk/readId of earlier gateway reads).`, { issues: [{ path: `_meta.${META_EVIDENCE}`, message: "at most 20 read ids" }] });
  }
  const reads = await prisma.gatewayCall.findMany({ where: { id: { in: ids }, kind: "read", agentId: agent.id, desk: agentDesk(agent) }, select: { id: true, tool: true, status: true } });
  const missing = ids.filter((i) => !reads.some((r) => r.id === i));
  if (missing.length) {
    throw new DomainError("validation_failed", `No gateway read ${missing.join(", ")} of this agent; cite the plandesk/readId of a read you made through Plandesk.`, { issues: missing.map((m) => ({ path: `_meta.${META_EVIDENCE}`, message: `no read ${m}` })) });
  }
  return reads.map((r) => ({ recordType: "gateway_read", recordId: r.id, note: `${r.tool} through Plandesk's MCP gateway (${r.status})` }));
}

/** Submits a write as a one-step plan (see the module comment) and records the gateway call. */
async function submitWrite(agent: AgentCaller, tool: GatewayTool, args: Record<string, unknown>, meta: Record<string, unknown>): Promise<HeldWrite> {
  const taskId = meta[META_TASK_ID];
  if (typeof taskId !== "string" || taskId.length === 0 || taskId.length > 200) {
    throw new DomainError("validation_failed", `A write needs the task it serves: send _meta {"${META_TASK_ID}": "<task id>"} with the call.`, { issues: [{ path: `_meta.${META_TASK_ID}`, message: "required for a write tool" }] });
  }
  const task = await prisma.task.findFirst({ where: { id: taskId, desk: agentDesk(agent) }, select: { revision: true } });
  if (!task) throw new DomainError("not_found", `Task ${taskId} was not found.`);
  const revision = typeof meta[META_TASK_REVISION] === "number" ? meta[META_TASK_REVISION] : task.revision;
  const text = (k: string, max: number) => (typeof meta[k] === "string" ? (meta[k] as string).slice(0, max) : undefined);
  const evidence = await evidenceOf(agent, meta);
  const key = typeof meta[META_IDEMPOTENCY_KEY] === "string" ? `mcp:${(meta[META_IDEMPOTENCY_KEY] as string).slice(0, 150)}` : null;
  // with a key, the step id is derived from it, so a repeat of the call is the same submission (a replay)
  const stepId = key ? `st_${createHash("sha256").update(key).digest("hex").slice(0, 16)}` : `st_${nanoid(10)}`;
  if (key) {
    // the same call again: answered with where it stands (the upstream's own answer once executed), nothing submitted again
    const earlier = await prisma.gatewayCall.findFirst({ where: { agentId: agent.id, stepId, kind: "write", desk: agentDesk(agent) } });
    if (earlier?.runId) return { callId: earlier.id, result: await answerOf(earlier as typeof earlier & { runId: string; stepId: string }) };
  }
  const step = { id: stepId, tool: tool.spec.name, args, title: text(META_TITLE, 200) ?? tool.spec.label, ...(text(META_RATIONALE, 4000) ? { rationale: text(META_RATIONALE, 4000) } : {}), ...(evidence.length ? { evidence } : {}) };
  const joined = typeof meta[META_RUN_ID] === "string" ? await heldRunSteps(agent, meta[META_RUN_ID] as string, taskId) : null;
  // staged writes do not wait for one another to be visible: their promotion ties them together
  const steps = joined ? [...joined.steps, step].map((s) => (joined.allStaged && stagingOfSchema(tool.spec.inputSchema).commit ? { ...s, dependsOn: [] } : s)) : [step];
  const body = submitRunBodySchema.parse({ taskRevision: joined?.taskRevision ?? revision, steps, addition: true });
  const { run } = await submitRun(agent, taskId, body, key);
  const runStepId = run.steps.at(-1)?.id ?? stepId;
  if (joined) await supersedeJoined(agent, joined.runId, run.id, taskId);
  // A replayed submission (same idempotency key) has its gateway call already: one per run and step.
  const callId = await inTransaction(async (tx) => {
    const existing = await tx.gatewayCall.findFirst({ where: { runId: run.id, stepId: runStepId }, select: { id: true } });
    if (existing) return ok(existing.id);
    const id = `gwc_${nanoid(14)}`;
    await tx.gatewayCall.create({
      data: { id, desk: agentDesk(agent), agentId: agent.id, upstreamId: tool.upstream.id, tool: tool.spec.name, kind: "write", taskId, runId: run.id, stepId: runStepId, arguments: args as Prisma.InputJsonValue, status: "pending", idempotencyKey: idempotencyKeyOf(run.id, runStepId) },
    });
    await appendAudit(tx, { runId: run.id, type: "gateway_call", actor: { kind: "agent", id: agent.id }, data: { callId: id, kind: "write", tool: tool.spec.name, upstream: tool.upstream.name, status: "pending", taskId } });
    return ok(id);
  });
  const answer: GatewayAnswer = { status: "pending", runId: run.id, stepId: runStepId, runStatus: run.status, poll: `/api/v1/runs/${run.id}`, gatewayCallId: callId, expiresAt: run.expiresAt };
  return {
    callId,
    result: answerResult(
      answer,
      `Plandesk holds ${tool.spec.name} as step ${runStepId} of run ${run.id} (${run.status}); a person reviews it and Plandesk performs exactly what is approved, once. Poll GET /api/v1/runs/${run.id} for the decision and the outcome.`,
    ),
  };
}

/**
 * Where an earlier gateway write stands, as the answer to the same call repeated (same
 * `plandesk/idempotencyKey`): still waiting → `pending` (with the run's status and deadline; a
 * deadline already passed expires the run first, so the answer is `run_expired`); executed → the
 * upstream's own answer (its content, structuredContent and isError) with `_meta` naming the run;
 * answer lost → `unknown` (isError; a person reconciles); the run ended without executing →
 * `rejected` with code `run_<status>` and the run's reason; the step failed before anything was
 * sent upstream (the fence refused the claim — a Stop, a rejection, a new task revision —, the
 * approved arguments did not match the claim, the upstream could not be reached) → `rejected` with
 * code `run_<status>` (`step_not_executed` while the run has not ended yet) and why. Also the state of
 * the call's MCP task (./gateway-tasks.ts): `pending` is its only non-terminal answer.
 */
export async function answerOf(row: { id: string; runId: string; stepId: string; tool: string; status: string; result: unknown; error?: string | null }, now = new Date()): Promise<CallToolResult> {
  const readRun = () => prisma.run.findUnique({ where: { id: row.runId }, select: { status: true, rejectionReason: true, expiresAt: true } });
  let run = await readRun();
  // A deadline passed that the sweep has not reached yet: the run expires now, so the agent asking
  // again is told `run_expired` at once (like GET /api/v1/runs/{runId}).
  if (run && !isTerminal(run.status as RunStatus) && run.expiresAt.getTime() <= now.getTime() && (await expireIfDue(row.runId, now))) run = await readRun();
  const runStatus = run?.status ?? "unknown";
  if ((row.status === "succeeded" || row.status === "failed") && isObject(row.result)) {
    const result = row.result as CallToolResult;
    const added = await addedStepsOf(row.runId);
    const told = added.length ? [{ type: "text" as const, text: addedStepsText(added) }] : [];
    return {
      ...result,
      content: [...(result.content ?? []), ...told],
      _meta: { ...(isObject(result._meta) ? result._meta : {}), "plandesk/runId": row.runId, "plandesk/stepId": row.stepId, "plandesk/status": row.status, ...(added.length ? { "plandesk/addedSteps": added } : {}) },
    };
  }
  if (row.status === "unknown") {
    const message = `Plandesk called ${row.tool} but its answer was lost; whether it wrote is unknown. It is not called again: a person reconciles step ${row.stepId} of run ${row.runId}.`;
    return answerResult({ status: "unknown", runId: row.runId, stepId: row.stepId, message }, message);
  }
  if (row.status === "ended" || row.status === "discarded" || (run && isTerminal(run.status as RunStatus) && (row.status === "pending" || row.status === "staged"))) {
    const message = `Run ${row.runId} ended ${runStatus} without executing ${row.tool}${run?.rejectionReason ? `: ${run.rejectionReason}` : ""}.`;
    return answerResult({ status: "rejected", code: `run_${runStatus}`, message, runId: row.runId }, message);
  }
  if (row.status === "failed") {
    // nothing reached the upstream: a stop, never an answer to wait for
    const ended = run !== null && isTerminal(run.status as RunStatus);
    const message = `Plandesk did not call ${row.tool} for step ${row.stepId} of run ${row.runId} (${runStatus}): ${row.error ?? "the step failed before its call."}`;
    return answerResult({ status: "rejected", code: ended ? `run_${runStatus}` : "step_not_executed", message, runId: row.runId }, message);
  }
  const answer: GatewayAnswer = { status: "pending", runId: row.runId, stepId: row.stepId, runStatus, poll: `/api/v1/runs/${row.runId}`, gatewayCallId: row.id, expiresAt: (run?.expiresAt ?? now).toISOString() };
  return answerResult(answer, `Step ${row.stepId} of run ${row.runId} (${runStatus}) is not executed yet. Poll GET /api/v1/runs/${row.runId}, or repeat this call with the same plandesk/idempotencyKey.`);
}

/** A step a person added to a gateway run (not in the plan the agent submitted) and where it stands. */
export interface AddedStep {
  stepId: string;
  tool: string;
  /** `pending` (not executed yet: Plandesk executes it when an upstream serves its tool), `succeeded`, `failed`, `unknown`, `claimed`, or `cannot_execute` (nobody can execute it; a person takes it). */
  status: string;
}

/**
 * The steps of run `runId`'s current plan that are not in the plan its agent submitted (version 1):
 * a person added them in an edit. The agent hears of them with its own call's answer, so a model
 * is never told only that its calls succeeded while the run holds more (docs/design.md
 * "MCP gateway", its "Steps a person adds"). Empty for a run nobody added to. Two reads by primary key.
 */
async function addedStepsOf(runId: string): Promise<AddedStep[]> {
  const run = await prisma.run.findUnique({ where: { id: runId }, select: { planVersion: true } });
  if (!run || run.planVersion === 1) return [];
  const submitted = new Set(storedSteps((await loadPlanVersionRow(prisma, runId, 1)).steps).map((st) => st.id));
  const added = storedSteps((await loadPlanVersionRow(prisma, runId, run.planVersion)).steps).filter((st) => !submitted.has(st.id));
  if (added.length === 0) return [];
  const executions = await prisma.stepExecution.findMany({ where: { runId, stepId: { in: added.map((st) => st.id) } }, select: { stepId: true, status: true, flag: true } });
  return added.map((st) => {
    const e = executions.find((x) => x.stepId === st.id);
    return { stepId: st.id, tool: st.tool, status: !e ? "pending" : e.flag === CANNOT_EXECUTE_FLAG ? "cannot_execute" : e.status };
  });
}

/** What the model reads of the added steps, one sentence. */
function addedStepsText(added: AddedStep[]): string {
  return `A person added ${added.length === 1 ? "a step" : `${added.length} steps`} to this run that you did not call: ${added.map((a) => `${a.stepId} (${a.tool}): ${a.status}`).join("; ")}. Plandesk executes an added step when an upstream serves its tool; cannot_execute means nobody can, and a person takes it.`;
}

/**
 * The idempotency key Plandesk sends upstream with the execution of step `stepId` of run `runId`
 * (`_meta["plandesk/idempotencyKey"]`): derived from the step, so any retry of the same step by
 * anyone carries the same key and the upstream can refuse a second write.
 */
export function idempotencyKeyOf(runId: string, stepId: string): string {
  return `plandesk:${runId}:${stepId}`;
}

/**
 * The steps of the agent's held gateway run `runId` that a new write joins (`_meta["plandesk/runId"]`):
 * the run must be the agent's, for `taskId`, still `pending_review` at plan version 1 (no person
 * edited it), and every step a gateway write of this agent. Returns its steps as submitted (id,
 * tool, args, title, rationale, evidence), its bound task revision, and whether every step's tool
 * stages. Errors: 404 `not_found`; 409 `run_not_pending` {runId, status} once it was edited,
 * decided or ended (the agent makes a new plan instead).
 */
async function heldRunSteps(agent: AgentCaller, runId: string, taskId: string): Promise<{ runId: string; taskRevision: number; steps: Record<string, unknown>[]; allStaged: boolean }> {
  const run = await prisma.run.findFirst({ where: { id: runId.slice(0, 64), agentId: agent.id, taskId }, select: { id: true, status: true, planVersion: true, boundTaskRevision: true } });
  if (!run) throw new DomainError("not_found", `No run ${runId.slice(0, 64)} of yours for task ${taskId} to add this write to.`);
  if (run.status !== "pending_review" || run.planVersion !== 1) {
    throw new DomainError("run_not_pending", `Run ${run.id} is ${run.status}${run.planVersion !== 1 ? " and was edited" : ""}; a write joins only a run still waiting for its first review. Call without plandesk/runId for a new run.`, { runId: run.id, status: run.status });
  }
  const steps = storedSteps((await loadPlanVersionRow(prisma, run.id, 1)).steps);
  const rows = await prisma.gatewayCall.findMany({ where: { runId: run.id, kind: "write", agentId: agent.id }, select: { stepId: true, tool: true } });
  if (steps.length === 0 || steps.some((st) => !rows.some((r) => r.stepId === st.id))) {
    throw new DomainError("run_not_pending", `Run ${run.id} holds steps that are not gateway writes; a write joins only a run of gateway writes.`, { runId: run.id, status: run.status });
  }
  const catalog = await catalogOf(steps.map((st) => st.tool));
  return {
    runId: run.id,
    taskRevision: run.boundTaskRevision,
    allStaged: steps.every((st) => catalog.get(st.tool)?.commit != null),
    steps: steps.map((st) => ({ id: st.id, tool: st.tool, args: st.args, ...(st.title ? { title: st.title } : {}), ...(st.rationale ? { rationale: st.rationale } : {}), ...(st.evidence?.length ? { evidence: st.evidence } : {}) })),
  };
}

/** The staging of the named tools in the current catalog (by name). */
async function catalogOf(names: string[]): Promise<Map<string, { commit: string | null }>> {
  const specs = await importedToolsAt(await latestCatalogVersion());
  return new Map(specs.filter((sp) => names.includes(sp.name)).map((sp) => [sp.name, { commit: stagingOfSchema(sp.inputSchema).commit }]));
}

/**
 * The held run `oldRunId` is superseded by `newRunId` (its steps and this write): one conditional
 * move (lifecycle `supersede`), its approvals withdrawn, its gateway calls moved to the new run
 * (same step ids, keys derived anew), audited `superseded`. When the old run was decided meanwhile
 * (the move finds it no longer waiting), the new run holds the joined steps and the old one goes
 * its own way; the old run's gateway rows stay with it.
 */
async function supersedeJoined(agent: AgentCaller, oldRunId: string, newRunId: string, taskId: string): Promise<void> {
  await inTransaction(async (tx) => {
    if (!(await moveRun(tx, oldRunId, "supersede", { where: { agentId: agent.id }, data: { supersededById: newRunId } }))) return ok(undefined);
    const withdrawn = await moveApprovals(tx, "invalidate", { runId: oldRunId });
    const rows = await tx.gatewayCall.findMany({ where: { runId: oldRunId, kind: "write", status: "pending" }, select: { id: true, stepId: true } });
    for (const r of rows) {
      if (!r.stepId) continue;
      await tx.gatewayCall.update({ where: { id: r.id }, data: { runId: newRunId, idempotencyKey: idempotencyKeyOf(newRunId, r.stepId) } });
    }
    await appendAudit(tx, { runId: oldRunId, type: "superseded", actor: { kind: "agent", id: agent.id }, data: { supersededById: newRunId, taskId, approvalsWithdrawn: withdrawn, joinedByGatewayWrite: true } });
    return ok(undefined);
  });
}
