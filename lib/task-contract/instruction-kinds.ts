/*
 * The kinds of instruction-like text the scan flags (./instruction-scan.ts, which re-exports them)
 * and how each reads for people: plain data, so the run page's task panel loads no zod
 * (docs/design.md "Page weight").
 */

/** What kind of instruction-like text a flag found. */
export const INSTRUCTION_KINDS = ["addresses_assistant", "override_instructions", "claims_approval", "claims_role"] as const;
export type InstructionKind = (typeof INSTRUCTION_KINDS)[number];

/** How a kind reads for people. */
export const INSTRUCTION_KIND_LABELS: Record<InstructionKind, string> = {
  addresses_assistant: "addresses the assistant",
  override_instructions: "tells the assistant to drop its instructions",
  claims_approval: "claims an approval",
  claims_role: "claims a role or system authority",
};
