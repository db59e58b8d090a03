/**
 * The dependency rule (docs/style.md §7, §13, §14): the rules of .dependency-cruiser.cjs hold over
 * lib/, app/ and components/ (no import cycles, domain code free of the framework and of
 * lib/server, production code free of test support), and no two lib/server folders import each
 * other, directly or around a loop — a folder is one concern, and folders that import each other are
 * one concern in several places.
 * No file lies loose at the root of lib/ or lib/server/: each sits in a folder named for its concern.
 */
import fs from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { cruise, type ICruiseResult } from "dependency-cruiser";
import { describe, expect, it } from "vitest";

const require = createRequire(import.meta.url);
const root = path.resolve(__dirname, "..");

async function graph(): Promise<ICruiseResult> {
  const config = require(path.join(root, ".dependency-cruiser.cjs"));
  const cwd = process.cwd();
  process.chdir(root);
  try {
    const r = await cruise(["lib", "app", "components"], { ...config.options, validate: true, ruleSet: { forbidden: config.forbidden } });
    return r.output as ICruiseResult;
  } finally {
    process.chdir(cwd);
  }
}

/** The lib/server unit of a module path: its first folder below lib/server. */
const serverUnit = (p: string): string | null => {
  const m = /^lib\/server\/([^/]+)(\/)?/.exec(p);
  return m ? m[1] : null;
};

describe("the dependency rule", () => {
  it("holds: no cycles, domain code without framework or server imports, no test support in production", async () => {
    const out = await graph();
    const violations = out.summary.violations.map((v) => `${v.rule.name}: ${v.from} → ${v.to}${v.cycle?.length ? ` (${v.cycle.map((c) => (typeof c === "string" ? c : c.name)).join(" → ")})` : ""}`);
    expect(violations).toEqual([]);
    // the rule sees the code: the graph is the whole tree, not an empty or partial one
    expect(out.modules.filter((m) => m.source.startsWith("lib/server/")).length).toBeGreaterThan(100);
  }, 120_000);

  it("no two lib/server folders import each other, directly or around a loop", async () => {
    const out = await graph();
    const edges = new Map<string, string[]>();
    const next = new Map<string, Set<string>>();
    for (const m of out.modules) {
      const from = serverUnit(m.source);
      if (!from || m.source.endsWith(".test.ts")) continue;
      for (const d of m.dependencies) {
        const to = serverUnit(d.resolved);
        if (!to || to === from) continue;
        const key = `${from} → ${to}`;
        edges.set(key, [...(edges.get(key) ?? []), `${m.source} → ${d.resolved}`]);
        next.set(from, (next.get(from) ?? new Set()).add(to));
      }
    }
    // Folder loops (Tarjan's strongly connected components): a pair that imports both ways is
    // the shortest loop; every loop is one concern spread over several folders.
    const index = new Map<string, number>();
    const low = new Map<string, number>();
    const stack: string[] = [];
    const loops: string[][] = [];
    const visit = (v: string) => {
      index.set(v, index.size);
      low.set(v, index.get(v)!);
      stack.push(v);
      for (const w of next.get(v) ?? []) {
        if (!index.has(w)) {
          visit(w);
          low.set(v, Math.min(low.get(v)!, low.get(w)!));
        } else if (stack.includes(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
      }
      if (low.get(v) === index.get(v)) {
        const loop: string[] = [];
        let w: string;
        do {
          w = stack.pop()!;
          loop.push(w);
        } while (w !== v);
        if (loop.length > 1) loops.push(loop.sort());
      }
    };
    for (const v of next.keys()) if (!index.has(v)) visit(v);
    const shown = loops.map((loop) => ({
      folders: loop.join(", "),
      imports: [...edges.entries()].filter(([k]) => loop.includes(k.split(" → ")[0]) && loop.includes(k.split(" → ")[1])).flatMap(([, v]) => v),
    }));
    expect(shown).toEqual([]);
    expect(edges.size).toBeGreaterThan(20);
  }, 120_000);

  it("leaves no loose file at the root of lib/ or lib/server/", () => {
    const loose = ["lib", "lib/server"].flatMap((dir) =>
      fs.readdirSync(path.join(root, dir), { withFileTypes: true }).filter((e) => e.isFile()).map((e) => `${dir}/${e.name}`),
    );
    expect(loose).toEqual([]);
    // the check reads the real tree
    expect(fs.readdirSync(path.join(root, "lib/server")).length).toBeGreaterThan(20);
  });
});
