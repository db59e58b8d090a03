/*
 * Helpers for the validation tests (not used by production code). Fixed clock: REFERENCE_NOW
 * = 2026-04-01T09:00:00Z, so today (UTC) is 2026-04-01; NO-OSL holidays are 04-06 and 04-11.
 */
import { DEMO_AGENT_TOOLS, REFERENCE_NOW, referenceDesk } from "./fixtures/reference-desk";
import type { z } from "zod";
import { daysFromNow } from "../lib/time/dates";
import { builtinTools, type BuiltinToolOf, type ToolName } from "../lib/tools/builtin-tools";
import { validatePlan } from "../lib/validation/pipeline";
import type { GateRulesContext, ValidationContext, ValidationIssue, ValidationResult } from "../lib/validation/types";
import { gateRule } from "../lib/gate-policy/rules";
import type { StepReasonKey } from "../lib/plan/schema";

export const NOW = REFERENCE_NOW;

/** ISO date `n` days after 2026-04-01. */
export const day = (n: number) => daysFromNow(NOW, n);

/** A context on the reference desk with every tool allowed; override any part. */
export function ctx(over: Partial<ValidationContext> = {}): ValidationContext {
  return { desk: referenceDesk(NOW), now: NOW, agentAllowedTools: [...DEMO_AGENT_TOOLS], ...over };
}

/**
 * `{id, tool, args, rationale}` (provenance and author default in the schema). Every step gets a
 * rationale so a test of another rule is not also about the `missing_rationale` completeness
 * warning; use {@link bareStep} for a step without reasons.
 */
export function step(id: string, tool: string, args: Record<string, unknown>) {
  return { id, tool, args, rationale: `Needed for the test (${tool})` };
}

/** `{id, tool, args}` with no reasons at all. */
export function bareStep(id: string, tool: string, args: Record<string, unknown>) {
  return { id, tool, args };
}

/** A version-1 plan of these steps. */
export function plan(...steps: unknown[]) {
  return { version: 1, steps };
}

/** Validates a one-step plan. */
export function one(tool: string, args: Record<string, unknown>, over: Partial<ValidationContext> = {}): ValidationResult {
  return validatePlan(plan(step("x", tool, args)), ctx(over));
}

/** Issue codes of a result, in order. */
export function codes(r: ValidationResult | ValidationIssue[]): string[] {
  return (Array.isArray(r) ? r : r.issues).map((i) => i.code);
}

/** The single issue with `code`; fails loudly when there is not exactly one. */
export function only(r: ValidationResult, code: string): ValidationIssue {
  const found = r.issues.filter((i) => i.code === code);
  if (found.length !== 1) throw new Error(`expected exactly one ${code}, got ${JSON.stringify(r.issues, null, 1)}`);
  return found[0];
}

export const usd = (minor: number) => ({ minor, currency: "USD" as const });

/**
 * Valid args per built-in tool on the reference desk (own account, open invoice, future window):
 * each tool's `seed.example` (lib/tools/<tool>/tool.ts).
 */
export const validArgs = Object.fromEntries(builtinTools().map((t) => [t.name, t.seed.example(day)])) as {
  [N in ToolName]: z.input<BuiltinToolOf<N>["argsSchema"]>;
};

/**
 * A gate policy context (desk "freight", the reference ticket's account) with one rule per tool in
 * `requires`, each requiring those step fields (decision: one approver).
 */
export function requiring(requires: Record<string, StepReasonKey[]>): GateRulesContext {
  const rules = Object.entries(requires).map(([tool, fields], i) => ({ ...gateRule({ tool, decision: "one", requiredFields: fields }), id: `rule_${i}`, position: i }));
  return { policy: { version: 3, rules }, desk: "freight", accountId: "acc_nordkapp", accountTags: [] };
}

/** A read step (lib/reads/schema.ts) of `tool` with `args`, `status` (default ok) and what it saw. */
export function readStep(id: string, tool: string, args: Record<string, unknown>, over: { status?: "ok" | "failed"; observed?: Record<string, unknown>; error?: string } = {}) {
  return { id, kind: "read" as const, tool, args, status: over.status ?? "ok", ...(over.observed ? { observed: over.observed } : {}), ...(over.error ? { error: over.error } : {}) };
}

/** A complete refund step for the reference desk: every reason field filled, evidence a record of the ticket's account. */
export function completeRefund(id: string, over: Record<string, unknown> = {}) {
  return {
    ...step(id, "issue_refund", validArgs.issue_refund),
    title: "Refund the damaged pallet",
    risk: "Money leaves the company",
    stopCondition: "The invoice was paid meanwhile",
    evidence: [{ recordType: "invoice", recordId: "in_74121" }],
    ...over,
  };
}
