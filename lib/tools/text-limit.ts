import { z } from "zod";

/**
 * The most characters a text argument may hold, read from its zod schema (the one schema that
 * serves validator and form, e.g. `requiredText("Reply", 10000)` → 10000), through optional and
 * nullable wrappers; `undefined` when the schema is not a string or has no maximum. Used for the
 * forms' character counters. Pure.
 */
export function textLimit(schema: z.ZodType | undefined): number | undefined {
  let s: unknown = schema;
  while (s instanceof z.ZodOptional || s instanceof z.ZodNullable || s instanceof z.ZodDefault) s = s.unwrap();
  if (!(s instanceof z.ZodString)) return undefined;
  return typeof s.maxLength === "number" ? s.maxLength : undefined;
}
