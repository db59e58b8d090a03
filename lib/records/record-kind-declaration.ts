import { z } from "zod";
import { CURRENCIES } from "../money/format-money";
import { canonicalJson } from "../plan/canonical-json";
import { assertSafeSchema, normaliseInputSchema, zodFromInputSchema, type JsonSchema } from "../tools/json-schema-tool";
import { DECLARED_KIND_NAME, RECORD_KIND_NAMES } from "./record-kinds";

/*
 * Record kinds declared as data (docs/design.md "Systems of record: the one door"): a
 * desk's admin declares a kind — its name, the JSON Schema of its fields, and the roles Plandesk
 * reasons with — and records of that kind then arrive through the records door like the built-in
 * kinds. This module checks a declaration and says, with typed problems, why one is refused. Pure:
 * the desk's state it needs (its other kinds, the kind's current declaration, whether records of
 * it exist) is handed in by lib/server/records/record-kinds-admin.ts.
 *
 * The JSON Schema is taken exactly as an imported tool's is (lib/tools/json-schema-tool.ts): the
 * root must be `type: "object"`, an object without `additionalProperties` is closed, `default` and
 * `examples` are dropped, a `pattern` runs on RE2, `$ref`s stay inside the schema, and the schema
 * must convert to zod (`z.fromJSONSchema`), which then validates every record of the kind.
 *
 * The roles (each optional; every field a role names is a top-level property of the schema and
 * is `required`):
 * - `owner`: `"<field>"` or `{field, kind?}` — a string field holding the id of the record the
 *   record belongs to: an `account` (the default) or a record of another kind declared on the
 *   same desk that has an owner itself; following owners must end at an account within
 *   MAX_OWNER_HOPS declared kinds (a loop is `circular_owner`).
 * - `balance`: `{available, currency}` — `available` an `integer` field (money in minor units;
 *   each record's value must also lie in 0 … MAX_MONEY_MINOR); `currency` a `string` field
 *   constrained to currencies: either an `enum` (or `const`) of ISO 4217 codes Plandesk handles
 *   (CURRENCIES of lib/money/format-money.ts), or exactly the pattern `^[A-Z]{3}$` (three
 *   upper-case letters) — each record's value must then also be one of CURRENCIES. A free string
 *   is not a currency.
 * - `status`: `{field, closedValues}` — a `string` field with an `enum`; `closedValues` (at least
 *   one, no repeats) are enum values that close the record.
 * - `window`: `{start, end}` — two distinct `string` fields with `format: "date"` (ISO
 *   `YYYY-MM-DD`, inclusive; each record's start may not be after its end).
 * - `title`: `"<field>"` or `{field}` — a `string` field the console shows as the record's name.
 *
 * A kind in use (records of it exist on the desk, tombstones included) cannot lose a role, nor
 * point a role at another field or owner kind (the stored records' indexed role values were read
 * from those fields); a kind another kind's owner names cannot lose its owner role. It may add
 * roles (stored records get their values with their next version), change its status's
 * closed values (the stored records' `closed` is recomputed in the same save), and change other
 * fields. A kind is never renamed: a new name is a new kind.
 */

