/**
 * Ending every session of a person because their identity provider says they are gone: the
 * provider refused their token refresh (./oidc-plugin.ts) or sent a back-channel logout
 * (lib/server/sso/backchannel-logout.ts). It lives with sign-in (lib/server/auth), which the SSO
 * folder already depends on, so the two folders never import each other.
 */
import { appendAudit } from "../audit-log/append-audit";
import { inTransaction, ok } from "../db/transaction";
import { recordSessionEnd } from "../feed/live-feed";

/** Why a provider ended a person's sessions, as the audit event names it. */
export type SsoSessionEndReason = "refresh_refused" | "backchannel_logout";

/**
 * Ends every session of `userId` and tells their live streams (on every instance); audited
 * `admin_change` {what: "user.sessions_end.sso", provider, reason} by the system, with the
 * number of sessions ended. Returns that number (0 when they had none: still audited).
 */
export async function endSsoSessionsOf(userId: string, providerId: string, reason: SsoSessionEndReason): Promise<number> {
  return inTransaction(async (tx) => {
    const { count } = await tx.session.deleteMany({ where: { userId } });
    await recordSessionEnd(tx, userId);
    await appendAudit(tx, { type: "admin_change", actor: { kind: "system" }, data: { what: "user.sessions_end.sso", target: { kind: "user", id: userId }, before: { sessions: count }, after: { sessions: 0 }, provider: providerId, reason } });
    return ok(count);
  });
}
