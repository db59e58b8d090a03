import type { AccountSnapshot } from "../desk/snapshot";
import { accountIdOf, accountName } from "../desk/lookup";
import { builtinCatalog, type ToolCatalog } from "../tools/versioned-catalog";
import { initialEffectState, type EffectState } from "./state";
import type { StepEffect } from "./schema";

export type { EffectChange, StepEffect } from "./schema";
export { initialEffectState, type EffectState } from "./state";

/*
 * The effects preview: the account as it will be after each step of a plan,
 * computed from live account data (the AccountSnapshot the validator reads) by the same tool
 * definitions the validator uses — each step's arguments are parsed by its tool's `argsSchema`,
 * its record resolved by `target`, and the tool's own preview step (`effectModel`, beside the
 * tool in lib/tools/<tool>/tool.ts) applied. Pure; never throws for any input.
 */

/** A step as the preview reads it: id, tool name and raw (untrusted) arguments. */
export interface EffectStepInput {
  id: string;
  tool: string;
  args: unknown;
}

/**
 * Applies one step (at 1-based `position`) to `state`: the step's effect and the state after it.
 * A tool with the generic effect (an imported tool) yields `unknown_effect`; an unknown tool,
 * arguments its tool's schema refuses, a target that does not resolve in `desk` (the tool's own
 * `target`), or an amount the earlier steps left no room for yield `cannot_preview` with a reason
 * — and leave the state unchanged. Never throws.
 */
export function applyStepEffect(
  state: EffectState,
  step: EffectStepInput,
  position: number,
  desk: AccountSnapshot,
  catalog: ToolCatalog = builtinCatalog,
): { state: EffectState; effect: StepEffect } {
  const base = { stepId: step.id, position, tool: step.tool };
  const fail = (reason: string) => ({ state, effect: { status: "cannot_preview" as const, ...base, reason } });
  const tool = catalog.get(step.tool);
  if (!tool) return fail(`No preview: ${step.tool} is not a known tool`);
  const model = tool.effectModel;
  if (model.kind === "unknown") return { state, effect: { status: "unknown_effect", ...base, reason: model.reason } };
  try {
    const parsed = tool.argsSchema.safeParse(step.args);
    if (!parsed.success) return fail("No preview: the arguments are not valid");
    const target = tool.target(parsed.data as never, desk);
    if (!target) return fail("No preview: the record this step writes to is not in the account data");
    const out = model.apply(state, parsed.data as never);
    if (!out.ok) return fail(`No preview: ${out.reason}`);
    // A record of another account than the ticket's: the change names that account.
    const ownerId = accountIdOf(desk, target.kind, target.id);
    const otherAccount = ownerId !== undefined && ownerId !== desk.ticket.accountId ? accountName(desk, ownerId) : undefined;
    const changes = otherAccount ? out.changes.map((c) => (c.kind === "invoice_balance" || c.kind === "invoice_fee" || c.kind === "account_credit" || c.kind === "shipment_window" || c.kind === "shipment_status" || c.kind === "record_balance" ? { ...c, otherAccount } : c)) : out.changes;
    return { state: out.state, effect: { status: "previewed", ...base, changes, customerTold: [...out.state.told] } };
  } catch (e) {
    return fail(`No preview: ${e instanceof Error ? e.message : "the step could not be previewed"}`);
  }
}

/**
 * The effects preview of `steps` (in plan order) on `desk`: per step, what it changes (before →
 * after) in the state the earlier steps left, and what the customer will have been told by then.
 * Equals folding {@link applyStepEffect} over the steps from {@link initialEffectState}.
 * Source:. Never throws.
 */
export function previewEffects(steps: readonly EffectStepInput[], desk: AccountSnapshot, catalog: ToolCatalog = builtinCatalog): StepEffect[] {
  let state = initialEffectState(desk);
  const effects: StepEffect[] = [];
  steps.forEach((step, i) => {
    const r = applyStepEffect(state, step, i + 1, desk, catalog);
    state = r.state;
    effects.push(r.effect);
  });
  return effects;
}

export { describeChange, formatWindow } from "./describe-change";
