/**
 * "Undo the written steps" after a partial stop of a gateway run (docs/design.md "Staged runs"):
 * when a run whose writes Plandesk executed ended part-way (stopped or failed) and every written
 * step's tool declares a compensating tool (`x-plandesk-compensate`, lib/tools/tool-bindings.ts),
 * a person asks for the undo and gets a new plan — never a write: one compensating step per written
 * step, last written first, each with the arguments the written step was approved with, submitted
 * for the run's agent through the one submission path (`submitRun`: validated, gated and reviewed
 * like any plan) and held as gateway writes, so Plandesk executes them only after a person
 * approves them, under the same claim and fence.
 */
import { nanoid } from "nanoid";
import { DomainError, isDomainError } from "../../errors/domain-error";
import type { Prisma } from "../../generated/prisma/client";
import { stagingOfSchema } from "../../tools/tool-bindings";
import { appendAudit } from "../audit-log/append-audit";
import { requireRole } from "../auth/require-role";
import { agentDesk, deskScope, type AgentCaller, type Viewer } from "../auth/viewer";
import { prisma } from "../db/db";
import { inTransaction, ok } from "../db/transaction";
import { loadPlanVersionRow } from "../plans/load-run";
import type { RunView } from "../plans/run-view";
import { storedSteps } from "../plans/stored-plan";
import { submitRun, submittedRunIdOf } from "../runs/submit-run";
import { importedToolsAt } from "../tools/imported-tools";
import { idempotencyKeyOf } from "./call-gateway-tool";
import { gatewayToolOf } from "./gateway-tools";

/** Run states after which written steps may be undone: the run ended part-way. */
const PARTIAL_STOPS = ["stopped", "failed"];

/** The idempotency key of run `runId`'s undo submission: asking again finds the same undo run. */
const undoKeyOf = (runId: string) => `undo:${runId}`;

/**
 * One compensating call an undo proposes: the compensating `tool` with `args` (the arguments the
 * written step was approved with, exactly as they will be submitted), and the written step it
 * undoes (`undoes`: its id, position in the run's plan, title or tool name, and tool).
 */
export interface UndoCall {
  tool: string;
  args: Record<string, unknown>;
  undoes: { stepId: string; position: number | null; title: string; tool: string };
}

/** The undo of one run, worked out: the run's agent, the compensating tools as the gateway serves them, and the calls in submission order (last written first). */
interface UndoPlan {
  run: { id: string; status: string; taskId: string };
  agent: AgentCaller;
  tools: Map<string, NonNullable<Awaited<ReturnType<typeof gatewayToolOf>>>>;
  calls: UndoCall[];
}

/**
 * Works out the undo of run `runId` as `viewer` may see it (desk scope), without writing anything:
 * the rule of {@link undoWrittenSteps} (partial stop, written gateway steps, a compensating tool
 * for each, each served to the run's agent). Errors: 404 `not_found`; 409 `nothing_to_undo`
 * {reason, …} as `undoWrittenSteps` documents.
 */
async function planUndo(viewer: Viewer, runId: string): Promise<UndoPlan> {
  const run = await prisma.run.findFirst({ where: { ...deskScope(viewer), id: runId }, select: { id: true, status: true, taskId: true, agentId: true, planVersion: true, catalogVersion: true } });
  if (!run) throw new DomainError("not_found", `Run ${runId} was not found.`);
  if (!PARTIAL_STOPS.includes(run.status)) throw new DomainError("nothing_to_undo", `Run ${run.id} is ${run.status}; written steps are undone after a run stopped part-way.`, { reason: "not_stopped", status: run.status });
  const written = await prisma.gatewayCall.findMany({ where: { runId: run.id, kind: "write", status: "succeeded" }, orderBy: { updatedAt: "desc" } });
  if (written.length === 0) throw new DomainError("nothing_to_undo", `Run ${run.id} wrote nothing through Plandesk's gateway; there is nothing to undo.`, { reason: "nothing_written" });
  const specs = run.catalogVersion === null ? [] : await importedToolsAt(run.catalogVersion);
  const compensateOf = (tool: string) => {
    const spec = specs.find((s) => s.name === tool);
    return spec ? stagingOfSchema(spec.inputSchema).compensate : null;
  };
  const without = [...new Set(written.filter((w) => !compensateOf(w.tool)).map((w) => w.tool))];
  if (without.length) throw new DomainError("nothing_to_undo", `${without.join(", ")} declare${without.length === 1 ? "s" : ""} no compensating tool; the written steps stay as they are (a partial stop).`, { reason: "no_compensation", tools: without });
  const agentRow = await prisma.agent.findUniqueOrThrow({ where: { id: run.agentId }, select: { id: true, name: true, desk: true, allowedTools: true } });
  const agent: AgentCaller = { id: agentRow.id, name: agentRow.name, desk: agentRow.desk, keyId: "plandesk-gateway", allowedTools: Array.isArray(agentRow.allowedTools) ? agentRow.allowedTools.filter((t): t is string => typeof t === "string") : [] };
  const served = new Map<string, Awaited<ReturnType<typeof gatewayToolOf>>>();
  for (const w of written) {
    const name = compensateOf(w.tool)!;
    if (!served.has(name)) served.set(name, await gatewayToolOf(agent, name));
  }
  const unavailable = [...served.entries()].filter(([, t]) => !t || t.read).map(([n]) => n);
  if (unavailable.length) throw new DomainError("nothing_to_undo", `The run's agent cannot call ${unavailable.join(", ")} through Plandesk's gateway (allowlist, or no enabled server lists it); nothing was proposed.`, { reason: "compensation_unavailable", tools: unavailable });
  const tools = new Map([...served.entries()].map(([n, t]) => [n, t!]));
  const stored = storedSteps((await loadPlanVersionRow(prisma, run.id, run.planVersion)).steps);
  const calls: UndoCall[] = [];
  for (const w of written) {
    // the arguments the written step was approved with (an operator's edit included), as Plandesk sent them
    const approval = await prisma.approval.findFirst({ where: { runId: run.id, stepId: w.stepId ?? "", state: "consumed" }, orderBy: { createdAt: "desc" }, select: { args: true } });
    const index = stored.findIndex((s) => s.id === w.stepId);
    calls.push({
      tool: compensateOf(w.tool)!,
      args: (approval?.args ?? w.arguments) as Record<string, unknown>,
      undoes: { stepId: w.stepId ?? "", position: index >= 0 ? index + 1 : null, title: index >= 0 ? (stored[index].title ?? w.tool) : w.tool, tool: w.tool },
    });
  }
  return { run, agent, tools, calls };
}