/** A declared kind's name: 2–40 lower-case letters, digits and `_`, starting with a letter (e.g. `order`, `payout_batch`). */
export const KIND_NAME_PATTERN = DECLARED_KIND_NAME;
/** The roles a declaration may give, in the order problems are reported. */
export const RECORD_ROLE_NAMES = ["owner", "balance", "status", "window", "title"] as const;
/** One of RECORD_ROLE_NAMES. */
export type RecordRoleName = (typeof RECORD_ROLE_NAMES)[number];
/** Names no declared kind may have: the built-in kinds, the other things the console names by kind, and the batch route's path. */
export const RESERVED_KIND_NAMES: ReadonlySet<string> = new Set([...RECORD_KIND_NAMES, "ticket", "task", "run", "record", "records", "batch", "constructor", "prototype"]);
/** Property names the records door reads itself (the envelope and a batch line's `kind`, `id`, `op`): no declared field may have one. */
export const RESERVED_FIELD_NAMES: ReadonlySet<string> = new Set(["kind", "id", "op", "sourceVersion", "sourceUpdatedAt"]);
/** Declared kinds an owner chain may hold, the declaring kind included, before it reaches an account (order_line → order → account holds 2). */
export const MAX_OWNER_HOPS = 4;
/** The longest schema a declaration may carry, in characters of its canonical JSON. */
export const MAX_SCHEMA_CHARS = 32 * 1024;
/** The most kinds one desk may declare. */
export const MAX_KINDS_PER_DESK = 50;
/** The only currency pattern a currency field may use instead of an enum: three upper-case letters. */
export const CURRENCY_PATTERN = "^[A-Z]{3}$";

/** The roles of a declaration, normalised (every role an object; `owner.kind` filled in). Field names are top-level properties of the schema. */
export interface RecordKindRoles {
  owner?: { field: string; kind: string };
  balance?: { available: string; currency: string };
  status?: { field: string; closedValues: string[] };
  window?: { start: string; end: string };
  title?: { field: string };
}

/** The roles as stored (normalised, {@link RecordKindRoles}): what a stored declaration's `roles` column must hold. */
export const storedRolesSchema = z.strictObject({
  owner: z.strictObject({ field: z.string(), kind: z.string() }).optional(),
  balance: z.strictObject({ available: z.string(), currency: z.string() }).optional(),
  status: z.strictObject({ field: z.string(), closedValues: z.array(z.string()) }).optional(),
  window: z.strictObject({ start: z.string(), end: z.string() }).optional(),
  title: z.strictObject({ field: z.string() }).optional(),
});
/** Compile-time: the stored roles' schema is exactly {@link RecordKindRoles}. */
export const storedRolesMatch: [z.output<typeof storedRolesSchema>] extends [RecordKindRoles] ? ([RecordKindRoles] extends [z.output<typeof storedRolesSchema>] ? true : false) : false = true;

/** A checked declaration: its kind, the normalised JSON Schema of its fields and its normalised roles. */
export interface RecordKindDeclaration {
  kind: string;
  schema: JsonSchema;
  roles: RecordKindRoles;
}

/**
 * Why a declaration is refused:
 * - `invalid_kind_name`: not KIND_NAME_PATTERN;
 * - `reserved_kind_name`: a built-in kind's name (`account`, `invoice`, `shipment`, `holiday`) or another of RESERVED_KIND_NAMES;
 * - `invalid_schema`: not an object schema, too long, unsafe (a pattern RE2 cannot run, a `$ref` outside it or in a loop), or one zod cannot convert;
 * - `reserved_field`: a property named like the envelope (RESERVED_FIELD_NAMES);
 * - `unknown_role`: a role that is not one of RECORD_ROLE_NAMES, or a key a role does not have;
 * - `invalid_role`: a role of the wrong shape (a field that is not a name, empty or repeated closed values, a window whose start and end are one field);
 * - `missing_field`: a role names a field the schema does not have;
 * - `wrong_field_type`: the field does not fit its role (owner and title: a string; available: an integer; currency: a string constrained to currencies; status: a string enum holding the closed values; window: dates);
 * - `optional_field`: a role's field is not `required`;
 * - `unknown_owner_kind`: the owner kind is neither `account` nor a kind declared on the desk;
 * - `unowned_owner_kind`: the owner kind has no owner role, so the records would belong to no account;
 * - `circular_owner`: following owners comes back to a kind already passed;
 * - `owner_chain_too_long`: more than MAX_OWNER_HOPS declared kinds before an account;
 * - `role_in_use`: records of the kind exist (or another kind's owner names it) and the declaration would lose a role or move it.
 */
