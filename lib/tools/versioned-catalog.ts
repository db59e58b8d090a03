/**
 * The catalog a validation sees: the built-in tools (lib/tools/builtin-tools.ts)
 * plus, when an admin imported some, the imported tools of one catalog version. The smallest
 * abstraction that lets `validatePlan` (ValidationContext.catalog), the forms and the services
 * look tools up without knowing where they come from. Pure; runs in the browser too.
 */
import { getTool, toolNames } from "./builtin-tools";
import { toolFromSpec, type ImportedToolSpec } from "./json-schema-tool";
import type { ToolMetaCatalog } from "./meta-catalog";
import type { ToolDefinition } from "./types";

/**
 * A set of tools to validate against. `version` is the catalog version of the imported tools it
 * holds (`null`: built-in tools only — no import had happened); a run records it
 * (`Run.catalogVersion`) and is validated against that version for its whole life.
 */
export interface ToolCatalog extends ToolMetaCatalog {
  readonly version: number | null;
  /** The tool called `name` (exact), or undefined. */
  get(name: string): ToolDefinition | undefined;
  /** Every tool name, built-in first (menu order), then imported by name. */
  names(): readonly string[];
  /** The imported tools' specs (what the browser needs to rebuild this catalog). */
  readonly imported: readonly ImportedToolSpec[];
}

/** The built-in tools only. */
export const builtinCatalog: ToolCatalog = {
  version: null,
  get: getTool,
  names: () => toolNames,
  imported: [],
};

/**
 * Built-in tools plus `imported` (the catalog at `version`). A built-in name always resolves to
 * the built-in tool: an import can never shadow one. An imported spec whose schema can no longer
 * be converted is left out (its steps then fail the shape stage as an unknown tool, closed).
 */
export function catalogWith(imported: readonly ImportedToolSpec[], version: number | null): ToolCatalog {
  const defs = new Map<string, ToolDefinition>();
  for (const spec of [...imported].sort((a, b) => a.name.localeCompare(b.name))) {
    if (getTool(spec.name)) continue;
    try {
      defs.set(spec.name, toolFromSpec(spec));
    } catch {
      // not convertible any more: unknown to this catalog
    }
  }
  const names = [...toolNames, ...defs.keys()];
  return {
    version,
    get: (name) => getTool(name) ?? defs.get(name),
    names: () => names,
    imported: imported.filter((s) => defs.has(s.name)),
  };
}

/** One tool as the admin forms list it (the gate-policy rule editor, an agent's allowlist): name, label, whether it was imported. */
export interface CatalogToolOption {
  name: string;
  label: string;
  imported: boolean;
}
