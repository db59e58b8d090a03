/**
 * The reason fields of a step, in display order (a step's title, rationale, evidence, risk and
 * stop condition; docs/design.md §3). Apart from the plan schema (./schema.ts, which re-exports
 * them) so a page that shows reasons loads no zod (docs/design.md "Page weight").
 */
export const STEP_REASON_KEYS = ["title", "rationale", "evidence", "risk", "stopCondition"] as const;
/** One of {@link STEP_REASON_KEYS}. */
export type StepReasonKey = (typeof STEP_REASON_KEYS)[number];