export type DeclarationProblemCode =
  | "invalid_kind_name"
  | "reserved_kind_name"
  | "invalid_schema"
  | "reserved_field"
  | "unknown_role"
  | "invalid_role"
  | "missing_field"
  | "wrong_field_type"
  | "optional_field"
  | "unknown_owner_kind"
  | "unowned_owner_kind"
  | "circular_owner"
  | "owner_chain_too_long"
  | "role_in_use";

/** One problem of a declaration: its code, where (dotted: `kind`, `schema`, `schema.properties.total`, `roles.balance.currency`) and a sentence for people. */
export interface DeclarationProblem {
  code: DeclarationProblemCode;
  path: string;
  message: string;
}

/** What the check needs of the desk: its other kinds' current roles, this kind's current declaration (null: a new kind), and whether records of it exist. */
export interface DeclarationContext {
  /** The desk's other declared kinds (this kind excluded or not: it is ignored) → their current roles. */
  others: ReadonlyMap<string, RecordKindRoles>;
  /** This kind's current declaration, or null when it is new. */
  previous: RecordKindDeclaration | null;
  /** Whether the desk holds records of this kind (tombstones count: a newer put revives them). */
  inUse: boolean;
}

/** The check's answer: the declaration as it will be stored, or every problem found. */
export type DeclarationCheck = { ok: true; declaration: RecordKindDeclaration } | { ok: false; problems: DeclarationProblem[] };

/**
 * Checks the declaration of kind `kind` with fields `schema` and `roles` (both as the admin sent
 * them, unknown shapes included) against the desk `ctx`. Returns the normalised declaration, or
 * every problem found (see DeclarationProblemCode) — never throws. The rules are this module's
 * comment.
 */
export function checkRecordKindDeclaration(kind: string, schema: unknown, roles: unknown, ctx: DeclarationContext): DeclarationCheck {
  const problems: DeclarationProblem[] = [];
  const add = (code: DeclarationProblemCode, path: string, message: string) => problems.push({ code, path, message });

  if (!KIND_NAME_PATTERN.test(kind)) add("invalid_kind_name", "kind", `A kind's name is 2–40 lower-case letters, digits and "_", starting with a letter; not ${JSON.stringify(kind.slice(0, 60))}.`);
  else if (RESERVED_KIND_NAMES.has(kind)) {
    add("reserved_kind_name", "kind", (RECORD_KIND_NAMES as readonly string[]).includes(kind) ? `"${kind}" is a built-in kind; a declaration cannot replace it.` : `"${kind}" is a name Plandesk keeps for itself; choose another.`);
  }

  const normalised = schemaOf(schema, add);
  const parsedRoles = rolesOf(roles, add);
  if (normalised && parsedRoles) checkRoleFields(normalised, parsedRoles, add);
  if (parsedRoles) checkOwnerChain(kind, parsedRoles, ctx.others, add);
  if (parsedRoles) checkInUse(kind, parsedRoles, ctx, add);

  if (problems.length > 0 || !normalised || !parsedRoles) return { ok: false, problems };
  return { ok: true, declaration: { kind, schema: normalised, roles: parsedRoles } };
}

type Add = (code: DeclarationProblemCode, path: string, message: string) => void;

