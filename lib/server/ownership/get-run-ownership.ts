import { decidersFor, type WaitingStep } from "../../people/approvers";
import { DomainError } from "../../errors/domain-error";
import { storedDecisionReason } from "../../lifecycle/needs-decision";
import { effectiveStatus, WAITING_STATES, type RunStatus } from "../../lifecycle/run-state";
import { getTool } from "../../tools/builtin-tools";
import { prisma } from "../db/db";
import { grantsOf, deskScope, type Viewer } from "../auth/viewer";
import { storedSteps, storedValidation, type StoredRequirement } from "../plans/stored-plan";
import { authorsOf } from "../../gate-policy/authors";
import type { Step } from "../../plan/schema";
import type { RunOwnership, SuggestionView } from "../../api/endpoints/ownership-api";
import { authorBlock, checkGrant } from "../../people/grants";
import { formatMoney, type Money } from "../../money/format-money";
import { suggestionView } from "./suggest-step";

/** The money a built-in tool's step moves (its `amount`), or null: another tool, or arguments it cannot read. */
function stepAmount(tool: string, args: unknown): Money | null {
  try {
    return getTool(tool)?.amount(args as never) ?? null;
  } catch {
    return null;
  }
}

/** Approval states that count as "approved" for the current plan version (the step needs no more approval). */
export const APPROVED_STATES = ["active", "claimed", "consumed"] as const;

/** People a candidate list holds at most (operators of the desk with a matching grant, and supervisors). */
const CANDIDATES = 50;

/** What the run page's ownership panel shows: the API's ownership answer (lib/api/endpoints/ownership-api.ts), declared once. */
export type { RunOwnership };

/**
 * The steps of the current plan version that still need a person's approval: gated
 * (`gate !== "auto"`) and with fewer approvals (in an APPROVED_STATES state for that version, one
 * per person) than the gate policy asked (`requirements`, four eyes; default one). Each
 * names how many are missing and who may not give them: the people who already approved it, and
 * its authors when the rule excludes them (lib/gate-policy/authors.ts). Positions are 1-based. Pure.
 */
export function waitingSteps(
  steps: readonly Pick<Step, "id" | "tool" | "args" | "author" | "provenance">[],
  gate: Record<string, string>,
  approvals: readonly { stepId: string; planVersion: number; state: string; approverId?: string | null }[],
  version: number,
  requirements: Readonly<Record<string, Pick<StoredRequirement, "approvalsRequired" | "authorMayApprove">>> = {},
): WaitingStep[] {
  const given = new Map<string, (string | null)[]>();
  for (const a of approvals) {
    if (a.planVersion !== version || !(APPROVED_STATES as readonly string[]).includes(a.state)) continue;
    given.set(a.stepId, [...(given.get(a.stepId) ?? []), a.approverId ?? null]);
  }
  return steps.flatMap((s, i) => {
    if (gate[s.id] === "auto") return [];
    const req = requirements[s.id];
    const by = given.get(s.id) ?? [];
    const missing = Math.max(req?.approvalsRequired ?? 1, 1) - by.length;
    if (missing <= 0) return [];
    const amount = stepAmount(s.tool, s.args);
    const excluded = [...by.filter((x): x is string => x !== null), ...(req && !req.authorMayApprove ? authorsOf(s) : [])];
    return [{ stepId: s.id, position: i + 1, tool: s.tool, amount, missing, excluded: [...new Set(excluded)] }];
  });
}

/**
 * A run that needs a new decision: its blocked step (`run.decisionReason.stepId`) waits for one
 * person's decision again even while its approvals stand — anyone whose grant covers it, its
 * earlier approver included. Empty when it is already listed as waiting, or unknown.
 */
function decideAgainStep(steps: readonly Pick<Step, "id" | "tool" | "args">[], decisionReason: unknown, waiting: readonly WaitingStep[]): WaitingStep[] {
  const reason = storedDecisionReason(decisionReason);
  const at = reason ? steps.findIndex((s) => s.id === reason.stepId) : -1;
  if (!reason || at < 0 || waiting.some((w) => w.stepId === reason.stepId)) return [];
  const s = steps[at];
  const amount = stepAmount(s.tool, s.args);
  return [{ stepId: s.id, position: at + 1, tool: s.tool, amount, missing: 1, excluded: [] }];
}

/**
 * Why `viewer` cannot accept suggestion `s` as their own edit, in the editor's words, or null: the
 * author grant for its tool and the author limit for its amount (`checkGrant`, docs/design.md §1.7).
 * The server checks authorship again when the suggestion is accepted (`acceptSuggestion`).
 */
function acceptBlock(viewer: Viewer, s: SuggestionView): string | null {
  const denial = checkGrant(viewer.grants, "author", s.step.tool, stepAmount(s.step.tool, s.step.args) ?? undefined);
  if (!denial) return null;
  if (denial.code === "over_limit") return `${formatMoney(denial.amount)} is over your author limit of ${formatMoney(denial.limit)} for ${s.step.tool}`;
  return authorBlock(viewer.grants, s.step.tool);
}

