import { resolveLocalRef, type JsonSchema } from "./meta-catalog";

/*
 * Tools bound to declared record kinds (docs/design.md "Systems of record: the one door", issue
 * "Any desk's records and tools"): an imported tool's JSON Schema says, per top-level argument,
 * which declared kind it references and which bound applies, so the validator gives it the checks
 * `issue_refund` gets (lib/tools/json-schema-tool.ts `toolFromSpec` reads them). Pure, client-safe.
 *
 * The keywords, each on a top-level property of the input schema:
 * - `x-plandesk-record: "<kind>"` — the argument holds the id of a record of that kind declared on
 *   the desk (a `string`, `required`); at most one argument per kind;
 * - `x-plandesk-max: "<kind>.available"` (or `"<kind>.<the balance's available field>"`) — the
 *   argument is money (`{minor: integer, currency: string}`, both required) bounded by the
 *   record's available amount less the money other approvals hold on it; the kind must have a
 *   balance role and a record argument; at most one per tool (it is the tool's money);
 * - `x-plandesk-window: "<kind>.window"` — the argument is a date (`string`, `format: "date"`)
 *   or a window (`{from, to}`, both such dates) that must lie inside the record's window role;
 * - `x-plandesk-effect: {lower: "<kind>.available"}` — on the money argument: the step lowers the
 *   record's available amount by it (the effects preview shows before → after).
 *
 * The admin may add the same keywords at import (`bindings: {<tool>: {<arg>: {record?, max?,
 * window?, effect?}}}`) when the server's schema lacks them ({@link mergeAdminBindings}); they are
 * written into the stored schema, so the stored tool carries its bindings like any other.
 */

/** The binding keywords a property may carry. */
export const BINDING_KEYWORDS = ["x-plandesk-record", "x-plandesk-max", "x-plandesk-window", "x-plandesk-effect"] as const;
/**
 * The tool-level keywords, on the input schema's root (not on a property): how the tool's write can
 * be made all or nothing (see {@link readToolStaging}).
 */
export const TOOL_KEYWORDS = ["x-plandesk-stage", "x-plandesk-compensate"] as const;
/** Every keyword starting with this prefix is a binding: an unknown one is refused, never ignored. */
export const BINDING_PREFIX = "x-plandesk-";

/**
 * Why a tool's bindings are refused at import:
 * - `unknown_binding`: an `x-plandesk-…` keyword that is not one of BINDING_KEYWORDS, or an admin binding key that is not record/max/window/effect;
 * - `misplaced_binding`: a keyword anywhere but on a top-level property of the input schema;
 * - `invalid_binding`: a value of the wrong shape (`"<kind>"`, `"<kind>.<role>"`, `{lower: "<kind>.available"}`);
 * - `unknown_argument`: an admin binding names an argument the tool does not have, or a tool the import does not list;
 * - `unknown_kind`: the kind is not declared on the desk;
 * - `unknown_role`: the kind has no such role (a max or effect on a kind without a balance, or naming another field; a window on a kind without a window);
 * - `not_money`: a max or effect on an argument that is not `{minor: integer, currency: string}`;
 * - `not_record_id`: a record binding on an argument that is not a string;
 * - `not_date`: a window binding on an argument that is neither a date nor a `{from, to}` window of dates;
 * - `optional_record_argument`: a record argument that is not `required`;
 * - `missing_record_argument`: a max, window or effect on a kind no argument of the tool references;
 * - `contradictory_binding`: two bindings that cannot both hold (a record argument that is also money or a date, two kinds on one argument, two money arguments, two arguments of one kind, an effect on another kind than the max, an admin binding unlike the schema's);
 * - `desk_required`: bindings without a desk to check their kinds against;
 * - `unknown_commit_tool`: `x-plandesk-stage` names a commit tool the same import does not list;
 * - `not_a_commit_tool`: the named commit tool breaks the pair's contract (it is read-only, declares
 *   staging or compensation itself, or does not take exactly `handles`: a required array of strings);
 * - `unknown_compensating_tool`: `x-plandesk-compensate` names a tool the same import does not list.
 * Staging and compensation that cannot both hold are `contradictory_binding` (a read-only tool that
 * stages or is compensated, a tool naming itself, a compensating tool that stages, a tool that both
 * stages and commits).
 */