/** What {@link previewUndo} finds: the compensating calls on offer (and the undo run already proposed), or why the written steps stay. */
export type UndoPreview = { kind: "offer"; calls: UndoCall[]; proposedRunId: string | null } | { kind: "unavailable"; reason: "no_compensation" | "compensation_unavailable"; message: string; tools: string[] };

/**
 * What the run page offers after a partial stop (docs/design.md "Staged runs"): `{kind: "offer",
 * calls, proposedRunId}` — the compensating calls an undo of run `runId` would submit, exactly as
 * {@link undoWrittenSteps} submits them, and the undo run already proposed (null: none yet); or
 * `{kind: "unavailable", reason, message, tools}` when the run stopped part-way after writing but
 * its written steps cannot be undone (`no_compensation`, `compensation_unavailable`); or null when
 * there is nothing to say (the run did not stop part-way, or wrote nothing through the gateway, or
 * is not `viewer`'s to see). Reads only; whether `viewer` may ask is the endpoint's rule
 * (`undoWrittenStepsEndpoint`'s caller), decided by the caller.
 */
export async function previewUndo(viewer: Viewer, runId: string): Promise<UndoPreview | null> {
  try {
    const plan = await planUndo(viewer, runId);
    return { kind: "offer", calls: plan.calls, proposedRunId: await submittedRunIdOf(plan.agent.id, undoKeyOf(plan.run.id)) };
  } catch (e) {
    if (!isDomainError(e)) throw e;
    if (e.code === "nothing_to_undo" && (e.details.reason === "no_compensation" || e.details.reason === "compensation_unavailable")) {
      return { kind: "unavailable", reason: e.details.reason, message: e.message, tools: Array.isArray(e.details.tools) ? e.details.tools.map(String) : [] };
    }
    if (e.code === "nothing_to_undo" || e.code === "not_found") return null;
    throw e;
  }
}

/**
 * Proposes the undo of run `runId`'s written gateway steps as a new run (see the module comment),
 * asked by `viewer` (an operator of the run's desk, or a supervisor). Idempotent: asking again
 * returns the same undo run (`replayed: true`). Returns `{run, replayed}` — the new run is
 * `pending_review` unless the gate policy auto-approves its tools; its steps are the calls
 * {@link previewUndo} lists, in that order.
 * Errors: 403 `forbidden` for other roles; 404 `not_found` (unknown or another desk's run); 409
 * `nothing_to_undo` {reason: "not_stopped" | "nothing_written" | "no_compensation" |
 * "compensation_unavailable", …} when the run did not stop part-way, wrote nothing through the
 * gateway, a written step's tool declares no compensating tool (`tools`), or the agent cannot call
 * the compensating tool through the gateway (`tools`); the submission's own refusals
 * (`validation_failed` {issues}, `stale_task`…).
 */
export async function undoWrittenSteps(viewer: Viewer, runId: string): Promise<{ run: RunView; replayed: boolean }> {
  await requireRole(viewer, ["operator", "supervisor"], "gateway.undo_written_steps");
  const { run, agent, tools, calls } = await planUndo(viewer, runId);
  const steps = calls.map((c) => ({
    id: `undo-${c.undoes.stepId || nanoid(8)}`.slice(0, 64),
    tool: c.tool,
    args: c.args,
    title: `Undo: ${c.undoes.title}`.slice(0, 200),
    rationale: `Undoes step ${c.undoes.stepId} of run ${run.id}, written before the run ${run.status}; asked by ${viewer.name}.`,
  }));
  const task = await prisma.task.findUniqueOrThrow({ where: { id: run.taskId }, select: { revision: true } });
  const submitted = await submitRun(agent, run.taskId, { taskRevision: task.revision, steps, addition: true }, undoKeyOf(run.id));
  const undo = submitted.run;
  await inTransaction(async (tx) => {
    for (const step of undo.steps) {
      if (await tx.gatewayCall.findFirst({ where: { runId: undo.id, stepId: step.id }, select: { id: true } })) continue;
      const tool = tools.get(step.tool)!;
      const id = `gwc_${nanoid(14)}`;
      await tx.gatewayCall.create({
        data: { id, desk: agentDesk(agent), agentId: agent.id, upstreamId: tool.upstream.id, tool: step.tool, kind: "write", taskId: run.taskId, runId: undo.id, stepId: step.id, arguments: step.args as Prisma.InputJsonValue, status: "pending", idempotencyKey: idempotencyKeyOf(undo.id, step.id) },
      });
      await appendAudit(tx, { runId: undo.id, type: "gateway_call", actor: { kind: "user", id: viewer.id }, data: { callId: id, kind: "write", tool: step.tool, upstream: tool.upstream.name, status: "pending", taskId: run.taskId, undoOf: run.id } });
    }
    return ok(undefined);
  });
  return { run: undo, replayed: submitted.replayed };
}
