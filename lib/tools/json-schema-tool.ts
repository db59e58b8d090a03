/**
 * Tools imported from JSON Schema: an MCP server's `tools/list` entries or
 * OpenAI-style function definitions become catalog entries ({@link ImportedToolSpec}, stored
 * versioned in the database) and, from those, ordinary {@link ToolDefinition}s whose zod
 * argument schema drives the validator's shape stage AND the typed form — one schema, client
 * and server, like the built-in tools. Pure (no I/O); runs in the browser too.
 *
 * Why zod's `z.fromJSONSchema` rather than ajv: the result IS a zod schema, so the shape stage
 * (lib/validation/shape.ts), its issue mapping (lib/validation/zod-issues.ts: stable codes like
 * `too_big`, `invalid_format`) and the form's zodResolver take imported tools exactly as they
 * take built-in ones; ajv would need a second error mapper and compiles validators with
 * `new Function`, which a strict Content-Security-Policy refuses in the browser. zod documents
 * `fromJSONSchema` as semi-experimental, so the keywords it must honour are pinned by tests
 * (json-schema-tool.test.ts) and a schema it cannot convert is refused at import, never guessed.
 *
 * Normalisation at import (documented for admins): the root must be `type: "object"`; an object
 * without `additionalProperties` is closed (`false`) — an argument the operator cannot see on the
 * card must never reach the executor; `default` values are dropped from the validating schema
 * (they would change the parsed arguments and so the digest; the form still pre-fills them);
 * `$schema`/`$id` are dropped.
 *
 * Safety at import (refused, with the reason, never guessed): a `pattern` runs on RE2 (re2js, a
 * linear-time engine: no backtracking, so no pattern makes validation slow), and one RE2 cannot
 * compile (look-around, back-references) is refused, as is a `pattern` anywhere but on a property,
 * an additional property or array items, and every `patternProperties`; a `$ref` must point
 * inside the schema (`#/…`) and no chain of `$ref`s may lead back to itself; tool names are never
 * a property of JavaScript objects (`__proto__`, `constructor`, `toString`…) and never a built-in
 * tool's name in other letter case.
 */
import { UNKNOWN_EFFECT } from "../effects/state";
import { RE2JS } from "re2js";
import { z } from "zod";
import { RESCHEDULE_HORIZON_DAYS } from "../plan/policy";
import { daysFromNow, utcDateOf } from "../time/dates";
import { fieldsFromSchema, resolveLocalRef, toolMetaFromSpec, type JsonSchema } from "./meta-catalog";
import { checkDeclaredBounds, declaredAmount, declaredEffectModel, declaredTarget } from "./declared-bounds";
import { bindingsOfSchema, hasBindings } from "./tool-bindings";
import type { BoundsContext, GateDefault, ToolDefinition, ToolEffect, ToolIssue } from "./types";

/** A JSON Schema node as imported (plain JSON; defined in ./meta-catalog.ts). */
export type { JsonSchema };

/** MCP tool annotations (MCP spec 2025-06-18 `ToolAnnotations`); all hints optional. */
export const mcpAnnotationsSchema = z
  .object({
    title: z.string().optional(),
    readOnlyHint: z.boolean().optional(),
    destructiveHint: z.boolean().optional(),
    idempotentHint: z.boolean().optional(),
    openWorldHint: z.boolean().optional(),
  })
  .loose();
export type McpAnnotations = z.infer<typeof mcpAnnotationsSchema>;

/** An imported tool's name: what agents call, unique across built-in and imported tools. */
export const importedToolNameSchema = z
  .string()
  .min(1)
  .max(64)
  .regex(/^[A-Za-z0-9_-]+$/, "A tool name may contain only letters, digits, '_' and '-' (at most 64)");

/**
 * One imported tool as the catalog stores it (and ships to the browser): name, label,
 * description, the normalised input JSON Schema, the annotations it came with, the effect and
 * default gate derived from them, where it came from, and the catalog version that introduced
 * this definition.
 */
