/**
 * Which approvals survive an edit — the ONE rule (issue 14, docs/design.md §5–§7). The semantic
 * diff's `moved` and `reapprovalRequired` and the server's carry-over of approvals
 * (lib/server/approvals/carry-approvals.ts) both call `decideReapproval`, so the review screen
 * and the database cannot disagree.
 *
 * Pure TypeScript: no framework imports, no I/O (the digest uses `node:crypto`, so this is
 * server-side; client code imports only types).
 *
 * Positions are 1-based. An approval is consent to a step's tool and arguments (its digest),
 * its place relative to the other steps, its declared prerequisites, and the warnings the
 * approver acknowledged. It carries to the edited plan exactly when none of those changed.
 */
import { digest } from "../plan/digest";
import type { Plan, Step } from "../plan/schema";

import { REAPPROVAL_REASONS, type ReapprovalReason } from "./reapproval-labels";

export { REAPPROVAL_REASONS, REAPPROVAL_REASON_LABEL, type ReapprovalReason } from "./reapproval-labels";

/** A step of the edited plan that needs approval again: its id, 1-based position in `after`, every reason (precedence order). */
export interface ReapprovalEntry {
  stepId: string;
  position: number;
  reasons: ReapprovalReason[];
}

/** A common step whose relative order changed: 1-based positions in `before` (`from`) and `after` (`to`). */
export interface Move {
  stepId: string;
  tool: string;
  from: number;
  to: number;
}

/**
 * What the caller knows about consent beyond the two plans:
 * - `issues`: validation issues of the edited plan (only `stepId`, `code`, `needsAcknowledgement` are read);
 * - `approvals`: the active approvals of the `before` version, each with the acknowledgements
 *   its approver gave (`{code, stepId}` pairs; `null` = none).
 * Without `approvals`, the `unacknowledged_warning` reason is never produced.
 */
export interface ConsentContext {
  /** The validator's issues of `after` (lib/validation); the diff's annotations are these on its added and changed steps. */
  issues?: readonly { stepId?: string; code: string; needsAcknowledgement?: boolean; severity?: "error" | "warning"; path?: string; message?: string }[];
  approvals?: readonly { stepId: string; acknowledged?: unknown; approverId?: string | null }[];
  /** The gate of the edited plan per step id (the validator's stage 8 under the live gate policy). */
  gate?: Readonly<Record<string, "auto" | "approval_required">>;
}

/** The decision: the moved steps (in `after` order) and the steps needing approval (grouped by first reason, each group in `after` order). */
export interface ReapprovalDecision {
  moved: Move[];
  required: ReapprovalEntry[];
}

/**
 * The minimal set of moves between two orders of the same ids: the complement of a longest
 * common subsequence (for permutations, a longest increasing subsequence of the old positions
 * read in the new order). A swap of two steps with others between them is two moves, a
 * reversal of three is two moves (the middle one stays), an adjacent swap is one move (one step
 * jumped over the other), and a step that merely shifts because of an insertion or removal
 * elsewhere is not moved. Among the longest subsequences we keep the one with the most steps
 * at an unchanged absolute position (then at an unchanged rank), so a step is never reported
 * "moved from 3 to 3" unless every minimal set has to move it (its neighbours were rearranged
 * across it, e.g. [a,b,x,c,d] → [c,d,x,a,b]). Ties beyond that are broken deterministically.
 *
 * `before` / `after`: the common ids in each order (same set, no duplicates);
 * `beforePos` / `afterPos`: absolute 1-based positions in the full plans (default: rank + 1).
 * Returns the ids kept in place. O(n²) for n common steps (plans hold at most 20).
 */
export function keptInOrder(
  before: readonly string[],
  after: readonly string[],
  beforePos: (id: string) => number = (id) => before.indexOf(id) + 1,
  afterPos: (id: string) => number = (id) => after.indexOf(id) + 1,
): Set<string> {
  const rank = new Map(before.map((id, i) => [id, i]));
  const seq = after.map((id, j) => ({ id, r: rank.get(id)!, sameAbs: beforePos(id) === afterPos(id) ? 1 : 0, sameRank: rank.get(id) === j ? 1 : 0 }));
  type Score = [number, number, number];
  const better = (a: Score, b: Score) => a[0] !== b[0] ? a[0] > b[0] : a[1] !== b[1] ? a[1] > b[1] : a[2] > b[2];
  const best: Score[] = [];
  const prev: number[] = [];
  seq.forEach((e, j) => {
    let score: Score = [1, e.sameAbs, e.sameRank];
    let p = -1;
    for (let k = 0; k < j; k++) {
      if (seq[k].r >= e.r) continue;
      const cand: Score = [best[k][0] + 1, best[k][1] + e.sameAbs, best[k][2] + e.sameRank];
      if (better(cand, score)) {
        score = cand;
        p = k;
      }
    }
    best.push(score);
    prev.push(p);
  });
  let end = -1;
  best.forEach((s, j) => {
    if (end === -1 || better(s, best[end])) end = j;
  });
  const kept = new Set<string>();
  for (let j = end; j !== -1; j = prev[j]) kept.add(seq[j].id);
  return kept;
}

