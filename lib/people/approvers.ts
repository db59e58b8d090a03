import { checkGrant, type Grant } from "./grants";
import { formatMoney, type Money } from "../money/format-money";

/**
 * Routing by authority: who can decide each step still waiting for an approval,
 * computed from grants — the same `checkGrant` the approval service enforces. Pure; no I/O.
 */

/** A step of the current plan version that still needs a person's approval. `position` is 1-based. */
export interface WaitingStep {
  stepId: string;
  position: number;
  tool: string;
  /** The money the step moves (minor units), or null. */
  amount: Money | null;
  /** Four eyes: approvals the step still needs (default 1) and who may not give them (people who already approved it, or its authors when the rule excludes them). */
  missing?: number;
  excluded?: readonly string[];
}

/** A person who might approve: an operator of the run's desk or a supervisor, with their grants. */
export interface Candidate {
  id: string;
  name: string;
  role: string;
  grants: Grant[];
}

/** Who can approve one waiting step, and the sentence saying so. */
export interface StepDeciders {
  stepId: string;
  position: number;
  tool: string;
  amount: Money | null;
  /** People whose approve grant covers the step (ids and names), in the candidates' order. */
  people: { id: string; name: string; role: string }[];
  /** True when `viewerId` is not among `people` (the step is beyond the viewer's authority). */
  beyondViewer: boolean;
  /** E.g. "Sam Senior or Sofia Supervisor can approve step 2 (issue_refund $1,060.00)". */
  sentence: string;
}

/** "A", "A or B", "A, B or C". */
export function orList(names: readonly string[]): string {
  if (names.length <= 1) return names[0] ?? "";
  return `${names.slice(0, -1).join(", ")} or ${names[names.length - 1]}`;
}

/** "step 2 (issue_refund $1,060.00)" / "step 1 (send_reply)". */
export function stepPhrase(s: Pick<WaitingStep, "position" | "tool" | "amount">): string {
  return `step ${s.position} (${s.tool}${s.amount ? ` ${formatMoney(s.amount)}` : ""})`;
}

/**
 * For each waiting step, the candidates whose grants allow approving it (an amount exactly at a
 * ceiling is allowed; one minor unit above is not; another currency is over the limit — see
 * `checkGrant`) and a sentence naming them. `viewerId` marks steps beyond the viewer. A step
 * nobody can approve says so (a supervisor or an admin's grant is needed).
 */
export function decidersFor(steps: readonly WaitingStep[], candidates: readonly Candidate[], viewerId?: string): StepDeciders[] {
  return steps.map((s) => {
    const people = candidates
      .filter((c) => !(s.excluded ?? []).includes(c.id))
      .filter((c) => checkGrant(c.grants, "approve", s.tool, s.amount ?? undefined) === null)
      .map((c) => ({ id: c.id, name: c.name, role: c.role }));
    const names = people.map((p) => (p.id === viewerId ? `You (${p.name})` : p.name));
    const more = (s.missing ?? 1) > 1 ? ` (${s.missing} approvals by different people)` : (s.excluded ?? []).length ? " (one more approval, by someone else)" : "";
    const sentence = people.length
      ? `${orList(names)} can approve ${stepPhrase(s)}${more}`
      : `Nobody on this desk can approve ${stepPhrase(s)}: it needs a grant an administrator gives`;
    return { stepId: s.stepId, position: s.position, tool: s.tool, amount: s.amount, people, beyondViewer: !people.some((p) => p.id === viewerId), sentence };
  });
}
