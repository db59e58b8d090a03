/**
 * The client package (packages/client) stands on its own and stays in step with the console:
 * its copy of the OpenAPI document, the types generated from it and the tools' argument schemas
 * are what scripts/package-openapi.ts makes now (run it after changing an endpoint or a tool), and
 * its source imports only its own files, its dependencies and its peer dependencies — never the
 * product's lib/ (the package is installed where the repository is not).
 */
import fs from "node:fs";
import path from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import { PACKAGE_OPENAPI, PACKAGE_TOOL_SCHEMAS, PACKAGE_TYPES, packageDocument, packageToolSchemas, packageTypes } from "./package-openapi";

const pkgDir = path.resolve(__dirname, "../packages/client");

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? sourceFiles(path.join(dir, e.name)) : e.name.endsWith(".ts") ? [path.join(dir, e.name)] : []));
}

describe("the client package", () => {
  it("carries the current OpenAPI document, its generated types and the tools' argument schemas (npx tsx scripts/package-openapi.ts)", async () => {
    const doc = packageDocument();
    expect(fs.readFileSync(PACKAGE_OPENAPI, "utf8") === doc, "packages/client/openapi.json is stale").toBe(true);
    expect(fs.readFileSync(PACKAGE_TYPES, "utf8") === (await packageTypes(doc)), "packages/client/src/generated/openapi.ts is stale").toBe(true);
    expect(fs.readFileSync(PACKAGE_TOOL_SCHEMAS, "utf8") === packageToolSchemas(doc), "packages/client/src/generated/tool-arguments.ts is stale").toBe(true);
  }, 60_000);

  it("imports only its own files, its dependencies and its peers", () => {
    const manifest = JSON.parse(fs.readFileSync(path.join(pkgDir, "package.json"), "utf8")) as { dependencies: Record<string, string>; peerDependencies: Record<string, string> };
    const allowed = new Set([...Object.keys(manifest.dependencies), ...Object.keys(manifest.peerDependencies)]);
    const src = path.join(pkgDir, "src");
    const bad: string[] = [];
    for (const file of sourceFiles(src)) {
      for (const ref of ts.preProcessFile(fs.readFileSync(file, "utf8"), true, true).importedFiles) {
        const spec = ref.fileName;
        const where = `${path.relative(pkgDir, file)} imports "${spec}"`;
        if (spec.startsWith(".")) {
          if (path.relative(src, path.resolve(path.dirname(file), spec)).startsWith("..")) bad.push(`${where} (outside src/)`);
          else if (!spec.endsWith(".js")) bad.push(`${where} (relative imports name the emitted .js file, for Node's ESM loader)`);
        } else if (!spec.startsWith("node:")) {
          const name = spec.startsWith("@") ? spec.split("/").slice(0, 2).join("/") : spec.split("/")[0];
          if (!allowed.has(name)) bad.push(`${where} (not a dependency or peer)`);
        }
      }
    }
    expect(bad).toEqual([]);
  });
});