export const importedToolSpecSchema = z.object({
  name: importedToolNameSchema,
  label: z.string().min(1).max(200),
  description: z.string().max(4000),
  inputSchema: z.record(z.string(), z.unknown()),
  annotations: mcpAnnotationsSchema,
  effect: z.enum(["internal", "reversible", "customer_visible", "irreversible"]),
  gate: z.enum(["approval", "auto"]),
  source: z.enum(["mcp", "openai"]),
  sourceRef: z.string().max(500),
  catalogVersion: z.number().int().min(1),
});
export type ImportedToolSpec = z.infer<typeof importedToolSpecSchema>;

/** The most tools one import may list; a longer list is refused whole (a catalog is reviewed by people). */
export const MAX_TOOLS_PER_IMPORT = 200;

/** A tool the import refused, with the reason (the rest of the import goes on); a binding problem (lib/tools/tool-bindings.ts) also has its code and path, and refuses the whole import. */
export interface ImportProblem {
  name: string;
  reason: string;
  code?: string;
  path?: string;
}

/**
 * Gate defaults from MCP annotations (MCP hint defaults: readOnlyHint false,
 * destructiveHint true): `readOnlyHint: true` → effect `internal`, gate `auto`;
 * `destructiveHint: false` (additive, not destructive) → `reversible`, `approval`;
 * otherwise (destructive, or nothing said) → `irreversible`, `approval` — an irreversible tool
 * always needs a person, whatever a policy says (docs/design.md §1.8). Fail closed: a server that
 * says nothing gets the strictest gate.
 */
export function gateFromAnnotations(a: McpAnnotations = {}): { effect: ToolEffect; gate: GateDefault } {
  if (a.readOnlyHint === true) return { effect: "internal", gate: "auto" };
  if (a.destructiveHint === false) return { effect: "reversible", gate: "approval" };
  return { effect: "irreversible", gate: "approval" };
}

const DROP = new Set(["$schema", "$id", "default", "examples"]);

/**
 * The schema as Plandesk validates it (see the module comment): objects closed unless they say
 * otherwise, `default`/`examples`/`$schema`/`$id` dropped, recursively. Throws Error when the
 * root is not an object schema.
 */
export function normaliseInputSchema(schema: unknown): JsonSchema {
  if (typeof schema !== "object" || schema === null || Array.isArray(schema)) throw new Error("The input schema is not a JSON object");
  const root = schema as JsonSchema;
  if (root.type !== "object") throw new Error(`The input schema must be {"type": "object"}, not ${JSON.stringify(root.type ?? null)}`);
  const walk = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(walk);
    if (typeof node !== "object" || node === null) return node;
    const out: JsonSchema = {};
    for (const [k, v] of Object.entries(node as JsonSchema)) {
      if (DROP.has(k)) continue;
      out[k] = k === "properties" && v && typeof v === "object" ? Object.fromEntries(Object.entries(v as JsonSchema).map(([p, s]) => [p, walk(s)])) : walk(v);
    }
    if (out.type === "object" && !("additionalProperties" in out)) out.additionalProperties = false;
    return out;
  };
  return walk(root) as JsonSchema;
}

const zodCache = new Map<string, z.ZodObject>();

/**
 * The zod schema of a normalised input schema (cached by its JSON). Every `pattern` is checked by
 * RE2 ({@link matchesPattern}) in a refinement, never handed to JavaScript's backtracking RegExp.
 * Throws when zod cannot convert the schema or a pattern is unsafe ({@link assertSafeSchema}).
 */
export function zodFromInputSchema(schema: JsonSchema): z.ZodObject {
  const key = JSON.stringify(schema);
  const hit = zodCache.get(key);
  if (hit) return hit;
  assertSafeSchema(schema);
  const patterned = key.includes('"pattern"');
  const base = z.fromJSONSchema((patterned ? withoutPatterns(schema) : schema) as Parameters<typeof z.fromJSONSchema>[0]);
  if (!(base instanceof z.ZodObject)) throw new Error("The input schema does not describe an object");
  const converted = patterned ? base.superRefine((value, ctx) => checkPatterns(schema, value, [], ctx)) : base;
  zodCache.set(key, converted);
  return converted;
}

/** Keywords under which a `pattern` is honoured: a property, an additional property, array items. */
const PATTERN_PATHS = new Set(["properties", "additionalProperties", "items"]);

