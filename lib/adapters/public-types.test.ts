import path from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";

const ADAPTERS = ["core.ts", "gated-tool.ts", "ai-sdk.ts", "openai-agents.ts", "langgraph.ts", "demo-tools.ts"].map((f) => path.resolve(__dirname, f));

describe("the adapters' public types", () => {
  it("have no `any`: the declarations TypeScript emits for them never say any", () => {
    const emitted = new Map<string, string>();
    const program = ts.createProgram(ADAPTERS, {
      declaration: true,
      emitDeclarationOnly: true,
      skipLibCheck: true,
      strict: true,
      target: ts.ScriptTarget.ES2022,
      module: ts.ModuleKind.ESNext,
      moduleResolution: ts.ModuleResolutionKind.Bundler,
      esModuleInterop: true,
      noEmit: false,
    });
    program.emit(undefined, (file, text) => emitted.set(file, text));
    for (const file of ADAPTERS) {
      const dts = [...emitted.entries()].find(([f]) => f.endsWith(path.basename(file).replace(/\.ts$/, ".d.ts")) && f.includes("adapters"))?.[1];
      expect(dts, `no declarations emitted for ${file}`).toBeDefined();
      const code = dts!.replace(/\/\*[\s\S]*?\*\//g, "").replace(/\/\/.*$/gm, "");
      expect(code.match(/\bany\b/g), `${path.basename(file)} declares any:\n${code}`).toBeNull();
    }
  }, 120_000);
});