export type BindingProblemCode =
  | "unknown_binding"
  | "misplaced_binding"
  | "invalid_binding"
  | "unknown_argument"
  | "unknown_kind"
  | "unknown_role"
  | "not_money"
  | "not_record_id"
  | "not_date"
  | "optional_record_argument"
  | "missing_record_argument"
  | "contradictory_binding"
  | "desk_required"
  | "unknown_commit_tool"
  | "not_a_commit_tool"
  | "unknown_compensating_tool";

/** One problem of a tool's bindings: code, where (dotted, e.g. `inputSchema.properties.amount.x-plandesk-max` or `bindings.amount.max`) and a sentence for people. */
export interface BindingProblem {
  code: BindingProblemCode;
  path: string;
  message: string;
}

/** A tool's bindings, resolved: which argument references which kind, and the bounds on its money and dates. */
export interface ToolBindings {
  /** Record arguments: argument name → the declared kind it references. */
  records: { arg: string; kind: string }[];
  /** The money argument bounded by a record's available amount (`recordArg` references `kind`). */
  max: { arg: string; kind: string; recordArg: string } | null;
  /** Date (or `{from, to}` window) arguments bounded by a record's window. */
  windows: { arg: string; kind: string; recordArg: string; shape: "date" | "window" }[];
  /** The effect on the record for the preview: the money argument lowers its available amount. */
  effect: { arg: string; kind: string; recordArg: string } | null;
}

/** No bindings at all. */
export const NO_BINDINGS: ToolBindings = { records: [], max: null, windows: [], effect: null };

/** Whether `b` binds anything. */
export function hasBindings(b: ToolBindings): boolean {
  return b.records.length > 0 || b.max !== null || b.windows.length > 0 || b.effect !== null;
}

const isObject = (v: unknown): v is JsonSchema => typeof v === "object" && v !== null && !Array.isArray(v);
const KIND = /^[a-z][a-z0-9_]{1,39}$/;

/** `"<kind>.<rest>"` split, or null. */
function kindPath(v: unknown): { kind: string; role: string } | null {
  if (typeof v !== "string") return null;
  const at = v.indexOf(".");
  if (at <= 0) return null;
  const kind = v.slice(0, at);
  const role = v.slice(at + 1);
  return KIND.test(kind) && role.length > 0 && role.length <= 200 ? { kind, role } : null;
}

/** The node a local `$ref` points to, or the node itself (lib/tools/meta-catalog.ts `resolveLocalRef`). */
const resolve = resolveLocalRef;

const requiredOf = (s: JsonSchema): Set<string> => new Set(Array.isArray(s.required) ? (s.required.filter((r) => typeof r === "string") as string[]) : []);

/** Whether `node` is money as Plandesk moves it: an object with a required integer `minor` and a required string `currency`. */
function isMoneyNode(root: JsonSchema, node: unknown): boolean {
  const s = resolve(root, node);
  if (!s || s.type !== "object" || !isObject(s.properties)) return false;
  const props = s.properties as JsonSchema;
  const minor = resolve(root, props.minor);
  const currency = resolve(root, props.currency);
  const req = requiredOf(s);
  return !!minor && minor.type === "integer" && !!currency && currency.type === "string" && req.has("minor") && req.has("currency");
}

const isDateNode = (root: JsonSchema, node: unknown) => {
  const s = resolve(root, node);
  return !!s && s.type === "string" && s.format === "date";
};

/** "date" for an ISO date argument, "window" for `{from, to}` of required dates, else null. */
function dateShape(root: JsonSchema, node: unknown): "date" | "window" | null {
  if (isDateNode(root, node)) return "date";
  const s = resolve(root, node);
  if (!s || s.type !== "object" || !isObject(s.properties)) return null;
  const props = s.properties as JsonSchema;
  const req = requiredOf(s);
  return isDateNode(root, props.from) && isDateNode(root, props.to) && req.has("from") && req.has("to") ? "window" : null;
}

/**
 * What a binding needs of a declared kind's roles (`RecordKindRoles` of
 * lib/records/record-kind-declaration.ts is one; not imported, which would close an import cycle
 * through the declaration's use of the JSON Schema conversion): the balance's available field, and
 * whether there is a window.
 */
export interface BoundKindRoles {
  balance?: { available: string };
  window?: unknown;
}

/** The roles a binding's kind has (null: not declared on the desk). */
export type KindRolesOf = (kind: string) => BoundKindRoles | null;