const re2Cache = new Map<string, RE2JS>();

/** `pattern` compiled by RE2 (cached). Throws Error naming the pattern when RE2 cannot compile it. */
function re2(pattern: string): RE2JS {
  let re = re2Cache.get(pattern);
  if (!re) {
    try {
      re = RE2JS.compile(pattern);
    } catch (e) {
      throw new Error(`the pattern ${JSON.stringify(pattern.slice(0, 100))} is not supported (${e instanceof Error ? e.message : String(e)}); patterns run on a linear-time engine without look-around or back-references`);
    }
    re2Cache.set(pattern, re);
  }
  return re;
}

/**
 * Whether `value` matches the JSON Schema `pattern` (a search anywhere in the text, as JSON
 * Schema defines it), on RE2: time linear in the length of `value`, whatever the pattern.
 */
export function matchesPattern(pattern: string, value: string): boolean {
  return re2(pattern).matcher(value).find();
}

/**
 * Throws Error when the schema is unsafe to validate with: a `pattern` that is not a string, that
 * RE2 cannot compile, or that sits anywhere but under properties / additionalProperties / items
 * (inside `anyOf`, `$defs`… it would not be checked); any `patternProperties`; a `$ref` that does
 * not point inside the schema (`#` or `#/…`) or to nothing, or a chain of `$ref`s that leads back
 * to where it started. Pure; linear in the schema's size (each `$ref` target is visited once).
 */
