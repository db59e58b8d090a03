import path from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";

/** The package's entry points and the modules they re-export (packages/client/src). */
const SRC = path.resolve(__dirname, "../src");
const ADAPTERS = ["index.ts", "client.ts", "execute-step.ts", "adapters/core.ts", "adapters/gated-tool.ts", "adapters/ai-sdk.ts", "adapters/openai-agents.ts", "adapters/langgraph.ts", "adapters/langchain.ts", "demo.ts", "mcp-gateway.ts", "testing/index.ts"].map((f) => path.join(SRC, f));

describe("the client package's public types", () => {
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
      const want = path.relative(SRC, file).replace(/\.ts$/, ".d.ts");
      const dts = emitted.get(path.join(SRC, want));
      expect(dts, `no declarations emitted for ${file}`).toBeDefined();
      const code = dts!.replace(/\/\*[\s\S]*?\*\//g, "").replace(/\/\/.*$/gm, "");
      expect(code.match(/\bany\b/g), `${path.basename(file)} declares any:\n${code}`).toBeNull();
    }
  }, 120_000);
});
