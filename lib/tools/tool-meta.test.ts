import { describe, expect, it } from "vitest";
import { validArgs } from "../../testing/validation-context";
import { readToolNames } from "../reads/catalog";
import { readArgsSchema } from "../reads/args-schemas";
import { builtinToolMetaNames, getToolMeta } from "./builtin-meta";
import { builtinTools, toolNames } from "./builtin-tools";
import { builtinMetaCatalog, metaCatalogWith } from "./meta-catalog";
import { moneyOf } from "./tool-meta";
import { catalogWith } from "./versioned-catalog";
import type { ImportedToolSpec } from "./json-schema-tool";

describe("what the pages see of a tool is what the tool is", () => {
  it("lists the built-in tools in the menu order of the tool modules", () => {
    expect(builtinToolMetaNames).toEqual(toolNames);
    expect(builtinMetaCatalog.names()).toEqual(toolNames);
  });

  for (const tool of builtinTools()) {
    it(`${tool.name}: the same names, effect, gate, grant class and fields as its definition`, () => {
      const meta = getToolMeta(tool.name)!;
      expect(meta).toBeDefined();
      for (const key of ["name", "label", "description", "effect", "gate", "grantClass", "fields", "moneyArg"] as const) expect(meta[key]).toEqual(tool[key]);
    });

    it(`${tool.name}: its money argument is what its amount returns, for its example and for malformed money`, () => {
      const args = validArgs[tool.name as keyof typeof validArgs] as Record<string, unknown>;
      const parsed = tool.argsSchema.parse(args);
      expect(moneyOf(getToolMeta(tool.name), args)).toEqual(tool.amount(parsed as never));
      if (tool.amount(parsed as never)) {
        expect(tool.amount(parsed as never)!.minor).toBeGreaterThan(0);
        expect(moneyOf(getToolMeta(tool.name), { ...args, [getToolMeta(tool.name)!.moneyArg!]: { minor: "12", currency: "USD" } })).toBeUndefined();
        expect(moneyOf(getToolMeta(tool.name), { ...args, [getToolMeta(tool.name)!.moneyArg!]: null })).toBeUndefined();
      }
    });
  }

  it("knows no tool by a name the registry does not have, inherited names included", () => {
    for (const name of ["wire_money", "constructor", "toString", "__proto__", "ISSUE_REFUND"]) expect(getToolMeta(name)).toBeUndefined();
  });

  it("an imported catalog: the same names and page-facing data as the full catalog, and no built-in shadowed", () => {
    const from = { annotations: {}, source: "mcp", sourceRef: "test", catalogVersion: 4 } as const;
    const imported: ImportedToolSpec[] = [
      { ...from, name: "zz_book_visit", label: "Book a visit", description: "Books a site visit.", effect: "reversible", gate: "approval", inputSchema: { type: "object", properties: { date: { type: "string", format: "date", title: "Date" }, note: { type: "string" } }, required: ["date"] } },
      { ...from, name: "issue_refund", label: "Shadow", description: "An import may not shadow a built-in tool.", effect: "internal", gate: "auto", inputSchema: { type: "object", properties: {} } },
    ];
    const full = catalogWith(imported, 4);
    const pages = metaCatalogWith(full.imported, 4);
    expect(pages.version).toBe(4);
    expect(pages.names()).toEqual(full.names());
    for (const name of full.names()) {
      const a = full.get(name)!;
      const b = pages.get(name)!;
      for (const key of ["name", "label", "description", "effect", "gate", "grantClass", "fields", "moneyArg"] as const) expect(b[key]).toEqual(a[key]);
    }
    expect(pages.get("issue_refund")!.label).toBe("Issue refund");
  });
});

describe("read tools", () => {
  it("every read tool has its argument schema and no schema names a read tool the catalog lacks", () => {
    for (const name of readToolNames) expect(readArgsSchema(name)).toBeDefined();
    for (const name of ["read_everything", "constructor", "__proto__"]) expect(readArgsSchema(name)).toBeUndefined();
  });
});
