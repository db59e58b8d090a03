import type { z } from "zod";
import type { Prisma } from "../../generated/prisma/client";

/**
 * Stored JSON in and out of Prisma `Json` columns, in one place (no casts spread over
 * the services).
 *
 * `toJsonColumn(value)` — a value built from plain data (objects, arrays, strings, finite numbers,
 * booleans, null; no Dates, Maps or class instances) as Prisma's input type. Typed interfaces are
 * not assignable to `InputJsonValue`, which is why this one conversion exists.
 *
 * `readJsonColumn(schema, value, what)` — a stored value checked against the zod schema it was
 * written under and returned AS STORED (never stripped or defaulted, so an audit view shows what
 * was recorded). Throws Error "Stored <what> does not match its schema: …" when the row is not
 * what the code expects (a bug or a hand-edited database, never user input).
 */
export function toJsonColumn<T>(value: T): Prisma.InputJsonValue {
  return value as unknown as Prisma.InputJsonValue;
}

/** See {@link toJsonColumn}: a stored JSON value validated by `schema`, returned as stored. */
export function readJsonColumn<S extends z.ZodType>(schema: S, value: unknown, what: string): z.output<S> {
  const r = schema.safeParse(value);
  if (!r.success) throw new Error(`Stored ${what} does not match its schema: ${r.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ")}`);
  return value as z.output<S>;
}