/** The schema as stored (normalised), or null after adding its problems. */
function schemaOf(schema: unknown, add: Add): JsonSchema | null {
  let normalised: JsonSchema;
  try {
    normalised = normaliseInputSchema(schema);
  } catch (e) {
    add("invalid_schema", "schema", messageOf(e));
    return null;
  }
  if (canonicalJson(normalised).length > MAX_SCHEMA_CHARS) {
    add("invalid_schema", "schema", `The schema is longer than ${MAX_SCHEMA_CHARS} characters of JSON.`);
    return null;
  }
  try {
    assertSafeSchema(normalised);
    zodFromInputSchema(normalised);
  } catch (e) {
    add("invalid_schema", "schema", `The schema cannot be used: ${messageOf(e)}`);
    return null;
  }
  const props = propertiesOf(normalised);
  let reserved = false;
  for (const name of Object.keys(props)) {
    if (RESERVED_FIELD_NAMES.has(name)) {
      add("reserved_field", `schema.properties.${name}`, `"${name}" is read by the records door itself (${[...RESERVED_FIELD_NAMES].join(", ")}); name the field otherwise.`);
      reserved = true;
    }
  }
  return reserved ? null : normalised;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
const isFieldName = (v: unknown): v is string => typeof v === "string" && v.length > 0 && v.length <= 200;

/** The keys each role's object form may have. */
const ROLE_KEYS: Record<RecordRoleName, readonly string[]> = {
  owner: ["field", "kind"],
  balance: ["available", "currency"],
  status: ["field", "closedValues"],
  window: ["start", "end"],
  title: ["field"],
};

/** The roles normalised, or null after adding their problems (shape only: fields are checked against the schema later). */
function rolesOf(raw: unknown, add: Add): RecordKindRoles | null {
  if (raw === undefined || raw === null) return {};
  if (!isObject(raw)) {
    add("invalid_role", "roles", "roles is an object: {owner?, balance?, status?, window?, title?}.");
    return null;
  }
  const before = { n: 0 };
  const addCounting: Add = (c, p, m) => {
    before.n++;
    add(c, p, m);
  };
  const out: RecordKindRoles = {};
  for (const [name, value] of Object.entries(raw)) {
    if (value === undefined || value === null) continue; // no such role
    if (!(RECORD_ROLE_NAMES as readonly string[]).includes(name)) {
      addCounting("unknown_role", `roles.${name.slice(0, 64)}`, `"${name.slice(0, 64)}" is not a role; the roles are ${RECORD_ROLE_NAMES.join(", ")}.`);
      continue;
    }
    const role = name as RecordRoleName;
    const path = `roles.${role}`;
    // the shorthand: a field name for owner (an account) and title
    const v = (role === "owner" || role === "title") && typeof value === "string" ? { field: value } : value;
    if (!isObject(v)) {
      addCounting("invalid_role", path, `${role} is ${role === "owner" || role === "title" ? "a field name or " : ""}{${ROLE_KEYS[role].join(", ")}}.`);
      continue;
    }
    const extra = Object.keys(v).filter((k) => !ROLE_KEYS[role].includes(k));
    for (const k of extra) addCounting("unknown_role", `${path}.${k.slice(0, 64)}`, `${role} has no "${k.slice(0, 64)}"; it has ${ROLE_KEYS[role].join(", ")}.`);
    if (extra.length > 0) continue;
    const fieldKeys = role === "status" ? ["field"] : role === "owner" ? ["field"] : ROLE_KEYS[role];
    const bad = fieldKeys.filter((k) => !isFieldName(v[k]));
    for (const k of bad) addCounting("invalid_role", `${path}.${k}`, `${role}.${k} names a field of the schema (a property name).`);
    if (bad.length > 0) continue;
    switch (role) {
      case "owner": {
        if (v.kind !== undefined && !(typeof v.kind === "string" && v.kind.length > 0 && v.kind.length <= 64)) {
          addCounting("invalid_role", `${path}.kind`, "owner.kind names the kind the owner field refers to: account (the default) or a kind declared on this desk.");
          break;
        }
        out.owner = { field: v.field as string, kind: (v.kind as string | undefined) ?? "account" };
        break;
      }
      case "balance":
        if (v.available === v.currency) addCounting("invalid_role", path, "balance.available and balance.currency are two different fields.");
        else out.balance = { available: v.available as string, currency: v.currency as string };
        break;
      case "status": {
        const cv = v.closedValues;
        if (!Array.isArray(cv) || cv.length === 0 || cv.length > 100 || !cv.every((x) => typeof x === "string" && x.length > 0 && x.length <= 200)) {
          addCounting("invalid_role", `${path}.closedValues`, "status.closedValues lists the status values that close a record: 1–100 non-empty strings.");
        } else if (new Set(cv).size !== cv.length) {
          addCounting("invalid_role", `${path}.closedValues`, "status.closedValues names a value twice.");
        } else out.status = { field: v.field as string, closedValues: [...(cv as string[])] };
        break;
      }
      case "window":
        if (v.start === v.end) addCounting("invalid_role", path, "window.start and window.end are two different date fields.");
        else out.window = { start: v.start as string, end: v.end as string };
        break;
      case "title":
        out.title = { field: v.field as string };
        break;
    }
  }
  return before.n > 0 ? null : out;
}

/** The schema's top-level properties (an empty object when it has none). */
function propertiesOf(schema: JsonSchema): Record<string, unknown> {
  return isObject(schema.properties) ? schema.properties : {};
}

/** A property's schema node with local `$ref`s followed (at most 32 hops), or null. */
function fieldNode(schema: JsonSchema, field: string): JsonSchema | null {
  const props = propertiesOf(schema);
  if (!Object.prototype.hasOwnProperty.call(props, field)) return null;
  let node: unknown = props[field];
  for (let hops = 0; hops < 32 && isObject(node) && typeof node.$ref === "string"; hops++) {
    const ref = node.$ref as string;
    node = ref
      .slice(1)
      .split("/")
      .filter(Boolean)
      .map((t) => t.replace(/~1/g, "/").replace(/~0/g, "~"))
      .reduce<unknown>((at, k) => (isObject(at) && Object.prototype.hasOwnProperty.call(at, k) ? at[k] : undefined), schema);
  }
  return isObject(node) ? node : null;
}

/** Every role's fields: present, required, and of the role's type. */
function checkRoleFields(schema: JsonSchema, roles: RecordKindRoles, add: Add): void {
  const required = new Set(Array.isArray(schema.required) ? (schema.required as unknown[]).filter((r): r is string => typeof r === "string") : []);
  /** The field's node when it exists and is required (else the problem is added and null returned). */
  const field = (name: string, path: string, role: string): JsonSchema | null => {
    const node = fieldNode(schema, name);
    if (!Object.prototype.hasOwnProperty.call(propertiesOf(schema), name)) {
      add("missing_field", path, `${role} names the field "${name}", which the schema does not have.`);
      return null;
    }
    if (!node) {
      add("wrong_field_type", path, `The field "${name}" has no schema of its own ${role} can read.`);
      return null;
    }
    if (!required.has(name)) add("optional_field", path, `The field "${name}" of ${role} must be required: every record needs it.`);
    return node;
  };
  const isString = (n: JsonSchema) => n.type === "string";

  if (roles.owner) {
    const n = field(roles.owner.field, "roles.owner.field", "owner");
    if (n && !isString(n)) add("wrong_field_type", "roles.owner.field", `The owner field "${roles.owner.field}" holds a record id: it must be {"type": "string"}.`);
  }
  if (roles.title) {
    const n = field(roles.title.field, "roles.title.field", "title");
    if (n && !isString(n)) add("wrong_field_type", "roles.title.field", `The title field "${roles.title.field}" must be {"type": "string"}.`);
  }
  if (roles.balance) {
    const a = field(roles.balance.available, "roles.balance.available", "balance.available");
    if (a && a.type !== "integer") add("wrong_field_type", "roles.balance.available", `The available amount "${roles.balance.available}" is money in minor units: it must be {"type": "integer"}, not ${JSON.stringify(a.type ?? null)}.`);
    const c = field(roles.balance.currency, "roles.balance.currency", "balance.currency");
    if (c) {
      const problem = currencyProblem(c);
      if (problem) add("wrong_field_type", "roles.balance.currency", `The currency field "${roles.balance.currency}" is not a currency: ${problem}`);
    }
  }
  if (roles.status) {
    const n = field(roles.status.field, "roles.status.field", "status");
    if (n) {
      const values = Array.isArray(n.enum) ? n.enum : null;
      if (!isString(n) || !values || values.length === 0 || !values.every((v) => typeof v === "string")) {
        add("wrong_field_type", "roles.status.field", `The status field "${roles.status.field}" must be a string with an enum of its values, so its closed values can be checked.`);
      } else {
        const unknown = roles.status.closedValues.filter((v) => !values.includes(v));
        if (unknown.length) add("wrong_field_type", "roles.status.closedValues", `${unknown.map((v) => JSON.stringify(v)).join(", ")} ${unknown.length === 1 ? "is not a value" : "are not values"} of the status field's enum (${values.map((v) => JSON.stringify(v)).join(", ")}).`);
      }
    }
  }
  if (roles.window) {
    for (const end of ["start", "end"] as const) {
      const name = roles.window[end];
      const n = field(name, `roles.window.${end}`, `window.${end}`);
      if (n && !(isString(n) && n.format === "date")) add("wrong_field_type", `roles.window.${end}`, `The window's ${end} "${name}" must be a date: {"type": "string", "format": "date"}.`);
    }
  }
}

/** Why a currency field's node does not constrain it to currencies, or null when it does (see the module comment). */
function currencyProblem(n: JsonSchema): string | null {
  if (n.type !== "string") return `it must be {"type": "string"}, not ${JSON.stringify(n.type ?? null)}.`;
  const known = CURRENCIES as readonly unknown[];
  const values = Array.isArray(n.enum) ? n.enum : n.const !== undefined ? [n.const] : null;
  if (values) {
    const foreign = values.filter((v) => !known.includes(v));
    if (values.length === 0) return "its enum is empty.";
    if (foreign.length) return `${foreign.map((v) => JSON.stringify(v)).join(", ")} ${foreign.length === 1 ? "is not a currency" : "are not currencies"} Plandesk handles (${CURRENCIES.join(", ")}).`;
    return null;
  }
  if (n.pattern === CURRENCY_PATTERN) return null;
  return `constrain it with an enum of ISO 4217 codes (${CURRENCIES.join(", ")}) or the pattern ${CURRENCY_PATTERN}.`;
}

/** What following owners from a kind found: nothing wrong, or the problem and the kinds passed. */
type ChainProblem = { code: "circular_owner" | "unknown_owner_kind" | "unowned_owner_kind" | "owner_chain_too_long"; trail: string[] } | null;

/** Follows owners from `start` (roles by `rolesOfKind`) to an account: a loop, an unknown or unowned owner kind, or more than MAX_OWNER_HOPS declared kinds is a problem. */
function followOwners(start: string, rolesOfKind: (k: string) => RecordKindRoles | undefined): ChainProblem {
  const passed = [start];
  let current = rolesOfKind(start)?.owner?.kind ?? "account";
  for (let hops = 1; ; hops++) {
    if (current === "account") return null;
    if (passed.includes(current)) return { code: "circular_owner", trail: [...passed, current] };
    const next = RESERVED_KIND_NAMES.has(current) ? undefined : rolesOfKind(current);
    if (!next) return { code: "unknown_owner_kind", trail: [...passed, current] };
    if (!next.owner) return { code: "unowned_owner_kind", trail: [...passed, current] };
    if (hops >= MAX_OWNER_HOPS) return { code: "owner_chain_too_long", trail: [...passed, current] };
    passed.push(current);
    current = next.owner.kind;
  }
}

/**
 * Following owners from `kind` (with `roles` as its new roles) ends at an account, without a
 * loop, within MAX_OWNER_HOPS declared kinds; and so do the owner chains of the desk's other
 * kinds that pass through `kind` (a new owner kind may make theirs too long).
 */
function checkOwnerChain(kind: string, roles: RecordKindRoles, others: ReadonlyMap<string, RecordKindRoles>, add: Add): void {
  const rolesOfKind = (k: string): RecordKindRoles | undefined => (k === kind ? roles : others.get(k));
  const own = roles.owner && roles.owner.kind !== "account" ? followOwners(kind, rolesOfKind) : null;
  if (own) {
    const trail = own.trail.join(" → ");
    const last = own.trail[own.trail.length - 1];
    const messages: Record<NonNullable<ChainProblem>["code"], string> = {
      circular_owner: `The owners go round in a loop: ${trail}. An owner chain must end at an account.`,
      unknown_owner_kind: `The owner kind "${last.slice(0, 64)}" (${trail}) is neither account nor a kind declared on this desk.`,
      unowned_owner_kind: `${last} has no owner role, so ${kind}'s records would belong to no account (${trail}).`,
      owner_chain_too_long: `The owners pass more than ${MAX_OWNER_HOPS} declared kinds before an account (${trail} → …).`,
    };
    add(own.code, "roles.owner.kind", messages[own.code]);
    return;
  }
  for (const other of [...others.keys()].filter((k) => k !== kind).sort()) {
    const theirs = followOwners(other, rolesOfKind);
    if (theirs?.code === "owner_chain_too_long" && theirs.trail.includes(kind)) {
      add("owner_chain_too_long", "roles.owner.kind", `${other}'s owners would pass more than ${MAX_OWNER_HOPS} declared kinds before an account (${theirs.trail.join(" → ")} → …).`);
      return;
    }
  }
}

/** A role's fields as one comparable string (null: no such role). */
function roleSignature(roles: RecordKindRoles, role: RecordRoleName): string | null {
  const r = roles[role];
  if (!r) return null;
  if (role === "status") return (r as NonNullable<RecordKindRoles["status"]>).field;
  return canonicalJson(r);
}

/** A kind in use keeps its roles where they were; a kind another kind's owner names keeps its owner role. */
function checkInUse(kind: string, roles: RecordKindRoles, ctx: DeclarationContext, add: Add): void {
  const prev = ctx.previous;
  if (ctx.inUse && prev) {
    for (const role of RECORD_ROLE_NAMES) {
      const before = roleSignature(prev.roles, role);
      if (before === null) continue;
      const after = roleSignature(roles, role);
      if (after === null) add("role_in_use", `roles.${role}`, `Records of ${kind} exist on this desk: the ${role} role cannot be removed.`);
      else if (after !== before) add("role_in_use", `roles.${role}`, `Records of ${kind} exist on this desk: the ${role} role cannot move to other fields${role === "owner" ? " or another owner kind" : ""} (their stored values were read from ${describeRole(prev.roles, role)}).`);
    }
  }
  if (!roles.owner) {
    const owned = [...ctx.others.entries()].filter(([k, r]) => k !== kind && r.owner?.kind === kind).map(([k]) => k).sort();
    if (owned.length) add("role_in_use", "roles.owner", `${owned.join(", ")} ${owned.length === 1 ? "names" : "name"} ${kind} as owner: ${kind} cannot lose its owner role, or their records would belong to no account.`);
  }
}

/** The fields a role reads, in words (e.g. `"total" and "currency"`). */
function describeRole(roles: RecordKindRoles, role: RecordRoleName): string {
  const r = roles[role];
  if (!r) return "nothing";
  switch (role) {
    case "owner": {
      const o = r as NonNullable<RecordKindRoles["owner"]>;
      return `"${o.field}" (${o.kind})`;
    }
    case "balance": {
      const b = r as NonNullable<RecordKindRoles["balance"]>;
      return `"${b.available}" and "${b.currency}"`;
    }
    case "window": {
      const w = r as NonNullable<RecordKindRoles["window"]>;
      return `"${w.start}" and "${w.end}"`;
    }
    default:
      return `"${(r as { field: string }).field}"`;
  }
}

function messageOf(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}
