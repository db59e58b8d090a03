import { z } from "zod";
import { CURRENCIES, MAX_MONEY_MINOR } from "../money/format-money";
import { zodFromInputSchema } from "../tools/json-schema-tool";
import type { RecordKindDeclaration } from "./record-kind-declaration";
import { recordIdSchema, zodRecordError, type RecordError } from "./record-kinds";

/*
 * Records of a declared kind (lib/records/record-kind-declaration.ts) as the records door takes
 * them: their fields validated against the desk's current declaration of the kind, and the
 * values of its roles read out for the indexed columns of `desk_record`. Pure.
 */

/** A desk's current declaration of a kind, with its version (what a record is validated against and stored with). */
export interface StoredDeclaration extends RecordKindDeclaration {
  version: number;
}

/**
 * The values of a record's roles, as `desk_record` indexes them (null where the declaration has
 * no such role): the owner's id, the available amount in minor units and its currency, the
 * status and whether it is closed, the window's ISO dates (inclusive), the title.
 */
export interface RoleValues {
  ownerId: string | null;
  availableMinor: number | null;
  currency: string | null;
  status: string | null;
  closed: boolean | null;
  windowStart: string | null;
  windowEnd: string | null;
  title: string | null;
}

/** A declared record's fields as parsed, with its role values; or the typed refusal (`invalid_record`, with the field's path). */
export type ParsedDeclaredFields = { ok: true; fields: Record<string, unknown>; roles: RoleValues } | { ok: false; error: RecordError };

const isoDate = z.iso.date();

/**
 * Validates `fields` (a put's body without the envelope) against `declaration`: its JSON Schema
 * first (zod, from lib/tools/json-schema-tool.ts; an unknown field of a closed object is refused),
 * then what Plandesk adds for the roles: the owner a record id, the available amount an integer in
 * 0 … MAX_MONEY_MINOR, the currency one of CURRENCIES, the window's dates real and start ≤ end.
 * Never throws; a problem is `invalid_record` with the field's dotted path.
 */
export function parseDeclaredFields(declaration: StoredDeclaration, fields: Record<string, unknown>): ParsedDeclaredFields {
  let schema: z.ZodType;
  try {
    schema = zodFromInputSchema(declaration.schema);
  } catch {
    // a stored declaration was checked when it was saved; one that no longer converts takes no records
    return fail("", `The declaration of ${declaration.kind} (version ${declaration.version}) cannot be used; an admin must save it again.`);
  }
  const parsed = schema.safeParse(fields);
  if (!parsed.success) return { ok: false, error: zodRecordError(parsed.error) };
  const f = parsed.data as Record<string, unknown>;
  const r = declaration.roles;
  const roles: RoleValues = { ownerId: null, availableMinor: null, currency: null, status: null, closed: null, windowStart: null, windowEnd: null, title: null };
  if (r.owner) {
    const id = recordIdSchema.safeParse(f[r.owner.field]);
    if (!id.success) return fail(r.owner.field, `${r.owner.field}: the owner is a record id (${id.error.issues[0]?.message ?? "not one"}).`);
    roles.ownerId = id.data;
  }
  if (r.balance) {
    const minor = f[r.balance.available];
    if (typeof minor !== "number" || !Number.isSafeInteger(minor) || minor < 0 || minor > MAX_MONEY_MINOR) {
      return fail(r.balance.available, `${r.balance.available}: an amount in minor units from 0 to ${MAX_MONEY_MINOR}.`);
    }
    const currency = f[r.balance.currency];
    if (typeof currency !== "string" || !(CURRENCIES as readonly string[]).includes(currency)) {
      return fail(r.balance.currency, `${r.balance.currency}: ${JSON.stringify(String(currency).slice(0, 16))} is not a currency Plandesk handles (${CURRENCIES.join(", ")}).`);
    }
    roles.availableMinor = minor;
    roles.currency = currency;
  }
  if (r.status) {
    const status = f[r.status.field];
    if (typeof status !== "string") return fail(r.status.field, `${r.status.field}: the status is text.`);
    roles.status = status;
    roles.closed = r.status.closedValues.includes(status);
  }
  if (r.window) {
    const start = f[r.window.start];
    const end = f[r.window.end];
    if (!isoDate.safeParse(start).success) return fail(r.window.start, `${r.window.start}: an ISO date YYYY-MM-DD.`);
    if (!isoDate.safeParse(end).success) return fail(r.window.end, `${r.window.end}: an ISO date YYYY-MM-DD.`);
    if ((start as string) > (end as string)) return fail(r.window.end, `${r.window.start} may not be after ${r.window.end}.`);
    roles.windowStart = start as string;
    roles.windowEnd = end as string;
  }
  if (r.title) {
    const title = f[r.title.field];
    if (typeof title !== "string") return fail(r.title.field, `${r.title.field}: the title is text.`);
    roles.title = title;
  }
  return { ok: true, fields: f, roles };
}

function fail(path: string, message: string): ParsedDeclaredFields {
  return { ok: false, error: { code: "invalid_record", message, ...(path ? { path } : {}) } };
}