/**
 * The ownership panel's data for `viewer`: the assignee, "who acts next" by name —
 * for each waiting step the people whose approve grant covers it, found in SQL (active operators
 * of the run's desk and supervisors holding an approve grant for one of the waiting tools, at most
 * 50, then checked with `checkGrant`) — open hand-offs, suggestions and the people one may ask.
 * Errors: 404 `not_found` (unknown run or another desk's).
 */
export async function getRunOwnership(viewer: Viewer, runId: string, now = new Date()): Promise<RunOwnership> {
  const run = await prisma.run.findFirst({
    where: { ...deskScope(viewer), id: runId },
    select: {
      id: true, status: true, expiresAt: true, desk: true, planVersion: true, assigneeId: true, assignedAt: true, decisionReason: true,
      planVersions: { select: { version: true, steps: true, validation: true } },
      approvals: { select: { stepId: true, planVersion: true, state: true, approverId: true } },
    },
  });
  if (!run) throw new DomainError("not_found", `Run ${runId} was not found.`);
  const status = effectiveStatus(run.status as RunStatus, run.expiresAt, now);
  const current = run.planVersions.find((p) => p.version === run.planVersion);
  const stored = storedValidation(current?.validation);
  const waiting = WAITING_STATES.includes(status) ? waitingSteps(storedSteps(current?.steps), stored.gate, run.approvals, run.planVersion, stored.requirements) : [];
  if (status === "needs_decision") waiting.push(...decideAgainStep(storedSteps(current?.steps), run.decisionReason, waiting));
  const tools = [...new Set(waiting.map((w) => w.tool))];
  const candidates = tools.length
    ? await prisma.user.findMany({
        where: {
          disabled: false,
          OR: [{ role: "operator", desk: run.desk }, { role: "supervisor" }],
          grants: { some: { canApprove: true, tool: { in: tools } } },
        },
        select: { id: true, name: true, role: true, grants: { where: { tool: { in: tools } } } },
        orderBy: [{ role: "asc" }, { name: "asc" }],
        take: CANDIDATES,
      })
    : [];
  const deciders = decidersFor(
    waiting,
    candidates.map((c) => ({ id: c.id, name: c.name, role: c.role, grants: grantsOf(c.grants) })),
    viewer.id,
  );
  const [requests, suggestions, people] = [
    await prisma.approvalRequest.findMany({ where: { runId, resolvedAt: null }, orderBy: [{ createdAt: "desc" }, { id: "desc" }], take: 20 }),
    await prisma.stepSuggestion.findMany({ where: { runId }, orderBy: [{ createdAt: "desc" }, { id: "desc" }], take: 20 }),
    await prisma.user.findMany({
      where: { disabled: false, OR: [{ role: "operator", desk: run.desk }, { role: "supervisor" }] },
      select: { id: true, name: true, role: true },
      orderBy: [{ role: "asc" }, { name: "asc" }],
      take: CANDIDATES,
    }),
  ];
  const ids = new Set<string>();
  if (run.assigneeId) ids.add(run.assigneeId);
  for (const r of requests) [r.byUserId, r.toUserId].forEach((x) => x && ids.add(x));
  for (const s of suggestions) [s.byUserId, s.decidedById].forEach((x) => x && ids.add(x));
  const names = new Map((ids.size ? await prisma.user.findMany({ where: { id: { in: [...ids] } }, select: { id: true, name: true } }) : []).map((u) => [u.id, u.name]));
  const nameOf = (id: string | null) => (id ? (names.get(id) ?? id) : null);
  return {
    runId,
    status,
    planVersion: run.planVersion,
    assignee: run.assigneeId ? { id: run.assigneeId, name: nameOf(run.assigneeId)!, assignedAt: run.assignedAt?.toISOString() ?? null } : null,
    deciders,
    beyondMyLimit: deciders.some((d) => d.beyondViewer),
    requests: requests.map((r) => ({
      id: r.id, runId: r.runId, stepId: r.stepId, toUserId: r.toUserId, toRole: r.toRole, note: r.note, byUserId: r.byUserId,
      createdAt: r.createdAt.toISOString(), resolvedAt: r.resolvedAt?.toISOString() ?? null,
      byName: nameOf(r.byUserId)!, toName: nameOf(r.toUserId),
    })),
    suggestions: suggestions.map((s) => {
      const view = suggestionView(s);
      const open = view.state === "open";
      return { ...view, byName: nameOf(s.byUserId)!, decidedByName: nameOf(s.decidedById), stale: open && view.planVersion !== run.planVersion, acceptBlocked: open ? acceptBlock(viewer, view) : null };
    }),
    people,
  };
}