/**
 * Decides, from the plan before and after an edit (and optionally the approvals and the edited
 * plan's issues), which steps moved and which need approval again, with every reason.
 * Steps are aligned by id; same id with another tool is a new step (`added`). Pure.
 * @throws Error if a plan repeats a step id (the structure stage refuses such plans first).
 */
export function decideReapproval(before: Plan, after: Plan, ctx: ConsentContext = {}): ReapprovalDecision {
  const index = (steps: Step[], side: string) => {
    const m = new Map<string, { step: Step; pos: number }>();
    steps.forEach((step, i) => {
      if (m.has(step.id)) throw new Error(`step id ${step.id} appears twice in the ${side} plan`);
      m.set(step.id, { step, pos: i + 1 });
    });
    return m;
  };
  const b = index(before.steps, "before");
  const a = index(after.steps, "after");
  const isCommon = (id: string) => b.get(id)?.step.tool === a.get(id)?.step.tool && b.has(id) && a.has(id);

  const commonBefore = before.steps.filter((s) => isCommon(s.id)).map((s) => s.id);
  const commonAfter = after.steps.filter((s) => isCommon(s.id)).map((s) => s.id);
  const kept = keptInOrder(commonBefore, commonAfter, (id) => b.get(id)!.pos, (id) => a.get(id)!.pos);
  const moved: Move[] = commonAfter
    .filter((id) => !kept.has(id))
    .map((id) => ({ stepId: id, tool: a.get(id)!.step.tool, from: b.get(id)!.pos, to: a.get(id)!.pos }));
  const movedIds = new Set(moved.map((m) => m.stepId));

  const approvedAcks = new Map<string, { code: string; stepId: string }[]>();
  for (const ap of ctx.approvals ?? []) approvedAcks.set(ap.stepId, Array.isArray(ap.acknowledged) ? (ap.acknowledged as { code: string; stepId: string }[]) : []);
  // Steps whose only consent is the policy's (approverId null; undefined = not told, a person).
  const byPolicyOnly = new Set<string>();
  const byPerson = new Set<string>();
  for (const ap of ctx.approvals ?? []) (ap.approverId === null ? byPolicyOnly : byPerson).add(ap.stepId);
  for (const id of byPerson) byPolicyOnly.delete(id);
  const deps = (s: Step) => JSON.stringify(s.dependsOn ?? []);

  const entries: ReapprovalEntry[] = [];
  after.steps.forEach((s, i) => {
    const reasons: ReapprovalReason[] = [];
    if (!isCommon(s.id)) reasons.push("added");
    else {
      const old = b.get(s.id)!.step;
      if (digest(old) !== digest(s)) reasons.push("changed");
      if (movedIds.has(s.id)) reasons.push("moved");
      if (deps(old) !== deps(s)) reasons.push("prerequisites_changed");
      const acks = approvedAcks.get(s.id);
      if (acks) {
        const unacked = (ctx.issues ?? []).some(
          (issue) => issue.needsAcknowledgement && issue.stepId === s.id && !acks.some((k) => k.code === issue.code && k.stepId === s.id),
        );
        if (unacked) reasons.push("unacknowledged_warning");
      }
      if (byPolicyOnly.has(s.id) && ctx.gate?.[s.id] === "approval_required") reasons.push("gate_changed");
    }
    if (reasons.length > 0) entries.push({ stepId: s.id, position: i + 1, reasons });
  });
  const group = (e: ReapprovalEntry) => (REAPPROVAL_REASONS as readonly string[]).indexOf(e.reasons[0]);
  const required = entries.map((e, i) => ({ e, i })).sort((x, y) => group(x.e) - group(y.e) || x.i - y.i).map(({ e }) => e);
  return { moved, required };
}

