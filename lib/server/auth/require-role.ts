/**
 * Refusing a caller who lacks authority, and recording it (docs/design.md: denials are data):
 * `requireRole` for a signed-in person, `recordDenial` for every refusal the request
 * authentication of lib/server/auth/session.ts makes. No sign-in library here, so domain code
 * that checks a role does not load it.
 */
import { DomainError } from "../../errors/domain-error";
import type { IntegrationScope } from "../../api/integration-scopes";
import { appendAudit, type Actor } from "../audit-log/append-audit";
import { countCurrentAnonymousRefusal } from "../audit-log/refusal-counts";
import { refuseCredential } from "./auth-refusals";
import { prisma } from "../db/db";
import { markDenialHandled } from "../http/request-context";
import type { Role, Viewer } from "./viewer";

/** Methods that only read; a signed-out read is not recorded as a denial (see `recordDenial`). */
const READ_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

/**
 * What a refused request lacked, as stored in a `denied` event's `data.missing`:
 * a role, a session, a person (agent key on the operator API), an agent key, or the same origin.
 */
export type MissingAuthority =
  | { kind: "role"; anyOf: Role[] }
  | { kind: "session" }
  | { kind: "person" }
  | { kind: "agent_key" }
  | { kind: "integration_key" }
  | { kind: "scope"; scope: IntegrationScope; keyScopes: IntegrationScope[] }
  | { kind: "same_origin"; origin: string | null };

/**
 * Deals with one refusal and returns the error to throw (docs/design.md §11: denials are data).
 * `who` is the caller if known. `data` = `{action, code, reason, missing, ...extra}`; the endpoint
 * is added by `appendAudit` while an API request is handled.
 * - A refusal while authenticating (`req` given: a refused credential, a foreign Origin) goes
 *   through `refuseCredential` (lib/server/auth/auth-refusals.ts): counted per (minute, the key's
 *   or person's id — or the client address when nobody is identified —, route, code); only the
 *   first of each minute is a `denied` event; past the client address's refused-credential rate
 *   the answer is 429 `rate_limited` instead.
 * - A refusal of an authenticated person (`req` null: the role) is one `denied` event each; the
 *   person's rate limit bounds them.
 * Not recorded (but still refused): a read (GET) with no credential at all, or an expired one —
 * a signed-out browser tab polling the queue would otherwise fill the log with nobody's refusals.
 */
export async function recordDenial(
  req: Request | null,
  who: Actor | null,
  err: DomainError,
  detail: { action: string; missing: MissingAuthority; runId?: string | null; extra?: Record<string, unknown> },
): Promise<DomainError> {
  const quietRead =
    req !== null &&
    READ_METHODS.has(req.method.toUpperCase()) &&
    !who &&
    (detail.missing.kind === "session" || detail.missing.kind === "agent_key") &&
    !detail.extra?.credential;
  if (quietRead) {
    markDenialHandled();
    return err;
  }
  if (req !== null) {
    const origin = detail.missing.kind === "same_origin" ? detail.missing.origin : (req.headers.get("origin") ?? null);
    return refuseCredential({ who, err, action: detail.action, missing: detail.missing, origin, extra: detail.extra, runId: detail.runId });
  }
  if (!who) {
    // Nobody identified: counted per (address, route, minute), not written as its own event (a
    // flood of anonymous requests must not grow the append-only log); see audit-log/refusal-counts.ts.
    await countCurrentAnonymousRefusal(err.code, detail.missing.kind, null, detail.action);
    markDenialHandled();
    return err;
  }
  await appendAudit(prisma, {
    runId: detail.runId ?? null,
    type: "denied",
    actor: who,
    data: { action: detail.action, code: err.code, reason: err.message, missing: detail.missing, ...(detail.extra ?? {}) },
  });
  return err;
}

/**
 * Refuses `viewer` unless their role is one of `roles`: 403 `forbidden`, audited as `denied`
 * with `{action, missing: {kind: "role", anyOf: roles}, role}`. `action` names what was tried
 * (e.g. "admin.create_user", "view /denials"). Use it in pages, route handlers, actions and
 * lib functions alike.
 */
export async function requireRole(
  viewer: Pick<Viewer, "id" | "role">,
  roles: readonly Role[],
  action: string,
  opts: { runId?: string | null } = {},
): Promise<void> {
  if (roles.includes(viewer.role)) return;
  const names = roles.length === 1 ? `the ${roles[0]} role` : `one of the roles ${roles.join(", ")}`;
  throw await recordDenial(null, { kind: "user", id: viewer.id }, new DomainError("forbidden", `This needs ${names}; you are signed in as ${viewer.role}.`, { requiredRoles: roles }), {
    action,
    missing: { kind: "role", anyOf: [...roles] },
    runId: opts.runId,
    extra: { role: viewer.role },
  });
}
