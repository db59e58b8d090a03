import { builtinToolMetaNames, getToolMeta } from "./builtin-meta";
import type { FieldSpec, GateDefault, ToolEffect, ToolMeta } from "./types";

/*
 * The catalog as the console's pages see it: the page-facing data ({@link ToolMeta}) of the
 * built-in tools plus the imported tools of one catalog version, with no argument schema, no
 * zod and no RE2 (docs/design.md "Page weight"). The full catalog (lib/tools/versioned-catalog.ts,
 * with schemas) is one too, so a page may be handed either; only the plan editor loads that one.
 */

/**
 * A set of tools to show steps of: `version` is the catalog version of the imported tools it
 * holds (null: built-in only); `get` the tool called `name` (exact) or undefined; `names` every
 * tool name, built-in first in menu order, then imported by name.
 */
export interface ToolMetaCatalog {
  readonly version: number | null;
  get(name: string): ToolMeta | undefined;
  names(): readonly string[];
}

/** A JSON Schema node as imported tools store them (plain JSON). */
export type JsonSchema = { [key: string]: unknown };

/**
 * The schema node `node` stands for: a local `$ref` ("#/$defs/money", JSON Pointer escapes `~1`
 * and `~0`) is followed within `root`, up to 32 hops (a cycle ends there). Null for a remote
 * `$ref`, a pointer into nothing, or a node that is not an object. Pure.
 */
export function resolveLocalRef(root: JsonSchema, node: unknown): JsonSchema | null {
  let n = node;
  for (let hops = 0; hops < 32 && n && typeof n === "object" && typeof (n as JsonSchema).$ref === "string"; hops++) {
    const ref = (n as JsonSchema).$ref as string;
    if (!ref.startsWith("#")) return null;
    n = ref
      .slice(1)
      .split("/")
      .filter(Boolean)
      .map((t) => t.replace(/~1/g, "/").replace(/~0/g, "~"))
      .reduce<unknown>((at, k) => (at && typeof at === "object" && Object.prototype.hasOwnProperty.call(at, k) ? (at as JsonSchema)[k] : undefined), root);
  }
  return n && typeof n === "object" && !Array.isArray(n) ? (n as JsonSchema) : null;
}

/**
 * What the pages need of an imported tool's stored spec (`ImportedToolSpec` of
 * lib/tools/json-schema-tool.ts is one): its names, effect, default gate and input JSON Schema.
 */
export interface ImportedToolMetaSource {
  name: string;
  label: string;
  description: string;
  effect: ToolEffect;
  gate: GateDefault;
  inputSchema: JsonSchema;
}

/** The built-in tools only. */
export const builtinMetaCatalog: ToolMetaCatalog = { version: null, get: getToolMeta, names: () => builtinToolMetaNames };

/**
 * The form fields of an imported tool: one `schema` field per top-level property, in the
 * schema's order, labelled by the property's `title` (else its name), with its `description` as
 * help and its JSON Schema node for the form (lib/tools/types.ts FieldSpec).
 */
export function fieldsFromSchema(schema: JsonSchema): FieldSpec[] {
  const props = (schema.properties ?? {}) as Record<string, JsonSchema>;
  const required = new Set(Array.isArray(schema.required) ? (schema.required as string[]) : []);
  return Object.entries(props).map(([name, node]) => ({
    name,
    label: typeof node.title === "string" ? node.title : name,
    kind: "schema" as const,
    schema: node,
    required: required.has(name),
    ...(typeof node["x-plandesk-record"] === "string" ? { record: node["x-plandesk-record"] } : {}),
    ...(typeof node.description === "string" ? { help: node.description } : {}),
  }));
}

/**
 * An imported tool's page-facing data, from its stored spec: plain grant class and no money,
 * unless an argument is bound by a record's available amount (`x-plandesk-max`,
 * lib/tools/tool-bindings.ts): that argument is then the money it moves, and it is granted like money.
 */
export function toolMetaFromSpec(spec: ImportedToolMetaSource): ToolMeta {
  const props = (spec.inputSchema.properties ?? {}) as Record<string, JsonSchema>;
  const moneyArg = Object.keys(props).find((k) => typeof props[k] === "object" && props[k] !== null && typeof props[k]["x-plandesk-max"] === "string") ?? null;
  return { name: spec.name, label: spec.label, description: spec.description, effect: spec.effect, gate: spec.gate, grantClass: moneyArg ? "money" : "plain", fields: fieldsFromSchema(spec.inputSchema), moneyArg };
}

/**
 * Built-in tools plus `imported` (the catalog at `version`, as the server sends it: only specs
 * its full catalog could convert). A built-in name always resolves to the built-in tool, as in
 * `catalogWith` of lib/tools/versioned-catalog.ts.
 */
export function metaCatalogWith(imported: readonly ImportedToolMetaSource[], version: number | null): ToolMetaCatalog {
  const defs = new Map<string, ToolMeta>();
  for (const spec of [...imported].sort((a, b) => a.name.localeCompare(b.name))) if (!getToolMeta(spec.name)) defs.set(spec.name, toolMetaFromSpec(spec));
  const names = [...builtinToolMetaNames, ...defs.keys()];
  return { version, get: (name) => getToolMeta(name) ?? defs.get(name), names: () => names };
}
