import { formatMoney, type Money } from "../money/format-money";

/**
 * Human descriptions of `denied` audit events (docs/design.md §11: every refused authorisation is
 * on the record). The events come from several writers with different detail shapes:
 * - requireViewer / requireAgent / requireRole / handle(): `{action, code, reason, missing:
 *   {kind: "role" | "session" | "person" | "agent_key" | "same_origin", ...}, endpoint}`;
 * - approvals: `{action: "approve", stepId, tool, missing: {code: "no_grant" | "over_limit", tool, limit?, amount?}}`;
 * - edits: `{action: "author", issues: [{code: "authorship_denied", details: {tool, denial, limit?, amount?}}]}`;
 * - reconcile: `{action: "reconcile", stepId, role}`; outcome reports: `{action: "report_outcome", code}`.
 * Pure; never throws on unexpected shapes.
 */
export interface DenialSummary {
  /** What was tried, e.g. "approve", "admin.create_user", "POST /api/runs/…/edits". */
  action: string;
  /** The endpoint, when the refusal happened in an API request. */
  endpoint: string | null;
  /** What the caller lacked, e.g. "approve grant for issue_refund above $500.00 (asked $500.01)". */
  missing: string;
  /** The refusal code, e.g. "forbidden", "approval_denied". */
  code: string | null;
  /** The message the caller got. */
  reason: string | null;
}

type Rec = Record<string, unknown>;
const isRec = (v: unknown): v is Rec => typeof v === "object" && v !== null && !Array.isArray(v);
const str = (v: unknown): string | null => (typeof v === "string" && v ? v : null);
const isMoney = (v: unknown): v is Money => isRec(v) && typeof v.minor === "number" && typeof v.currency === "string";
const money = (v: unknown): string => {
  if (!isMoney(v)) return "?";
  try {
    return formatMoney(v);
  } catch {
    return `${v.minor} ${v.currency} minor units`;
  }
};

function grantMissing(verb: "approve" | "author", tool: string, denial: string | null, limit: unknown, amount: unknown): string {
  if (denial === "over_limit") return `${verb} grant for ${tool} above ${money(limit)} (asked ${money(amount)})`;
  return `${verb} grant for ${tool}`;
}

function roleList(v: unknown): string {
  const roles = Array.isArray(v) ? v.filter((r): r is string => typeof r === "string") : [];
  return roles.length ? `role ${roles.join(" or ")}` : "a role";
}

/** What a denial event's `data` says was tried and what was missing. */
export function describeDenial(data: unknown): DenialSummary {
  const d = isRec(data) ? data : {};
  const action = str(d.action) ?? str(d.endpoint) ?? "unknown action";
  // A refused credential's first refusal of a minute stands for the rest of that minute (lib/server/auth/auth-refusals.ts).
  const repeats = d.repeatsCounted === true ? "; repeats in the same minute are counted, not listed" : "";
  const out = (missing: string): DenialSummary => ({ action, endpoint: str(d.endpoint), missing: missing + repeats, code: str(d.code), reason: str(d.reason) });
  if (typeof d.missing === "string" && d.missing) return out(d.missing);
  const m = isRec(d.missing) ? d.missing : null;
  if (m) {
    switch (m.kind) {
      case "role":
        return out(roleList(m.anyOf));
      case "session":
        return out(d.userDisabled ? "an enabled account (the user is disabled)" : "a signed-in session");
      case "person":
        return out("a person's session (agent keys are refused on the operator API)");
      case "agent_key": {
        const cred = str(d.credential);
        const why = cred === "revoked_key" ? " (the key is revoked)" : cred === "unknown_key" ? " (unknown key)" : cred === "integration_key" ? " (an integration key is refused on the agent API)" : cred === "session_cookie" ? " (a session cookie is refused on /api/v1)" : "";
        return out(`a valid agent API key${why}`);
      }
      case "scope":
        return out(`the integration key's scope "${str(m.scope) ?? "?"}"`);
      case "same_origin":
        return out(`a same-origin request (Origin: ${str(m.origin) ?? "missing"})`);
    }
    if (m.code === "no_grant" || m.code === "over_limit") {
      const verb = action === "author" ? "author" : "approve";
      return out(grantMissing(verb, str(m.tool) ?? str(d.tool) ?? "this tool", str(m.code), m.limit, m.amount));
    }
  }
  if (Array.isArray(d.issues)) {
    const parts = d.issues
      .filter(isRec)
      .filter((i) => i.code === "authorship_denied")
      .map((i) => {
        const det = isRec(i.details) ? i.details : {};
        return grantMissing("author", str(det.tool) ?? "a tool", str(det.denial), det.limit, det.amount);
      });
    if (parts.length) return out([...new Set(parts)].join("; "));
  }
  if (action === "reconcile") return out("role supervisor or admin");
  if (d.code === "invalid_claim_token") return out("a valid claim token for this step");
  if (d.code === "cross_origin") return out("a same-origin request");
  if (d.code === "unauthorized") return out("a valid credential");
  return out(str(d.code) ?? "—");
}
