import { STEP_REASON_KEYS, type StepReasons } from "./schema";

/**
 * A step's reasons (`title`, `rationale`, `evidence`, `risk`, `stopCondition`) as a new object
 * holding only the keys that are present (not `undefined`). Pure. Source: docs/design.md "The task contract and what the agent saw".
 */
export function reasonsOf(step: StepReasons): StepReasons {
  const out: Record<string, unknown> = {};
  for (const k of STEP_REASON_KEYS) if (step[k] !== undefined) out[k] = step[k];
  return out as StepReasons;
}

/**
 * An operator's edit keeps a step's reasons unless the operator changes them: every
 * reason key ABSENT from the submitted step `submitted` is copied from the base step `base`; a
 * key the submission carries (even an empty string) is the operator's change and wins. Returns
 * a new object; `submitted` is untouched. Used by `stampEditedSteps` (lib/server/edits/stamp-edited-steps.ts) for
 * steps that keep their id and tool.
 */
export function keepReasons<T extends Record<string, unknown>>(submitted: T, base: StepReasons): T {
  const out: Record<string, unknown> = { ...submitted };
  for (const k of STEP_REASON_KEYS) {
    if (!Object.prototype.hasOwnProperty.call(submitted, k) && base[k] !== undefined) out[k] = base[k];
  }
  return out as T;
}
