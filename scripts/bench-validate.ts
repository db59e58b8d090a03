/**
 * Fuzz benchmark of the validation pipeline.
 *
 *   npx tsx scripts/bench-validate.ts [count]        (default 12,000 plans)
 *
 * Throws random fast-check JSON at `validatePlan` in four families — arbitrary JSON,
 * plan-shaped JSON with real tool names, the reference plan with one value's JSON type changed,
 * and the reference plan with an unknown field added somewhere — plus valid reference plans on
 * random clocks as a control. Asserts: no call throws, no stage crashes (`stage_failed`), no
 * invalid plan is accepted, every valid control is accepted. Writes count, duration (ms) and
 * ops/s to bench/results/validate.json; exits 1 on any violation.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import fc from "fast-check";
import { DEMO_AGENT_TOOLS, REFERENCE_NOW, referenceDesk, referencePlan } from "../testing/fixtures/reference-desk";
import { toolNames } from "../lib/tools/builtin-tools";
import { validatePlan } from "../lib/validation/pipeline";
import type { ValidationContext } from "../lib/validation/types";

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };
type Family = "random_json" | "plan_shaped" | "type_changed" | "unknown_field" | "valid_control";
interface Case {
  family: Family;
  plan: unknown;
  ctx: ValidationContext;
  expectOk: boolean;
}

const total = Math.max(1000, Number(process.argv[2] ?? 12000) || 12000);
const SEED = 20260401;
const now = REFERENCE_NOW;
const baseCtx: ValidationContext = { desk: referenceDesk(now), now, agentAllowedTools: [...DEMO_AGENT_TOOLS] };
const reference = JSON.parse(JSON.stringify(referencePlan(now))) as Json;

const clone = (v: Json): Json => JSON.parse(JSON.stringify(v)) as Json;
const jsonType = (v: unknown) => (v === null ? "null" : Array.isArray(v) ? "array" : typeof v);
function walk(v: Json, prefix: (string | number)[], leaves: (string | number)[][], objects: (string | number)[][]) {
  if (Array.isArray(v)) v.forEach((x, i) => walk(x, [...prefix, i], leaves, objects));
  else if (v !== null && typeof v === "object") {
    objects.push(prefix);
    for (const k of Object.keys(v)) walk(v[k], [...prefix, k], leaves, objects);
  } else leaves.push(prefix);
}
const leaves: (string | number)[][] = [];
const objects: (string | number)[][] = [];
walk(reference, [], leaves, objects);
const at = (root: Json, p: (string | number)[]) => p.reduce<Json>((acc, k) => (acc as Record<string, Json>)[k as string], root);

const stepArb = fc.record(
  {
    id: fc.oneof(fc.string({ maxLength: 8 }), fc.jsonValue()),
    tool: fc.oneof(fc.constantFrom(...toolNames), fc.string()),
    args: fc.oneof(fc.dictionary(fc.string({ maxLength: 10 }), fc.jsonValue()), fc.jsonValue()),
    provenance: fc.jsonValue(),
  },
  { requiredKeys: ["tool"] },
);

const families: Record<Family, fc.Arbitrary<Case>> = {
  random_json: fc.jsonValue().map((plan) => ({ family: "random_json" as const, plan, ctx: baseCtx, expectOk: false })),
  plan_shaped: fc
    .record({ version: fc.oneof(fc.nat(), fc.jsonValue()), steps: fc.array(stepArb, { maxLength: 6 }) })
    .map((plan) => ({ family: "plan_shaped" as const, plan, ctx: baseCtx, expectOk: false })),
  type_changed: fc
    .tuple(fc.nat({ max: leaves.length - 1 }), fc.jsonValue())
    .filter(([k, v]) => jsonType(at(reference, leaves[k])) !== jsonType(v))
    .map(([k, v]) => {
      const plan = clone(reference);
      const p = leaves[k];
      (at(plan, p.slice(0, -1)) as Record<string | number, Json>)[p[p.length - 1]] = v as Json;
      return { family: "type_changed" as const, plan, ctx: baseCtx, expectOk: false };
    }),
  unknown_field: fc
    .tuple(fc.nat({ max: objects.length - 1 }), fc.string({ minLength: 1, maxLength: 12 }), fc.integer())
    .filter(([k, key]) => !Object.prototype.hasOwnProperty.call(at(reference, objects[k]), key))
    .map(([k, key, value]) => {
      const plan = clone(reference);
      Object.defineProperty(at(plan, objects[k]), key, { value, enumerable: true, writable: true, configurable: true });
      return { family: "unknown_field" as const, plan, ctx: baseCtx, expectOk: false };
    }),
  valid_control: fc
    .date({ min: new Date("2000-01-01T00:00:00Z"), max: new Date("2100-01-01T00:00:00Z"), noInvalidDate: true })
    .map((d) => ({
      family: "valid_control" as const,
      plan: referencePlan(d),
      ctx: { desk: referenceDesk(d), now: d, agentAllowedTools: [...DEMO_AGENT_TOOLS] },
      expectOk: true,
    })),
};

const perFamily = Math.ceil(total / 5);
const cases: Case[] = (Object.keys(families) as Family[]).flatMap((f, i) =>
  fc.sample(families[f], { numRuns: perFamily, seed: SEED + i }),
);

const stats = Object.fromEntries(
  (Object.keys(families) as Family[]).map((f) => [f, { count: 0, accepted: 0, durationMs: 0, issues: 0 }]),
) as Record<Family, { count: number; accepted: number; durationMs: number; issues: number }>;
const violations: Array<{ family: Family; problem: string; plan: unknown }> = [];

const started = process.hrtime.bigint();
for (const c of cases) {
  const t0 = process.hrtime.bigint();
  let result;
  try {
    result = validatePlan(c.plan, c.ctx);
  } catch (err) {
    violations.push({ family: c.family, problem: `threw: ${String(err)}`, plan: c.plan });
    continue;
  }
  const s = stats[c.family];
  s.durationMs += Number(process.hrtime.bigint() - t0) / 1e6;
  s.count++;
  s.issues += result.issues.length;
  if (result.ok) s.accepted++;
  if (result.issues.some((i) => i.code === "stage_failed")) violations.push({ family: c.family, problem: "stage_failed", plan: c.plan });
  if (result.ok !== c.expectOk) violations.push({ family: c.family, problem: c.expectOk ? "valid plan refused" : "invalid plan accepted", plan: c.plan });
}
const durationMs = Number(process.hrtime.bigint() - started) / 1e6;
const count = cases.length;

const report = {
  benchmark: "validatePlan fuzz",
  date: new Date().toISOString(),
  node: process.version,
  seed: SEED,
  count,
  durationMs: Math.round(durationMs * 100) / 100,
  opsPerSec: Math.round((count / durationMs) * 1000),
  violations: violations.length,
  families: Object.fromEntries(
    Object.entries(stats).map(([f, s]) => [
      f,
      { ...s, durationMs: Math.round(s.durationMs * 100) / 100, opsPerSec: s.durationMs > 0 ? Math.round((s.count / s.durationMs) * 1000) : null },
    ]),
  ),
  ...(violations.length ? { firstViolations: violations.slice(0, 5) } : {}),
};

const out = path.join(process.cwd(), "bench", "results", "validate.json");
mkdirSync(path.dirname(out), { recursive: true });
writeFileSync(out, JSON.stringify(report, null, 2) + "\n");
console.log(`validatePlan: ${count} plans in ${report.durationMs} ms (${report.opsPerSec} ops/s), ${violations.length} violations → ${path.relative(process.cwd(), out)}`);
if (violations.length) {
  console.error(JSON.stringify(violations.slice(0, 5), null, 2));
  process.exit(1);
}
