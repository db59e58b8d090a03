import type { SuggestionView } from "../../api/endpoints/ownership-api";
import { nanoid } from "nanoid";
import { z } from "zod";
import { DomainError, isDomainError } from "../../errors/domain-error";
import { effectiveStatus, WAITING_STATES, type RunStatus } from "../../lifecycle/run-state";
import { appendAudit } from "../audit-log/append-audit";
import { prisma } from "../db/db";
import { submitEdit, type EditResult } from "../edits/submit-edit";
import { toJsonColumn } from "../db/json-column";
import { reasonsOf } from "../../plan/reasons";
import type { StepReasons } from "../../plan/schema";
import { storedSteps } from "../plans/stored-plan";
import { deskScope, type Viewer } from "../auth/viewer";
import { catalogAt } from "../tools/imported-tools";
import { inTransaction, ok } from "../db/transaction";

/** `POST /api/runs/{runId}/suggestions`: a step for the plan at `planVersion`, inserted at `position` (0-based; omitted = at the end). */
export interface SuggestStepInput {
  planVersion: number;
  tool: string;
  args: Record<string, unknown>;
  position?: number | null;
  note?: string;
}

/** A suggestion as the API shows it (lib/api/endpoints/ownership-api.ts), declared once. */
export type { SuggestionView };

const storedStep = z.object({ tool: z.string(), args: z.record(z.string(), z.unknown()), position: z.number().int().nullable().optional() });

/** A stored suggestion row as a view (the `step` JSON column parsed; a malformed one reads as an empty step). */
export function suggestionView(r: {
  id: string; runId: string; planVersion: number; step: unknown; note: string; byUserId: string; state: string;
  decidedById: string | null; decidedAt: Date | null; reason: string | null; acceptedVersion: number | null; createdAt: Date;
}): SuggestionView {
  const parsed = storedStep.safeParse(r.step);
  const step = parsed.success ? { tool: parsed.data.tool, args: parsed.data.args, position: parsed.data.position ?? null } : { tool: "", args: {}, position: null };
  return {
    id: r.id, runId: r.runId, planVersion: r.planVersion, step, note: r.note, byUserId: r.byUserId,
    state: (["open", "accepted", "declined"].includes(r.state) ? r.state : "open") as SuggestionView["state"],
    decidedById: r.decidedById, decidedAt: r.decidedAt?.toISOString() ?? null, reason: r.reason, acceptedVersion: r.acceptedVersion, createdAt: r.createdAt.toISOString(),
  };
}

/** The run within the viewer's desk, refusing one that no longer waits for a decision. */
async function waitingRun(viewer: Viewer, runId: string, now: Date) {
  const run = await prisma.run.findFirst({
    where: { ...deskScope(viewer), id: runId },
    select: { id: true, status: true, expiresAt: true, planVersion: true, catalogVersion: true, assigneeId: true, planVersions: { select: { version: true, steps: true } } },
  });
  if (!run) throw new DomainError("not_found", `Run ${runId} was not found.`);
  const status = effectiveStatus(run.status as RunStatus, run.expiresAt, now);
  if (status === "expired") throw new DomainError("expired", "This run has expired; its plan can no longer change.", { expiresAt: run.expiresAt.toISOString() });
  if (!WAITING_STATES.includes(status)) throw new DomainError("run_not_pending", `This run is ${status.replace(/_/g, " ")}; only a run waiting for review takes suggestions.`, { status });
  return run;
}

/**
 * Suggest a step (like GitHub's suggested changes): a person who may not author a
 * tool's steps attaches one to a waiting run, for a person with the author grant to accept as
 * their own edit or decline. The step's arguments are checked by the tool's own schema here (the
 * shape stage); everything else — bounds, authorship, the gate — is checked by the one validator
 * when someone accepts it. Audited `step_suggested`; the run's assignee, if another person, is notified.
 * Errors: 404 `not_found`; 409 `expired`, `run_not_pending`, `stale_plan_version` {currentVersion};
 * 422 `validation_failed` {issues} (unknown tool, arguments the tool's schema refuses).
 */
