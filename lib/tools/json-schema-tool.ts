/**
 * Tools imported from JSON Schema (issue #15): an MCP server's `tools/list` entries or
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
 */
import { UNKNOWN_EFFECT } from "../effects/state";
import { z } from "zod";
import type { FieldSpec, GateDefault, ToolDefinition, ToolEffect } from "./types";

/** A JSON Schema node as imported (plain JSON). */
export type JsonSchema = { [key: string]: unknown };

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

/** A tool the import refused, with the reason (the rest of the import goes on). */
export interface ImportProblem {
  name: string;
  reason: string;
}

/**
 * Gate defaults from MCP annotations (issue #15; MCP hint defaults: readOnlyHint false,
 * destructiveHint true): `readOnlyHint: true` → effect `internal`, gate `auto`;
 * `destructiveHint: false` (additive, not destructive) → `reversible`, `approval`;
 * otherwise (destructive, or nothing said) → `irreversible`, `approval` — an irreversible tool
 * always needs a person, whatever a policy says (DESIGN.md §1.8). Fail closed: a server that
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

/** The zod schema of a normalised input schema (cached by its JSON). Throws when zod cannot convert it. */
export function zodFromInputSchema(schema: JsonSchema): z.ZodObject {
  const key = JSON.stringify(schema);
  const hit = zodCache.get(key);
  if (hit) return hit;
  const converted = z.fromJSONSchema(schema as Parameters<typeof z.fromJSONSchema>[0]);
  if (!(converted instanceof z.ZodObject)) throw new Error("The input schema does not describe an object");
  zodCache.set(key, converted);
  return converted;
}

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
    ...(typeof node.description === "string" ? { help: node.description } : {}),
  }));
}

/**
 * The ToolDefinition of an imported tool: its arguments parsed by the zod schema of its input
 * schema; no target in account data, no money, no bound checks of its own (the catalog knows
 * nothing of its semantics — the shape stage, allowlist, authorship and gate still apply).
 */
export function toolFromSpec(spec: ImportedToolSpec): ToolDefinition {
  return {
    name: spec.name,
    label: spec.label,
    description: spec.description,
    effect: spec.effect,
    gate: spec.gate,
    grantClass: "plain",
    effectModel: UNKNOWN_EFFECT,
    argsSchema: zodFromInputSchema(spec.inputSchema),
    fields: fieldsFromSchema(spec.inputSchema),
    target: () => null,
    amount: () => undefined,
    checkBounds: () => [],
  };
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

function draft(entry: { name: string; label: string; description: string; inputSchema: unknown; annotations: McpAnnotations; source: "mcp" | "openai"; sourceRef: string }, taken: ReadonlySet<string>): Draft | ImportProblem {
  const name = importedToolNameSchema.safeParse(entry.name);
  if (!name.success) return { name: entry.name, reason: name.error.issues[0].message };
  if (taken.has(entry.name)) return { name: entry.name, reason: `"${entry.name}" is a built-in tool; an import cannot replace it` };
  let inputSchema: JsonSchema;
  try {
    inputSchema = normaliseInputSchema(entry.inputSchema);
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
  for (const t of tools) {
    const annotations = mcpAnnotationsSchema.safeParse(t.annotations ?? {});
    const d = draft(
      { name: t.name, label: t.title ?? (annotations.success ? annotations.data.title : undefined) ?? t.name, description: t.description ?? "", inputSchema: t.inputSchema, annotations: annotations.success ? annotations.data : {}, source: "mcp", sourceRef },
      builtIn,
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
  for (const def of defs) {
    const fn = def.function ?? { name: def.name ?? "", description: def.description, parameters: def.parameters };
    const d = draft(
      { name: fn.name, label: fn.name, description: fn.description ?? "", inputSchema: fn.parameters ?? { type: "object", properties: {} }, annotations: readOnly.has(fn.name) ? { readOnlyHint: true } : {}, source: "openai", sourceRef },
      builtIn,
    );
    if ("reason" in d) problems.push(d);
    else drafts.push(d);
  }
  return { drafts, problems };
}
