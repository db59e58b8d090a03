import { checkGrant, type Grant } from "../people/grants";
import { formatMoney, moneySchema } from "../money/money";
import type { AccountSnapshot } from "../desk/snapshot";
import type { ToolDefinition } from "../tools/types";

/** One thing to say under a money field before the edit is saved. */
export interface MoneyFieldNote {
  /** `error`: the save will be refused for it; `info`: allowed, but someone else must approve. */
  severity: "error" | "info";
  /** The validator's issue code, or `over_author_limit` / `over_approve_limit` for the viewer's grants. */
  code: string;
  message: string;
}

/**
 * The inline checks of one money argument while a person types it ("checks
 * zero/negative/above-limit/above-available inline"), from the same rules the server applies:
 * the tool's own `checkBounds` (open balance, money in flight of other runs, currency — the
 * validator's argument-bounds stage, lib/tools/shared.ts) on the account snapshot the page already
 * holds, keeping only the issues about `field`; and the viewer's grants (`checkGrant`, the
 * authorship stage): above their authoring ceiling is an error, above their approval ceiling an
 * info (someone with a higher limit approves). Zero and negative amounts are refused earlier, by
 * the money parser (lib/money/money-input.ts).
 *
 * `args` are the step's arguments as the form holds them; when they do not parse yet (another
 * field still empty) only the viewer's limits are checked, on the field's own amount. `changed` (default true): the viewer changed this amount —
 * authorship is checked only for what a person changed (lib/server/edits/stamp-edited-steps.ts), so
 * an agent's amount left as it was gets no authoring note. Money in minor units; `now` UTC. Pure; never throws.
 */
export function checkMoneyField(input: {
  tool: ToolDefinition;
  field: string;
  args: Record<string, unknown>;
  desk: AccountSnapshot;
  grants: readonly Grant[];
  runId?: string;
  now?: Date;
  changed?: boolean;
}): MoneyFieldNote[] {
  const { tool, field, desk, grants } = input;
  const parsed = tool.argsSchema.safeParse(input.args);
  const notes: MoneyFieldNote[] = [];
  if (parsed.success) {
    for (const issue of tool.checkBounds(parsed.data, { desk, now: input.now ?? new Date(), runId: input.runId })) {
      if (issue.severity !== "error" || !(issue.path === field || issue.path?.startsWith(`${field}.`))) continue;
      notes.push({ severity: "error", code: issue.code, message: issue.message });
    }
  }
  const amount = parsed.success ? tool.amount(parsed.data) : moneySchema.safeParse(input.args[field]).data;
  if (!amount) return notes;
  const author = input.changed === false ? null : checkGrant(grants, "author", tool.name, amount);
  if (author?.code === "over_limit") {
    notes.push({ severity: "error", code: "over_author_limit", message: `${formatMoney(amount)} is above your limit for ${tool.label.toLowerCase()} (${formatMoney(author.limit)}); ask someone with a higher limit to add it` });
    return notes;
  }
  const approve = checkGrant(grants, "approve", tool.name, amount);
  if (approve?.code === "over_limit") {
    notes.push({ severity: "info", code: "over_approve_limit", message: `You may propose ${formatMoney(amount)}, but it is above your approval limit (${formatMoney(approve.limit)}): someone with a higher limit approves it` });
  }
  return notes;
}
