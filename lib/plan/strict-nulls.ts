import type { z } from "zod";

/**
 * Strict-mode nulls: models in OpenAI's strict function-calling mode must send every field, and
 * send `null` for an optional one they do not use. At Plandesk's API a `null` for an OPTIONAL
 * field means the field is absent. Pure; never mutates its input.
 */

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/** `value` without its keys whose value is `null` (a non-object is returned as it is). */
export function withoutNullKeys(value: unknown): unknown {
  if (!isRecord(value)) return value;
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== null));
}

/**
 * `args` without the top-level keys that are `null` where the tool's argument schema does not
 * accept `null` for that key but accepts it absent (an optional, non-nullable field). A key the
 * schema does not know, or a nullable one, keeps its `null` (the validator judges it).
 */
export function withoutStrictNulls(args: unknown, schema: z.ZodObject | undefined): unknown {
  if (!isRecord(args) || !schema) return args;
  const shape = schema.shape as Record<string, z.ZodType>;
  return Object.fromEntries(
    Object.entries(args).filter(([k, v]) => {
      if (v !== null) return true;
      const field = Object.prototype.hasOwnProperty.call(shape, k) ? shape[k] : undefined; // "__proto__" is no field
      if (!field) return true;
      return field.safeParse(null).success || !field.safeParse(undefined).success;
    }),
  );
}

/**
 * A submitted step with strict-mode nulls dropped: the step's own optional fields (`title`,
 * `rationale`, `evidence`, `risk`, `stopCondition`, `dependsOn`, `provenance`, `id`…) when null,
 * and its arguments' optional fields when null (per the tool's schema from `schemaOf`).
 */
export function stepWithoutStrictNulls(step: unknown, schemaOf: (tool: string) => z.ZodObject | undefined): unknown {
  const s = withoutNullKeys(step);
  if (!isRecord(s)) return s;
  const tool = typeof s.tool === "string" ? s.tool : "";
  return "args" in s ? { ...s, args: withoutStrictNulls(s.args, schemaOf(tool)) } : s;
}