export async function suggestStep(viewer: Viewer, runId: string, input: SuggestStepInput, now = new Date()): Promise<SuggestionView> {
  const run = await waitingRun(viewer, runId, now);
  if (input.planVersion !== run.planVersion) {
    throw new DomainError("stale_plan_version", `The plan is now at version ${run.planVersion}; your suggestion was for version ${input.planVersion}.`, { currentVersion: run.planVersion });
  }
  const tool = (await catalogAt(run.catalogVersion)).get(input.tool);
  if (!tool) {
    throw new DomainError("validation_failed", `Unknown tool "${input.tool}".`, { issues: [{ stage: "shape", code: "unknown_tool", severity: "error", path: "tool", message: `Unknown tool "${input.tool}".` }] });
  }
  const parsed = tool.argsSchema.safeParse(input.args);
  if (!parsed.success) {
    const issues = parsed.error.issues.map((i) => ({ stage: "shape", code: "invalid_args", severity: "error", path: ["args", ...i.path.map(String)].join("."), message: i.message }));
    throw new DomainError("validation_failed", "The suggested step's arguments are not valid; nothing was saved.", { issues });
  }
  const steps = storedSteps(run.planVersions.find((p) => p.version === run.planVersion)?.steps);
  const position = input.position == null ? null : Math.max(0, Math.min(steps.length, input.position));
  const id = `sug_${nanoid(10)}`;
  const row = await inTransaction(async (tx) => {
    const created = await tx.stepSuggestion.create({
      data: { id, runId, planVersion: run.planVersion, step: toJsonColumn({ tool: input.tool, args: parsed.data, position }), note: input.note ?? "", byUserId: viewer.id, createdAt: now },
    });
    await appendAudit(tx, { runId, type: "step_suggested", actor: { kind: "user", id: viewer.id }, data: { suggestionId: id, planVersion: run.planVersion, tool: input.tool, byUserId: viewer.id, position, note: input.note ?? "" } });
    if (run.assigneeId && run.assigneeId !== viewer.id) {
      await tx.notification.create({ data: { id: nanoid(), userId: run.assigneeId, kind: "step_suggested", runId, text: `${viewer.name} suggested a ${input.tool} step on your run.`, createdAt: now } });
    }
    return ok(created);
  });
  return suggestionView(row);
}

async function openSuggestion(runId: string, suggestionId: string) {
  const s = await prisma.stepSuggestion.findFirst({ where: { id: suggestionId, runId } });
  if (!s) throw new DomainError("not_found", `Suggestion ${suggestionId} was not found.`);
  if (s.state !== "open") throw new DomainError("suggestion_closed", `This suggestion was already ${s.state}.`, { state: s.state });
  return s;
}

/**
 * Accepts a suggested step as the acceptor's OWN edit: the current plan plus the
 * suggested step with the acceptor's `reasons` (title, rationale, evidence, risk, stop condition —
 * a suggestion is a proposal and is saved without them, but the step a person adds is held to the
 * fields the gate policy requires: without them the acceptance is refused 422 like any edit)
 * goes through `submitEdit` — the one validator with the acceptor's authorship,
 * the server-side diff, re-approval — and only then is the suggestion marked accepted (a
 * conditional update: open → accepted), audited `suggestion_accepted`; the suggester is notified.
 * Errors: 404 `not_found`; 409 `suggestion_closed` {state}; 409 `stale_plan_version`
 * {currentVersion} when the plan changed since the suggestion (suggest again on the new plan);
 * every refusal of `submitEdit` (403 `authorship_denied` for an acceptor without the author
 * grant, 422 `validation_failed`, 409 `expired` / `run_not_pending` / `stale_task`).
 */