/**
 * Reads the bindings of a normalised input schema (see the module comment) and checks them:
 * their placement, shapes and the arguments they sit on, and — when `rolesOf` is given (the
 * import, with the desk's current declarations) — that every kind is declared on the desk with
 * the roles its bounds use. `pathPrefix` is put before every problem's path (default
 * `inputSchema`). Returns the resolved bindings, or every problem found; never throws.
 */
export function readToolBindings(schema: JsonSchema, rolesOf?: KindRolesOf, pathPrefix = "inputSchema"): { ok: true; bindings: ToolBindings } | { ok: false; problems: BindingProblem[] } {
  const problems: BindingProblem[] = [];
  const add = (code: BindingProblemCode, path: string, message: string) => problems.push({ code, path: `${pathPrefix}.${path}`, message });
  const props = isObject(schema.properties) ? (schema.properties as JsonSchema) : {};

  // Keywords anywhere but on a top-level property are refused (a nested one would silently bind nothing).
  const walk = (node: unknown, at: string, topLevelProperty: boolean): void => {
    if (Array.isArray(node)) return node.forEach((n, i) => walk(n, `${at}.${i}`, false));
    if (!isObject(node)) return;
    for (const [k, v] of Object.entries(node)) {
      if (k.startsWith(BINDING_PREFIX)) {
        if ((TOOL_KEYWORDS as readonly string[]).includes(k)) {
          if (at !== "" || topLevelProperty) add("misplaced_binding", `${at ? `${at}.` : ""}${k}`, `${k} is said of the whole tool; put it on the input schema's root, not on an argument.`);
        } else if (!(BINDING_KEYWORDS as readonly string[]).includes(k)) add("unknown_binding", `${at ? `${at}.` : ""}${k}`, `"${k.slice(0, 60)}" is not a binding; the bindings are ${BINDING_KEYWORDS.join(", ")}.`);
        else if (!topLevelProperty) add("misplaced_binding", `${at ? `${at}.` : ""}${k}`, `${k} binds a top-level argument; put it on a property of the input schema's root.`);
        continue;
      }
      if (k === "properties" && isObject(v) && at === "") {
        for (const [p, child] of Object.entries(v)) walk(child, `properties.${p}`, true);
      } else if (k !== "enum" && k !== "const" && k !== "required") {
        walk(v, `${at ? `${at}.` : ""}${k}`, false);
      }
    }
  };
  walk(schema, "", false);

  const required = requiredOf(schema);
  const out: ToolBindings = { records: [], max: null, windows: [], effect: null };
  const pending: { arg: string; key: "max" | "window" | "effect"; kind: string; role: string; path: string }[] = [];
  for (const [arg, raw] of Object.entries(props)) {
    if (!isObject(raw)) continue;
    const at = `properties.${arg}`;
    const rec = raw["x-plandesk-record"];
    const max = raw["x-plandesk-max"];
    const win = raw["x-plandesk-window"];
    const eff = raw["x-plandesk-effect"];
    if (rec !== undefined) {
      if (typeof rec !== "string" || !KIND.test(rec)) add("invalid_binding", `${at}.x-plandesk-record`, `x-plandesk-record names a declared kind ("order"), not ${JSON.stringify(rec).slice(0, 60)}.`);
      else if (max !== undefined || win !== undefined || eff !== undefined) add("contradictory_binding", `${at}.x-plandesk-record`, `${arg} holds a record id of ${rec}; it cannot also be money or a date.`);
      else if (resolve(schema, raw)?.type !== "string") add("not_record_id", `${at}.x-plandesk-record`, `${arg} holds a record id of ${rec}, so it is a string.`);
      else if (!required.has(arg)) add("optional_record_argument", `${at}.x-plandesk-record`, `${arg} names the ${rec} the step acts on; it must be required.`);
      else if (out.records.some((r) => r.kind === rec)) add("contradictory_binding", `${at}.x-plandesk-record`, `Two arguments reference a ${rec} (${out.records.find((r) => r.kind === rec)!.arg} and ${arg}); a bound could not tell which.`);
      else out.records.push({ arg, kind: rec });
    }
    if (max !== undefined) {
      const kp = kindPath(max);
      if (!kp) add("invalid_binding", `${at}.x-plandesk-max`, `x-plandesk-max is "<kind>.available" (or the kind's available field), not ${JSON.stringify(max).slice(0, 60)}.`);
      else if (win !== undefined) add("contradictory_binding", `${at}.x-plandesk-max`, `${arg} cannot be both money (x-plandesk-max) and a date (x-plandesk-window).`);
      else if (!isMoneyNode(schema, raw)) add("not_money", `${at}.x-plandesk-max`, `${arg} is bounded by ${max}, so it is money: {minor: integer, currency: string}, both required.`);
      else pending.push({ arg, key: "max", ...kp, path: `${at}.x-plandesk-max` });
    }
    if (win !== undefined) {
      const kp = kindPath(win);
      if (!kp || kp.role !== "window") add("invalid_binding", `${at}.x-plandesk-window`, `x-plandesk-window is "<kind>.window", not ${JSON.stringify(win).slice(0, 60)}.`);
      else if (!dateShape(schema, raw)) add("not_date", `${at}.x-plandesk-window`, `${arg} must lie in the ${kp.kind}'s window, so it is a date (string, format date) or {from, to} of such dates.`);
      else pending.push({ arg, key: "window", ...kp, path: `${at}.x-plandesk-window` });
    }
    if (eff !== undefined) {
      const kp = isObject(eff) && Object.keys(eff).length === 1 ? kindPath(eff.lower) : null;
      if (!kp) add("invalid_binding", `${at}.x-plandesk-effect`, `x-plandesk-effect is {"lower": "<kind>.available"}, not ${JSON.stringify(eff).slice(0, 60)}.`);
      else if (!isMoneyNode(schema, raw)) add("not_money", `${at}.x-plandesk-effect`, `${arg} lowers ${kp.kind}.${kp.role}, so it is money: {minor: integer, currency: string}, both required.`);
      else pending.push({ arg, key: "effect", ...kp, path: `${at}.x-plandesk-effect` });
    }
  }

  for (const p of pending) {
    const record = out.records.find((r) => r.kind === p.kind);
    const roles = rolesOf ? rolesOf(p.kind) : undefined;
    if (roles === null) {
      add("unknown_kind", p.path, `No kind "${p.kind}" is declared on this desk.`);
      continue;
    }
    if (roles && (p.key === "max" || p.key === "effect")) {
      if (!roles.balance) {
        add("unknown_role", p.path, `${p.kind} has no balance role; declare one ({available, currency}) to bound money by it.`);
        continue;
      }
      if (p.role !== "available" && p.role !== roles.balance.available) {
        add("unknown_role", p.path, `${p.kind}.${p.role.slice(0, 60)} is not ${p.kind}'s available amount; name it ${p.kind}.available (or ${p.kind}.${roles.balance.available}).`);
        continue;
      }
    } else if (roles && p.key === "window" && !roles.window) {
      add("unknown_role", p.path, `${p.kind} has no window role; declare one ({start, end}) to bound dates by it.`);
      continue;
    }
    if (!record) {
      add("missing_record_argument", p.path, `No argument of this tool references a ${p.kind} (x-plandesk-record: "${p.kind}"), so there is no record to bound ${p.arg} by.`);
      continue;
    }
    if (p.key === "max") {
      if (out.max) add("contradictory_binding", p.path, `${out.max.arg} is this tool's money already; a tool moves money through one argument.`);
      else out.max = { arg: p.arg, kind: p.kind, recordArg: record.arg };
    } else if (p.key === "effect") {
      if (out.effect) add("contradictory_binding", p.path, `${out.effect.arg} carries this tool's effect already.`);
      else out.effect = { arg: p.arg, kind: p.kind, recordArg: record.arg };
    } else {
      out.windows.push({ arg: p.arg, kind: p.kind, recordArg: record.arg, shape: dateShape(schema, props[p.arg])! });
    }
  }
  for (const r of out.records) {
    if (rolesOf && rolesOf(r.kind) === null && !problems.some((p) => p.code === "unknown_kind" && p.path.endsWith(`properties.${r.arg}.x-plandesk-record`))) {
      problems.push({ code: "unknown_kind", path: `${pathPrefix}.properties.${r.arg}.x-plandesk-record`, message: `No kind "${r.kind}" is declared on this desk.` });
    }
  }
  if (out.effect && out.max && out.effect.arg !== out.max.arg) add("contradictory_binding", `properties.${out.effect.arg}.x-plandesk-effect`, `The effect lowers the record by ${out.effect.arg}, but the tool's money is ${out.max.arg}.`);
  else if (out.effect && out.max && out.effect.kind !== out.max.kind) add("contradictory_binding", `properties.${out.effect.arg}.x-plandesk-effect`, `${out.effect.arg} is bounded by a ${out.max.kind} but lowers a ${out.effect.kind}.`);
  if (problems.length > 0) return { ok: false, problems: dedupe(problems) };
  return { ok: true, bindings: out };
}