export function assertSafeSchema(root: JsonSchema): void {
  const refs: { from: string; to: string }[] = [];
  const walk = (node: unknown, at: string, patternOk: boolean): void => {
    if (Array.isArray(node)) {
      node.forEach((n, i) => walk(n, `${at}/${i}`, false));
      return;
    }
    if (typeof node !== "object" || node === null) return;
    const obj = node as JsonSchema;
    if ("patternProperties" in obj) throw new Error(`"patternProperties" is not supported (at ${at || "#"})`);
    if ("pattern" in obj) {
      if (typeof obj.pattern !== "string") throw new Error(`"pattern" must be a string (at ${at || "#"})`);
      if (!patternOk) throw new Error(`a "pattern" is checked only on a property or array items (at ${at || "#"})`);
      re2(obj.pattern);
    }
    if (typeof obj.$ref === "string") refs.push({ from: at || "#", to: obj.$ref });
    else if ("$ref" in obj) throw new Error(`"$ref" must be a string (at ${at || "#"})`);
    for (const [k, v] of Object.entries(obj)) {
      if (k === "properties" && v && typeof v === "object" && !Array.isArray(v)) {
        for (const [p, child] of Object.entries(v as JsonSchema)) walk(child, `${at}/properties/${p}`, patternOk);
      } else if (k !== "pattern" && k !== "$ref" && k !== "enum" && k !== "const" && k !== "required") {
        walk(v, `${at}/${k}`, patternOk && PATTERN_PATHS.has(k));
      }
    }
  };
  walk(root, "", true);
  if (refs.length === 0) return;
  const target = (ref: string): string => {
    if (ref !== "#" && !ref.startsWith("#/")) throw new Error(`"$ref" must point inside the schema ("#/…"), not ${JSON.stringify(ref.slice(0, 100))}`);
    let node: unknown = root;
    for (const raw of ref === "#" ? [] : ref.slice(2).split("/")) {
      const key = raw.replace(/~1/g, "/").replace(/~0/g, "~");
      if (typeof node !== "object" || node === null || !Object.prototype.hasOwnProperty.call(node, key)) throw new Error(`"$ref" ${JSON.stringify(ref.slice(0, 100))} points to nothing`);
      node = (node as JsonSchema)[key];
    }
    return ref === "#" ? "#" : `/${ref.slice(2)}`;
  };
  // A reference cycle: following $refs (a node's own $ref or one nested in it) leads back to a node
  // on the path. Nodes are identified by their JSON pointer; a ref "inside" a node is one whose
  // location starts with that node's pointer.
  const edges = new Map<string, string[]>();
  const norm = (p: string) => (p === "#" ? "" : p);
  for (const r of refs) edges.set(norm(r.from), [...(edges.get(norm(r.from)) ?? []), norm(target(r.to))]);
  const refsWithin = (pointer: string) => [...edges.entries()].filter(([from]) => from === pointer || from.startsWith(`${pointer}/`)).flatMap(([, to]) => to);
  const state = new Map<string, "visiting" | "done">();
  const visit = (pointer: string, trail: string[]): void => {
    if (state.get(pointer) === "done") return;
    if (state.get(pointer) === "visiting") throw new Error(`"$ref" cycle: ${[...trail, pointer].map((p) => `#${p}`).join(" → ")} (recursive schemas are not supported)`);
    state.set(pointer, "visiting");
    for (const next of refsWithin(pointer)) visit(next, [...trail, pointer]);
    state.set(pointer, "done");
  };
  for (const r of refs) visit(norm(target(r.to)), []);
}

/** A copy of `node` without `pattern` keywords (they are checked by RE2 instead). */
function withoutPatterns(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(withoutPatterns);
  if (typeof node !== "object" || node === null) return node;
  const out: JsonSchema = {};
  for (const [k, v] of Object.entries(node as JsonSchema)) {
    if (k === "pattern" && typeof v === "string") continue;
    out[k] = k === "properties" && v && typeof v === "object" ? Object.fromEntries(Object.entries(v as JsonSchema).map(([p, c]) => [p, withoutPatterns(c)])) : withoutPatterns(v);
  }
  return out;
}

/** Adds an `invalid_format` issue for each string in `value` that its schema's `pattern` does not match (RE2). */
function checkPatterns(node: unknown, value: unknown, path: (string | number)[], ctx: z.RefinementCtx): void {
  if (typeof node !== "object" || node === null || Array.isArray(node)) return;
  const s = node as JsonSchema;
  if (typeof s.pattern === "string" && typeof value === "string" && !matchesPattern(s.pattern, value)) {
    ctx.addIssue({ code: "invalid_format", format: "regex", pattern: s.pattern, input: value, path, message: `Does not match the pattern ${s.pattern}` });
  }
  if (Array.isArray(value)) {
    if (s.items && typeof s.items === "object" && !Array.isArray(s.items)) value.forEach((v, i) => checkPatterns(s.items, v, [...path, i], ctx));
    return;
  }
  if (typeof value !== "object" || value === null) return;
  const props = (s.properties ?? {}) as JsonSchema;
  for (const [k, v] of Object.entries(value as JsonSchema)) {
    if (Object.prototype.hasOwnProperty.call(props, k)) checkPatterns(props[k], v, [...path, k], ctx);
    else if (s.additionalProperties && typeof s.additionalProperties === "object") checkPatterns(s.additionalProperties, v, [...path, k], ctx);
  }
}

export { fieldsFromSchema };

/**
 * The ToolDefinition of an imported tool: its arguments parsed by the zod schema of its input
 * schema, and one bound check every imported tool gets: no date argument beyond the date horizon
 * ({@link dateHorizonIssues}). A tool whose schema binds arguments to declared record kinds
 * (lib/tools/tool-bindings.ts) also gets, from its bindings: its target (the bound record), its
 * money (the `x-plandesk-max` argument), the checks `issue_refund` gets (record on this desk,
 * not closed, money ≤ available less money in flight, dates in the record's window:
 * lib/tools/declared-bounds.ts) and, with `x-plandesk-effect`, its effects preview. Otherwise the
 * catalog knows nothing else of its semantics — the shape stage, allowlist, authorship and gate
 * still apply. Throws when the schema or its bindings cannot be used (the catalog leaves it out).
 */
export function toolFromSpec(spec: ImportedToolSpec): ToolDefinition {
  const bindings = bindingsOfSchema(spec.inputSchema);
  const meta = toolMetaFromSpec(spec);
  const bound = hasBindings(bindings);
  return {
    ...meta,
    effectModel: (declaredEffectModel(bindings) as ToolDefinition["effectModel"] | null) ?? UNKNOWN_EFFECT,
    argsSchema: zodFromInputSchema(spec.inputSchema),
    target: (args, desk) => (bound ? declaredTarget(bindings, args, desk) : null),
    amount: (args) => declaredAmount(bindings, args),
    checkBounds: (args, ctx) => [...dateHorizonIssues(spec.inputSchema, args, ctx), ...(bound ? checkDeclaredBounds(bindings, args, ctx, spec.label) : [])],
  };
}

/**
 * `date_beyond_horizon` (error) for every date argument of an imported tool — a string whose
 * schema node says `format: "date"` or `"date-time"`, at any depth (properties, additional
 * properties, array items, local `$ref`s) — whose UTC calendar date lies more than the date
 * horizon after today's UTC date (`ctx.dateHorizonDays`: the governing gate-policy rule's
 * `dateHorizonDays`; default RESCHEDULE_HORIZON_DAYS of lib/plan/policy.ts, one year). The tool's
 * meaning is unknown, but a date like 9999-12-31 is a typo or a trick, never a plan (docs/security.md,
 * "Limits and what exceeding them answers"). `path` is dotted, relative to the arguments (e.g. "visit.date").
 */
export function dateHorizonIssues(schema: JsonSchema, args: unknown, ctx: BoundsContext): ToolIssue[] {
  const horizonDays = ctx.dateHorizonDays ?? RESCHEDULE_HORIZON_DAYS;
  let horizon: string | undefined; // computed at the first date found (an invalid clock then fails the stage, closed)
  const issues: ToolIssue[] = [];
  const resolve = (node: unknown): JsonSchema | null => resolveLocalRef(schema, node);
  const walk = (node: unknown, value: unknown, path: string[]): void => {
    const s = resolve(node);
    if (!s) return;
    if (typeof value === "string" && (s.format === "date" || s.format === "date-time")) {
      const at = s.format === "date" ? value : new Date(value);
      const day = typeof at === "string" ? at : Number.isNaN(at.getTime()) ? null : utcDateOf(at);
      horizon ??= daysFromNow(ctx.now, horizonDays);
      if (day && day > horizon) {
        issues.push({
          code: "date_beyond_horizon",
          severity: "error",
          path: path.join("."),
          message: `A date may lie at most ${horizonDays} days ahead (by ${horizon}, UTC); ${day} is beyond that`,
          details: { date: day, horizon, horizonDays },
        });
      }
      return;
    }
    if (Array.isArray(value)) {
      if (s.items && typeof s.items === "object" && !Array.isArray(s.items)) value.forEach((v, i) => walk(s.items, v, [...path, String(i)]));
      return;
    }
    if (typeof value !== "object" || value === null) return;
    const props = (s.properties ?? {}) as JsonSchema;
    for (const [k, v] of Object.entries(value as JsonSchema)) {
      if (Object.prototype.hasOwnProperty.call(props, k)) walk(props[k], v, [...path, k]);
      else if (s.additionalProperties && typeof s.additionalProperties === "object") walk(s.additionalProperties, v, [...path, k]);
    }
  };
  walk(schema, args, []);
  return issues;
}

/** An entry of MCP `tools/list` (`result.tools[]`), as far as the import reads it. */
export interface McpToolEntry {
  name: string;
  title?: string;
  description?: string;
  inputSchema: unknown;
  annotations?: McpAnnotations;
}

/** An OpenAI-style function definition: `{type: "function", function: {name, description, parameters}}` or the inner object. */
export interface OpenAiFunctionDefinition {
  type?: "function";
  name?: string;
  description?: string;
  parameters?: unknown;
  function?: { name: string; description?: string; parameters?: unknown };
}

type Draft = Omit<ImportedToolSpec, "catalogVersion">;

/** Names no tool may have: every property JavaScript objects inherit, and `prototype` (compared in lower case). */
const PROTOTYPE_NAMES = new Set([...Object.getOwnPropertyNames(Object.prototype), "prototype", "__proto__", "constructor"].map((n) => n.toLowerCase()));

/**
 * Why `name` may not be an imported tool's name, or null: a name JavaScript objects already have
 * (`__proto__`, `constructor`, `toString`…, in any letter case), a built-in tool's name in any
 * letter case (`Issue_Refund` would read as `issue_refund` to a person), or a name an earlier tool
 * of the same import has in any letter case (`seen`, lower case; the name is added).
 */
export function toolNameProblem(name: string, builtIn: ReadonlySet<string>, seen: Set<string>): string | null {
  const lower = name.toLowerCase();
  if (PROTOTYPE_NAMES.has(lower)) return `"${name}" is a name every JavaScript object already has; choose another`;
  const clash = [...builtIn].find((b) => b.toLowerCase() === lower);
  if (clash) return clash === name ? `"${name}" is a built-in tool; an import cannot replace it` : `"${name}" differs from the built-in tool "${clash}" only in letter case`;
  if (seen.has(lower)) return `"${name}" is listed twice in this import (letter case aside)`;
  seen.add(lower);
  return null;
}

function draft(
  entry: { name: string; label: string; description: string; inputSchema: unknown; annotations: McpAnnotations; source: "mcp" | "openai"; sourceRef: string },
  taken: ReadonlySet<string>,
  seen: Set<string>,
): Draft | ImportProblem {
  const name = importedToolNameSchema.safeParse(entry.name);
  if (!name.success) return { name: String(entry.name).slice(0, 100), reason: name.error.issues[0].message };
  const nameProblem = toolNameProblem(entry.name, taken, seen);
  if (nameProblem) return { name: entry.name, reason: nameProblem };
  let inputSchema: JsonSchema;
  try {
    inputSchema = normaliseInputSchema(entry.inputSchema);
    assertSafeSchema(inputSchema);
    zodFromInputSchema(inputSchema);
  } catch (e) {
    return { name: entry.name, reason: `Its input schema cannot be used: ${e instanceof Error ? e.message : String(e)}` };
  }
  const { effect, gate } = gateFromAnnotations(entry.annotations);
  return { name: entry.name, label: entry.label.slice(0, 200), description: entry.description.slice(0, 4000), inputSchema, annotations: entry.annotations, effect, gate, source: entry.source, sourceRef: entry.sourceRef.slice(0, 500) };
}

/**
 * Catalog drafts from an MCP server's `tools/list` entries. `builtIn` names are refused (an
 * import never replaces a built-in tool), as are names that are not step-safe and schemas zod
 * cannot convert; each refusal is an ImportProblem. Gate defaults from annotations.
 */
export function draftsFromMcpTools(tools: readonly McpToolEntry[], sourceRef: string, builtIn: ReadonlySet<string>): { drafts: Draft[]; problems: ImportProblem[] } {
  const drafts: Draft[] = [];
  const problems: ImportProblem[] = [];
  const seen = new Set<string>();
  for (const t of tools) {
    const annotations = mcpAnnotationsSchema.safeParse(t.annotations ?? {});
    const d = draft(
      { name: t.name, label: t.title ?? (annotations.success ? annotations.data.title : undefined) ?? t.name, description: t.description ?? "", inputSchema: t.inputSchema, annotations: annotations.success ? annotations.data : {}, source: "mcp", sourceRef },
      builtIn,
      seen,
    );
    if ("reason" in d) problems.push(d);
    else drafts.push(d);
  }
  return { drafts, problems };
}

/**
 * Catalog drafts from OpenAI-style function definitions. They carry no annotations, so each is
 * treated as destructive (irreversible, approval) unless `readOnly` names it.
 */
export function draftsFromOpenAiFunctions(defs: readonly OpenAiFunctionDefinition[], sourceRef: string, builtIn: ReadonlySet<string>, readOnly: ReadonlySet<string> = new Set()): { drafts: Draft[]; problems: ImportProblem[] } {
  const drafts: Draft[] = [];
  const problems: ImportProblem[] = [];
  const seen = new Set<string>();
  for (const def of defs) {
    const fn = def.function ?? { name: def.name ?? "", description: def.description, parameters: def.parameters };
    const d = draft(
      { name: fn.name, label: fn.name, description: fn.description ?? "", inputSchema: fn.parameters ?? { type: "object", properties: {} }, annotations: readOnly.has(fn.name) ? { readOnlyHint: true } : {}, source: "openai", sourceRef },
      builtIn,
      seen,
    );
    if ("reason" in d) problems.push(d);
    else drafts.push(d);
  }
  return { drafts, problems };
}