export async function acceptSuggestion(viewer: Viewer, runId: string, suggestionId: string, now = new Date(), reasons: StepReasons = {}): Promise<{ suggestion: SuggestionView; edit: EditResult }> {
  const run = await waitingRun(viewer, runId, now);
  const s = suggestionView(await openSuggestion(runId, suggestionId));
  if (s.planVersion !== run.planVersion) {
    throw new DomainError("stale_plan_version", `The plan changed since this suggestion was made (version ${s.planVersion}; it is now at version ${run.planVersion}). Ask for a new suggestion on the current plan, or add the step yourself.`, {
      currentVersion: run.planVersion,
      suggestedOn: s.planVersion,
    });
  }
  const steps = storedSteps(run.planVersions.find((p) => p.version === run.planVersion)?.steps).map((x) => ({ id: x.id, tool: x.tool, args: x.args }));
  const at = s.step.position == null ? steps.length : Math.min(steps.length, s.step.position);
  const next = [...steps.slice(0, at), { id: `suggested-${s.id}`, tool: s.step.tool, args: s.step.args, ...reasonsOf(reasons) }, ...steps.slice(at)];
  const edit = await submitEdit(viewer, runId, { baseVersion: run.planVersion, steps: next }, now);
  const decided = await inTransaction(async (tx) => {
    const won = await tx.stepSuggestion.updateMany({ where: { id: s.id, state: "open" }, data: { state: "accepted", decidedById: viewer.id, decidedAt: now, acceptedVersion: edit.planVersion.version } });
    if (won.count === 1) {
      await appendAudit(tx, { runId, type: "suggestion_accepted", actor: { kind: "user", id: viewer.id }, data: { suggestionId: s.id, planVersion: s.planVersion, toVersion: edit.planVersion.version, suggestedBy: s.byUserId, byUserId: viewer.id } });
      if (s.byUserId !== viewer.id) {
        await tx.notification.create({ data: { id: nanoid(), userId: s.byUserId, kind: "suggestion_accepted", runId, text: `${viewer.name} accepted your suggested ${s.step.tool} step (plan version ${edit.planVersion.version}).`, createdAt: now } });
      }
    }
    return ok(await tx.stepSuggestion.findUniqueOrThrow({ where: { id: s.id } }));
  });
  return { suggestion: suggestionView(decided), edit };
}

/**
 * Declines a suggested step with a reason: a conditional update open → declined,
 * audited `suggestion_declined`; the suggester is notified. Errors: 404 `not_found`; 409
 * `suggestion_closed` {state} (already accepted or declined — also when another person decided
 * at the same moment).
 */
export async function declineSuggestion(viewer: Viewer, runId: string, suggestionId: string, reason: string, now = new Date()): Promise<SuggestionView> {
  const run = await prisma.run.findFirst({ where: { ...deskScope(viewer), id: runId }, select: { id: true } });
  if (!run) throw new DomainError("not_found", `Run ${runId} was not found.`);
  const s = suggestionView(await openSuggestion(runId, suggestionId));
  try {
    const row = await inTransaction(async (tx) => {
      const won = await tx.stepSuggestion.updateMany({ where: { id: s.id, state: "open" }, data: { state: "declined", decidedById: viewer.id, decidedAt: now, reason } });
      if (won.count === 0) throw new DomainError("suggestion_closed", "Someone else decided this suggestion first.", {});
      await appendAudit(tx, { runId, type: "suggestion_declined", actor: { kind: "user", id: viewer.id }, data: { suggestionId: s.id, planVersion: s.planVersion, suggestedBy: s.byUserId, byUserId: viewer.id, reason } });
      if (s.byUserId !== viewer.id) {
        await tx.notification.create({ data: { id: nanoid(), userId: s.byUserId, kind: "suggestion_declined", runId, text: `${viewer.name} declined your suggested ${s.step.tool} step: ${reason}`, createdAt: now } });
      }
      return ok(await tx.stepSuggestion.findUniqueOrThrow({ where: { id: s.id } }));
    });
    return suggestionView(row);
  } catch (e) {
    if (isDomainError(e) && e.code === "suggestion_closed") {
      const fresh = await prisma.stepSuggestion.findUniqueOrThrow({ where: { id: s.id }, select: { state: true } });
      throw new DomainError("suggestion_closed", `This suggestion was already ${fresh.state}.`, { state: fresh.state });
    }
    throw e;
  }
}
