/**
 * The dependency rule (docs/style.md §7, §13, §14): the rules of .dependency-cruiser.cjs hold over
 * lib/, app/ and components/ (no import cycles, domain code free of the framework and of
 * lib/server, production code free of test support), and no two lib/server folders import each
 * other — a folder is one concern, and a pair that imports both ways is one concern in two places.
 * A loose file at the root of lib/server counts as its own unit.
 */
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

/** The lib/server unit of a module path: its first folder below lib/server, or the loose file itself. */
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

  it("no two lib/server folders import each other", async () => {
    const out = await graph();
    const edges = new Map<string, string[]>();
    for (const m of out.modules) {
      const from = serverUnit(m.source);
      if (!from || m.source.endsWith(".test.ts")) continue;
      for (const d of m.dependencies) {
        const to = serverUnit(d.resolved);
        if (!to || to === from) continue;
        const key = `${from} → ${to}`;
        edges.set(key, [...(edges.get(key) ?? []), `${m.source} → ${d.resolved}`]);
      }
    }
    const mutual = [...edges.keys()]
      .map((k) => k.split(" → "))
      .filter(([a, b]) => a < b && edges.has(`${b} → ${a}`))
      .map(([a, b]) => ({ pair: `${a} ↔ ${b}`, imports: [...edges.get(`${a} → ${b}`)!, ...edges.get(`${b} → ${a}`)!] }));
    expect(mutual).toEqual([]);
    expect(edges.size).toBeGreaterThan(20);
  }, 120_000);
});
