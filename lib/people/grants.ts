import type { Money } from "../money/format-money";

/**
 * A person's authority over one tool. Approving and authoring are different permissions,
 * each with an optional ceiling (minor units + currency; `null` = no ceiling).
 * Source: docs/design.md §1.7 (authorship); seeds "Editing a plan…" (may_author).
 */
export interface Grant {
  tool: string;
  canApprove: boolean;
  approveLimit: Money | null;
  canAuthor: boolean;
  authorLimit: Money | null;
}

/** Why an authority check failed; `null` when allowed. */
export type GrantDenial =
  | { code: "no_grant"; tool: string }
  | { code: "over_limit"; tool: string; limit: Money; amount: Money };

/**
 * Checks whether `grants` allow `action` ("approve" | "author") on `tool` for an optional
 * `amount`. An amount exactly at the ceiling is allowed; one minor unit above is not.
 * An amount in another currency than the ceiling's is treated as over the limit.
 * Returns `null` when allowed, else a typed denial. Pure.
 */
export function checkGrant(
  grants: readonly Grant[],
  action: "approve" | "author",
  tool: string,
  amount?: Money,
): GrantDenial | null {
  const g = grants.find((x) => x.tool === tool);
  const allowed = action === "approve" ? g?.canApprove : g?.canAuthor;
  if (!g || !allowed) return { code: "no_grant", tool };
  const limit = action === "approve" ? g.approveLimit : g.authorLimit;
  if (limit && amount && (amount.currency !== limit.currency || amount.minor > limit.minor)) {
    return { code: "over_limit", tool, limit, amount };
  }
  return null;
}

/**
 * Why a person with `grants` cannot author steps of `tool` ("needs a grant to author issue_refund
 * steps"), or null when a grant of theirs for it allows authoring (docs/design.md §1.7). What the
 * plan editor's "Add step" menu and "Suggest a step" list tools by; the server checks authorship
 * itself on every edit.
 */
export function authorBlock(grants: readonly Grant[], tool: string): string | null {
  const g = grants.find((x) => x.tool === tool);
  if (!g || !g.canAuthor) return `needs a grant to author ${tool} steps`;
  return null;
}
