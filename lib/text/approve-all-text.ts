/**
 * The approve-all button's words, saying exactly what it approves: "Approve plan (3 steps)" when
 * nothing is approved yet, "Approve 2 remaining steps (2, 4)" otherwise, "Approve step 3" for one,
 * "Approve step 3 again" for the blocked step of a run that needs a new decision (`again`), and
 * "Nothing left to approve" when every step is decided.
 */
export function approveAllText(pending: readonly { position: number }[], total: number, again = false): string {
  if (pending.length === 0) return "Nothing left to approve";
  if (pending.length === 1) return `Approve step ${pending[0].position}${again ? " again" : ""}`;
  if (pending.length === total) return `Approve plan (${total} steps)`;
  return `Approve ${pending.length} remaining steps (${pending.map((s) => s.position).join(", ")})`;
}