function dedupe(problems: BindingProblem[]): BindingProblem[] {
  const seen = new Set<string>();
  return problems.filter((p) => {
    const key = `${p.code} ${p.path}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/** The bindings of a stored (already checked) input schema; a schema whose bindings do not read is an Error (the tool is then left out of the catalog, closed). */
export function bindingsOfSchema(schema: JsonSchema): ToolBindings {
  const r = readToolBindings(schema);
  if (!r.ok) throw new Error(`The tool's bindings cannot be used: ${r.problems.map((p) => `${p.path}: ${p.message}`).join("; ")}`);
  return r.bindings;
}

/**
 * The admin's bindings of one tool at import: argument → `{record?, max?, window?, effect?}` (the
 * keywords' values without the `x-plandesk-` prefix); a tool-level keyword of TOOL_KEYWORDS as the
 * key (`{"x-plandesk-stage": {"commit": "<tool>"}}`) sets it on the schema's root.
 */
export type AdminToolBindings = Record<string, Record<string, unknown>>;

const ADMIN_KEYS: Record<string, (typeof BINDING_KEYWORDS)[number]> = { record: "x-plandesk-record", max: "x-plandesk-max", window: "x-plandesk-window", effect: "x-plandesk-effect" };

/**
 * The input schema with the admin's bindings written onto its top-level properties (a new object;
 * `schema` is not changed). A key that is not record/max/window/effect is `unknown_binding`, an
 * argument the schema does not have `unknown_argument`, and a binding the schema already carries
 * with another value `contradictory_binding` (the same value is fine). Paths start `bindings.`.
 */
export function mergeAdminBindings(schema: JsonSchema, admin: AdminToolBindings): { ok: true; schema: JsonSchema } | { ok: false; problems: BindingProblem[] } {
  const problems: BindingProblem[] = [];
  const props = isObject(schema.properties) ? { ...(schema.properties as JsonSchema) } : {};
  const root: JsonSchema = {};
  for (const [arg, keys] of Object.entries(admin)) {
    if ((TOOL_KEYWORDS as readonly string[]).includes(arg)) {
      // a tool-level keyword: written onto the schema's root
      if (schema[arg] !== undefined && JSON.stringify(schema[arg]) !== JSON.stringify(keys)) {
        problems.push({ code: "contradictory_binding", path: `bindings.${arg}`, message: `The server's schema says ${arg}: ${JSON.stringify(schema[arg]).slice(0, 80)}; the import says ${JSON.stringify(keys).slice(0, 80)}.` });
      } else root[arg] = keys;
      continue;
    }
    if (!Object.prototype.hasOwnProperty.call(props, arg) || !isObject(props[arg])) {
      problems.push({ code: "unknown_argument", path: `bindings.${arg.slice(0, 64)}`, message: `The tool has no argument "${arg.slice(0, 64)}"; it has ${Object.keys(props).join(", ") || "none"}.` });
      continue;
    }
    if (!isObject(keys)) {
      problems.push({ code: "invalid_binding", path: `bindings.${arg}`, message: `The bindings of ${arg} are an object {record?, max?, window?, effect?}.` });
      continue;
    }
    const node = { ...(props[arg] as JsonSchema) };
    for (const [k, v] of Object.entries(keys)) {
      const keyword = Object.prototype.hasOwnProperty.call(ADMIN_KEYS, k) ? ADMIN_KEYS[k] : undefined;
      if (!keyword) {
        problems.push({ code: "unknown_binding", path: `bindings.${arg}.${k.slice(0, 64)}`, message: `"${k.slice(0, 64)}" is not a binding; give record, max, window or effect.` });
        continue;
      }
      if (node[keyword] !== undefined && JSON.stringify(node[keyword]) !== JSON.stringify(v)) {
        problems.push({ code: "contradictory_binding", path: `bindings.${arg}.${k}`, message: `The server's schema binds ${arg} with ${keyword}: ${JSON.stringify(node[keyword]).slice(0, 80)}; the import says ${JSON.stringify(v).slice(0, 80)}.` });
        continue;
      }
      node[keyword] = v;
    }
    props[arg] = node;
  }
  if (problems.length > 0) return { ok: false, problems };
  return { ok: true, schema: { ...schema, ...root, properties: props } };
}

/** Whether a schema carries any binding keyword on a top-level property (cheap: no checks). */
export function schemaMentionsBindings(schema: JsonSchema): boolean {
  return JSON.stringify(schema).includes(`"${BINDING_PREFIX}`);
}

/**
 * How a write tool makes its effect all or nothing (the input schema's root keywords):
 * `x-plandesk-stage: {"commit": "<tool>"}` — a call of this tool only *stages* its write: it answers
 * a staging handle (`structuredContent.stagingHandle`, a string) and writes nothing anyone can see;
 * the commit tool, called with `{handles: [...]}`, makes every handle's write visible at once (or
 * none). `x-plandesk-compensate: {"tool": "<tool>"}` — the tool that undoes a written call of this
 * one, called with the same arguments.
 */
export interface ToolStaging {
  /** The commit tool of the pair, or null when the tool does not stage. */
  commit: string | null;
  /** The compensating tool, or null. */
  compensate: string | null;
}

const TOOL_NAME = /^[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}$/;

/** The tool-level keywords of a normalised input schema, or the problems of their shapes (paths `inputSchema.<keyword>`). Never throws. */
export function readToolStaging(schema: JsonSchema): { ok: true; staging: ToolStaging } | { ok: false; problems: BindingProblem[] } {
  const problems: BindingProblem[] = [];
  const stage = schema["x-plandesk-stage"];
  const comp = schema["x-plandesk-compensate"];
  let commit: string | null = null;
  let compensate: string | null = null;
  if (stage !== undefined) {
    const name = isObject(stage) && Object.keys(stage).length === 1 ? stage.commit : undefined;
    if (typeof name !== "string" || !TOOL_NAME.test(name)) problems.push({ code: "invalid_binding", path: "inputSchema.x-plandesk-stage", message: `x-plandesk-stage is {"commit": "<the commit tool's name>"}, not ${JSON.stringify(stage).slice(0, 60)}.` });
    else commit = name;
  }
  if (comp !== undefined) {
    const name = isObject(comp) && Object.keys(comp).length === 1 ? comp.tool : undefined;
    if (typeof name !== "string" || !TOOL_NAME.test(name)) problems.push({ code: "invalid_binding", path: "inputSchema.x-plandesk-compensate", message: `x-plandesk-compensate is {"tool": "<the compensating tool's name>"}, not ${JSON.stringify(comp).slice(0, 60)}.` });
    else compensate = name;
  }
  return problems.length ? { ok: false, problems } : { ok: true, staging: { commit, compensate } };
}

/** The staging of a stored (already checked) input schema; no staging when its keywords do not read. */
export function stagingOfSchema(schema: JsonSchema): ToolStaging {
  const r = readToolStaging(schema);
  return r.ok ? r.staging : { commit: null, compensate: null };
}

/** Whether `schema` takes exactly `handles`, a required array of strings: the commit tool's contract. */
function takesHandles(schema: JsonSchema): boolean {
  const props = isObject(schema.properties) ? (schema.properties as JsonSchema) : {};
  const handles = resolve(schema, props.handles);
  const items = handles ? resolve(schema, handles.items) : null;
  const required = requiredOf(schema);
  const otherRequired = [...required].some((r) => r !== "handles");
  return !!handles && handles.type === "array" && !!items && items.type === "string" && required.has("handles") && !otherRequired;
}

/** One tool of an import, as the staging check sees it. */
export interface StagingCheckTool {
  name: string;
  inputSchema: JsonSchema;
  readOnly: boolean;
}

/**
 * Checks the staging and compensation every tool of one import declares against the other tools
 * of the same import (a pair lives on one server, so it is imported together): the commit tool and
 * the compensating tool must be listed, the commit tool must keep the pair's contract (a write,
 * taking exactly `handles`, itself neither staging nor compensated), and nothing may contradict
 * (see BindingProblemCode). Returns the problems by tool name (paths `inputSchema.<keyword>`); an
 * empty map when all hold.
 */
export function checkImportStaging(tools: StagingCheckTool[]): Map<string, BindingProblem[]> {
  const byName = new Map(tools.map((t) => [t.name, t]));
  const read = new Map(tools.map((t) => [t.name, readToolStaging(t.inputSchema)]));
  const out = new Map<string, BindingProblem[]>();
  const add = (tool: string, code: BindingProblemCode, keyword: string, message: string) => {
    const list = out.get(tool) ?? [];
    list.push({ code, path: `inputSchema.${keyword}`, message });
    out.set(tool, list);
  };
  const commits = new Set<string>();
  for (const t of tools) {
    const r = read.get(t.name)!;
    if (!r.ok) {
      out.set(t.name, r.problems);
      continue;
    }
    if (r.staging.commit) commits.add(r.staging.commit);
  }
  for (const t of tools) {
    const r = read.get(t.name)!;
    if (!r.ok) continue;
    const { commit, compensate } = r.staging;
    if (commit !== null) {
      const c = byName.get(commit);
      const cs = read.get(commit);
      if (t.readOnly) add(t.name, "contradictory_binding", "x-plandesk-stage", `${t.name} is read-only (readOnlyHint); only a write is staged.`);
      else if (commit === t.name) add(t.name, "contradictory_binding", "x-plandesk-stage", `${t.name} cannot be its own commit tool: staging writes nothing visible, the commit makes it visible.`);
      else if (commits.has(t.name)) add(t.name, "contradictory_binding", "x-plandesk-stage", `${t.name} is another tool's commit tool; a commit tool does not stage.`);
      else if (!c) add(t.name, "unknown_commit_tool", "x-plandesk-stage", `The import lists no tool "${commit}" to commit ${t.name}'s staged writes; the pair must come from one server.`);
      else if (c.readOnly) add(t.name, "not_a_commit_tool", "x-plandesk-stage", `${commit} is read-only (readOnlyHint); a commit tool makes the staged writes visible.`);
      else if (cs && cs.ok && (cs.staging.commit !== null || cs.staging.compensate !== null)) add(t.name, "not_a_commit_tool", "x-plandesk-stage", `${commit} declares staging or compensation itself; a commit tool takes handles and nothing more.`);
      else if (!takesHandles(c.inputSchema)) add(t.name, "not_a_commit_tool", "x-plandesk-stage", `${commit} must take exactly {handles: string[]} (required, no other required argument): Plandesk calls it with the staging handles.`);
    }
    if (compensate !== null) {
      const c = byName.get(compensate);
      const cs = read.get(compensate);
      if (t.readOnly) add(t.name, "contradictory_binding", "x-plandesk-compensate", `${t.name} is read-only (readOnlyHint); a read has nothing to undo.`);
      else if (compensate === t.name) add(t.name, "contradictory_binding", "x-plandesk-compensate", `${t.name} cannot undo itself.`);
      else if (commit !== null) add(t.name, "contradictory_binding", "x-plandesk-compensate", `${t.name} stages its writes (nothing stays written after a stop), so it has nothing to compensate.`);
      else if (!c) add(t.name, "unknown_compensating_tool", "x-plandesk-compensate", `The import lists no tool "${compensate}" to undo ${t.name}; it must come from the same server.`);
      else if (c.readOnly) add(t.name, "contradictory_binding", "x-plandesk-compensate", `${compensate} is read-only (readOnlyHint); it cannot undo a write.`);
      else if (cs && cs.ok && cs.staging.commit !== null) add(t.name, "contradictory_binding", "x-plandesk-compensate", `${compensate} stages its writes; an undo must write, not wait for a commit.`);
    }
  }
  return out;
}

/**
 * The declared kinds the tools of `catalog` reference (`x-plandesk-record`, read into each form
 * field's `record`), each once, in catalog order — e.g. `["order"]` once `refund_order` is bound.
 * What the run page loads the ticket account's own records of, for the edit form's record picker.
 */
export function boundRecordKinds(catalog: { names(): readonly string[]; get(name: string): { fields: readonly { record?: string }[] } | undefined }): string[] {
  const kinds = new Set<string>();
  for (const name of catalog.names()) for (const f of catalog.get(name)?.fields ?? []) if (f.record) kinds.add(f.record);
  return [...kinds];
}
