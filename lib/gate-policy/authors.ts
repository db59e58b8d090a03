import type { Step } from "../plan/schema";

/**
 * The people who authored `step` (four eyes): its `author` when a person wrote it and
 * every person whose `operator` provenance is on one of its arguments (lib/server/edits/
 * stamp-edited-steps.ts stamps who added or changed what). A rule with `authorMayApprove: false`
 * never counts one of them as an approver of the step. Sorted, without repeats.
 */
export function authorsOf(step: Pick<Step, "author" | "provenance">): string[] {
  const people = new Set<string>();
  if (step.author?.kind === "user") people.add(step.author.userId);
  for (const p of Object.values(step.provenance ?? {})) if (p.kind === "operator") people.add(p.userId);
  return [...people].sort();
}
