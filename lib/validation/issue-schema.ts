import { z } from "zod";
import { VALIDATION_STAGES } from "./stages";
import type { ValidationIssue } from "./types";

/**
 * One problem found in a plan. Errors block; warnings are shown on the card and in the diff,
 * and those with `needsAcknowledgement` must be acknowledged by the approver of that step.
 * `path` is a dotted path from the plan root, e.g. "steps.3.args.amount.minor" (use
 * {@link argPathOf} for the part inside `args`). Source: docs/design.md §1, docs/api.md.
 */
export const validationIssueSchema = z.object({
  stage: z.enum(VALIDATION_STAGES),
  /** Stable machine code, e.g. "amount_exceeds_balance"; see ISSUE_CODES in ./codes.ts. */
  code: z.string(),
  severity: z.enum(["error", "warning"]),
  stepId: z.string().optional(),
  path: z.string().optional(),
  /** Written for people; names records and amounts. */
  message: z.string(),
  needsAcknowledgement: z.boolean().optional(),
  details: z.record(z.string(), z.unknown()).optional(),
});

// The plain ValidationIssue of ./types.ts is exactly what the schema accepts.
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const sameIssue: Same<z.output<typeof validationIssueSchema>, ValidationIssue> = true;
void sameIssue;
