import type { Money } from "../money/format-money";
import type { ToolMeta } from "./types";

/**
 * Identity helper keeping a tool's literal name while checking its page-facing data against
 * {@link ToolMeta} (lib/tools/<tool>/meta.ts). Pure; no zod.
 */
export function defineToolMeta<N extends string>(meta: ToolMeta & { readonly name: N }): ToolMeta & { readonly name: N } {
  return meta;
}

/**
 * The money a step of `meta` moves, read from its raw arguments (`args[meta.moneyArg]`, a
 * `{minor, currency}` with an integer `minor` in minor units), or undefined when the tool moves
 * none or the value is not money yet (a malformed argument the validator reports). What the
 * pages show and check grants with; on the server the tool's own `amount` of parsed arguments
 * decides. Never throws.
 */
export function moneyOf(meta: Pick<ToolMeta, "moneyArg"> | undefined, args: unknown): Money | undefined {
  if (!meta?.moneyArg || typeof args !== "object" || args === null) return undefined;
  const value = (args as Record<string, unknown>)[meta.moneyArg];
  if (typeof value !== "object" || value === null) return undefined;
  const { minor, currency } = value as { minor?: unknown; currency?: unknown };
  if (typeof minor !== "number" || !Number.isInteger(minor) || typeof currency !== "string") return undefined;
  return { minor, currency } as Money;
}
