import { headers as nextHeaders } from "next/headers";
import { DEFAULT_DESK } from "../../desk/desks";
import { DomainError } from "../../errors/domain-error";
import type { Prisma } from "../../generated/prisma/client";
import type { Grant } from "../../people/grants";
import type { Currency } from "../../money/format-money";
import { INTEGRATION_SCOPES, parseStoredScopes, type IntegrationScope } from "../../api/integration-scopes";
import { auth } from "./auth";
import { serverConfig } from "../config/config";
import { hashApiKey, keyPrefix } from "./api-keys";
import { appendAudit, type Actor } from "../audit-log/append-audit";
import { boundedOrigin, countCurrentAnonymousRefusal } from "../audit-log/refusal-counts";
import { refuseCredential } from "./auth-refusals";
import { prisma } from "../db/db";
import { resolveDatabaseUrl } from "../db/database-url";
import { markDenialHandled, setRequestActor } from "../http/request-context";

const SQLITE = resolveDatabaseUrl().provider === "sqlite";

/** A signed-in person as route handlers and pages see them, with their grants loaded once. */
export interface Viewer {
  id: string;
  name: string;
  email: string;
  role: "operator" | "supervisor" | "admin";
  /** The exceptions desk an operator works; supervisors and admins see every desk. */
  desk: string;
  grants: Grant[];
}

/** The calling integration (a ticketing or record system; its own credential, not an agent's). */
export interface IntegrationCaller {
  id: string;
  name: string;
  /** The desk whose tasks the key may post ticket events for; null or absent: every desk. */
  desk?: string | null;
  /** What the key may do (lib/api/integration-scopes.ts); absent (hand-built callers in tests): every scope. */
  scopes?: readonly IntegrationScope[];
}

/** The calling agent of an `/api/v1` request. */
export interface AgentCaller {
  id: string;
  name: string;
  allowedTools: string[];
  keyId: string;
  /**
   * The tenant desk the agent works: it reads and submits for that desk's tasks only and reaches
   * only that desk's runs. Absent (hand-built callers in tests) means the default desk.
   */
  desk?: string;
}

/** The tenant desk of an agent caller (`DEFAULT_DESK` when the caller names none). */
export function agentDesk(agent: Pick<AgentCaller, "desk">): string {
  return agent.desk ?? DEFAULT_DESK;
}

/**
 * Loads the signed-in, non-disabled user for `headers` (session cookie), or null.
 * Reads the database on every call (no cookie cache), so a disabled user is refused at once.
 */
export async function getViewer(headers?: Headers): Promise<Viewer | null> {
  const h = headers ?? (await nextHeaders());
  const session = await auth.api.getSession({ headers: h });
  if (!session) return null;
  return viewerOfSessionUser(session.user);
}

/** The fields of a session's user (as better-auth read it with the session, lib/server/auth/auth.ts) a `Viewer` is built from. */
type SessionUser = { id: string; name: string; email: string; role?: string | null; desk?: string | null; disabled?: boolean | null };

/**
 * The viewer of a session whose user better-auth has just read from the database (with the
 * session, no cookie cache): null when that user is disabled; else the person with their grants,
 * read now (one statement). So a disabled user or a revoked grant takes effect on the next request,
 * without a second read of the user row.
 */
async function viewerOfSessionUser(user: SessionUser): Promise<Viewer | null> {
  if (user.disabled === true) return null;
  // A user row read without these columns (not expected): read the person in full instead.
  if (user.disabled !== false || typeof user.desk !== "string") return loadViewer(user.id);
  const grants = await prisma.grant.findMany({ where: { userId: user.id } });
  return {
    id: user.id,
    name: user.name,
    email: user.email,
    role: (["operator", "supervisor", "admin"].includes(user.role ?? "") ? user.role : "operator") as Viewer["role"],
    desk: user.desk,
    grants: grantsOf(grants),
  };
}

/**
 * Loads a person with their role and grants by user id; null when unknown or disabled.
 * Grants' ceilings come back as Money (minor units + currency).
 */
export async function loadViewer(userId: string): Promise<Viewer | null> {
  const user = await prisma.user.findUnique({ where: { id: userId }, include: { grants: true } });
  if (!user || user.disabled) return null;
  return {
    id: user.id,
    name: user.name,
    email: user.email,
    role: (["operator", "supervisor", "admin"].includes(user.role) ? user.role : "operator") as Viewer["role"],
    desk: user.desk,
    grants: grantsOf(user.grants),
  };
}

/** Grant rows (ceilings as minor units + currency columns) as `Grant`s with Money ceilings. */
export function grantsOf(rows: readonly Prisma.GrantGetPayload<object>[]): Grant[] {
  return rows.map((g) => ({
    tool: g.tool,
    canApprove: g.canApprove,
    approveLimit: g.approveLimitMinor != null ? { minor: g.approveLimitMinor, currency: (g.approveLimitCurrency ?? "USD") as Currency } : null,
    canAuthor: g.canAuthor,
    authorLimit: g.authorLimitMinor != null ? { minor: g.authorLimitMinor, currency: (g.authorLimitCurrency ?? "USD") as Currency } : null,
  }));
}

/** The roles a person can hold (docs/design.md "People and machines"). */
export type Role = Viewer["role"];

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
async function recordDenial(
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

const endpointOf = (req: Request) => {
  try {
    return `${req.method.toUpperCase()} ${new URL(req.url).pathname}`;
  } catch {
    return `${req.method.toUpperCase()} ${req.url}`;
  }
};

/** The agent behind a Bearer key, whether or not the key is still valid (for attribution only). */
async function agentOfKey(req: Request): Promise<{ agentId: string; keyId: string; revoked: boolean } | null> {
  const m = /^Bearer\s+(\S+)$/i.exec(req.headers.get("authorization") ?? "");
  if (!m) return null;
  const key = await prisma.apiKey.findUnique({ where: { hash: hashApiKey(m[1]) } });
  return key ? { agentId: key.agentId, keyId: key.id, revoked: key.revokedAt != null } : null;
}

/** Who a Bearer key belongs to — an agent or a ticketing integration — and the key's id, for attributing a refusal. */
async function ownerOfKey(req: Request): Promise<{ actor: Actor; keyId: string } | null> {
  const agent = await agentOfKey(req);
  if (agent) return { actor: { kind: "agent", id: agent.agentId }, keyId: agent.keyId };
  const m = /^Bearer\s+(\S+)$/i.exec(req.headers.get("authorization") ?? "");
  const integration = m ? await prisma.integrationKey.findUnique({ where: { hash: hashApiKey(m[1]) }, select: { id: true } }) : null;
  return integration ? { actor: { kind: "integration", id: integration.id }, keyId: integration.id } : null;
}

/** The user behind the session cookie, even a disabled one (for attribution only). */
async function sessionUserId(headers: Headers): Promise<string | null> {
  if (!headers.get("cookie")) return null;
  const session = await auth.api.getSession({ headers }).catch(() => null);
  return session?.user.id ?? null;
}

/**
 * Authenticates an operator API request, in this order: 401 `unauthorized` when an agent key is
 * sent (agent keys work only on /api/v1); 403 `cross_origin` when `mutating` and the `Origin`
 * header is missing or not PLANDESK_URL's origin; 401 `unauthorized` when no valid session
 * exists or the user is disabled. Every refusal is audited as `denied` (who if known, the endpoint, what was missing),
 * except a signed-out read (see `recordDenial`).
 */
export async function requireViewer(req: Request, opts: { mutating?: boolean } = {}): Promise<Viewer> {
  const action = endpointOf(req);
  // An agent key first: it is the more specific mistake (agents send no Origin either).
  if (req.headers.get("authorization")) {
    const owner = await ownerOfKey(req);
    throw await recordDenial(
      req,
      owner?.actor ?? null,
      new DomainError("unauthorized", "Agent API keys are not accepted here; sign in as a person."),
      { action, missing: { kind: "person" }, extra: { credential: "agent_key", ...(owner ? { keyId: owner.keyId } : {}) } },
    );
  }
  if (opts.mutating && !isSameOrigin(req)) {
    // Attributed to the session's user when the cookie is valid: a forged cross-site request rides on it.
    const userId = await sessionUserId(req.headers);
    throw await recordDenial(
      req,
      userId ? { kind: "user", id: userId } : null,
      new DomainError("cross_origin", "This request must come from the Plandesk console itself."),
      { action, missing: { kind: "same_origin", origin: boundedOrigin(req.headers.get("origin")) } },
    );
  }
  const session = req.headers.get("cookie") ? await auth.api.getSession({ headers: req.headers }) : null;
  if (!session) {
    throw await recordDenial(req, null, new DomainError("unauthorized", "Sign in to continue."), { action, missing: { kind: "session" } });
  }
  const viewer = await viewerOfSessionUser(session.user);
  if (!viewer) {
    throw await recordDenial(
      req,
      { kind: "user", id: session.user.id },
      new DomainError("unauthorized", "This account is disabled. Ask an administrator."),
      { action, missing: { kind: "session" }, extra: { credential: "session", userDisabled: true } },
    );
  }
  setRequestActor({ kind: "user", id: viewer.id });
  return viewer;
}

/** True when the request's `Origin` is PLANDESK_URL's origin. */
function isSameOrigin(req: Request): boolean {
  const origin = req.headers.get("origin");
  return !!origin && origin === serverConfig().origin;
}

/** Refuses a mutating request whose `Origin` is missing or foreign (403 `cross_origin`; not audited — prefer requireViewer). */
export function assertSameOrigin(req: Request): void {
  if (!isSameOrigin(req)) {
    throw new DomainError("cross_origin", "This request must come from the Plandesk console itself.");
  }
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

/**
 * Authenticates an agent by `Authorization: Bearer <key>`. A session cookie is not accepted.
 * Errors: 401 `unauthorized` for a missing, unknown or revoked key — audited as `denied`
 * (the agent when the key is known; the key's first 8 characters otherwise), except a read
 * with no credential at all.
 */
export async function requireAgent(req: Request): Promise<AgentCaller> {
  const action = endpointOf(req);
  const header = req.headers.get("authorization") ?? "";
  const m = /^Bearer\s+(\S+)$/i.exec(header);
  if (!m) {
    const cookie = !!req.headers.get("cookie");
    const userId = cookie ? await sessionUserId(req.headers) : null;
    throw await recordDenial(
      req,
      userId ? { kind: "user", id: userId } : null,
      new DomainError("unauthorized", "Send the agent API key as 'Authorization: Bearer <key>'."),
      { action, missing: { kind: "agent_key" }, extra: cookie ? { credential: "session_cookie" } : header ? { credential: "malformed_authorization" } : {} },
    );
  }
  const key = await agentKeyByHash(hashApiKey(m[1]));
  if (!key || key.revoked) {
    // Not an agent key: an integration key is named (by its id) as what was presented; an unknown key is nobody's.
    const owner = key ? null : await ownerOfKey(req);
    throw await recordDenial(
      req,
      key ? { kind: "agent", id: key.agentId } : (owner?.actor ?? null),
      new DomainError("unauthorized", "This API key is unknown or revoked."),
      {
        action,
        missing: { kind: "agent_key" },
        extra: key ? { credential: "revoked_key", keyId: key.id } : owner ? { credential: "integration_key", keyId: owner.keyId } : { credential: "unknown_key", keyPrefix: keyPrefix(m[1]) },
      },
    );
  }
  setRequestActor({ kind: "agent", id: key.agentId });
  return { id: key.agentId, name: key.name, allowedTools: key.allowedTools, keyId: key.id, desk: key.desk };
}

/**
 * The agent key whose SHA-256 is `hash` with its agent, in ONE statement (a join; a relation
 * `include` would be two), or null when no key has that hash. `revoked` is true once the key's
 * `revokedAt` is set; `allowedTools` is the agent's allowlist (a stored JSON array; anything
 * else reads as none). Read on every request: a revoked key is refused at once.
 */
async function agentKeyByHash(hash: string): Promise<{ id: string; agentId: string; revoked: boolean; name: string; desk: string; allowedTools: string[] } | null> {
  const rows = await prisma.$queryRaw<{ id: string; agentId: string; revoked: number | bigint; name: string; desk: string; allowedTools: unknown }[]>`
    SELECT k."id", k."agentId", CASE WHEN k."revokedAt" IS NULL THEN 0 ELSE 1 END AS "revoked", a."name", a."desk", a."allowedTools"
    FROM "api_key" k JOIN "agent" a ON a."id" = k."agentId" WHERE k."hash" = ${hash}`;
  const row = rows[0];
  if (!row) return null;
  // A JSON column comes back parsed on PostgreSQL and as its text on SQLite.
  const tools: unknown = SQLITE && typeof row.allowedTools === "string" ? JSON.parse(row.allowedTools) : row.allowedTools;
  return {
    id: row.id,
    agentId: row.agentId,
    revoked: Number(row.revoked) !== 0,
    name: row.name,
    desk: row.desk,
    allowedTools: Array.isArray(tools) ? tools.filter((t): t is string => typeof t === "string") : [],
  };
}

/**
 * Authenticates a ticketing integration by `Authorization: Bearer <integration key>` (* task revisions come from the ticketing system, not from agents). Errors: 401 `unauthorized`
 * for a missing, unknown or revoked key; 403 `forbidden` for a valid AGENT key (an agent may not
 * rewrite the task its approvals are bound to) — both audited as `denied`.
 */
export async function requireIntegration(req: Request): Promise<IntegrationCaller> {
  const action = endpointOf(req);
  const m = /^Bearer\s+(\S+)$/i.exec(req.headers.get("authorization") ?? "");
  if (m) {
    const key = await prisma.integrationKey.findUnique({ where: { hash: hashApiKey(m[1]) } });
    if (key && !key.revokedAt) {
      setRequestActor({ kind: "integration", id: key.id });
      // "last used" for the admins' list, written at most once a minute
      const now = new Date();
      await prisma.integrationKey.updateMany({
        where: { id: key.id, OR: [{ lastUsedAt: null }, { lastUsedAt: { lt: new Date(now.getTime() - 60_000) } }] },
        data: { lastUsedAt: now },
      });
      return { id: key.id, name: key.name, desk: key.desk ?? null, scopes: parseStoredScopes(key.scopes) };
    }
    const agent = await agentOfKey(req);
    if (agent && !agent.revoked) {
      throw await recordDenial(
        req,
        { kind: "agent", id: agent.agentId },
        new DomainError("forbidden", "Agent keys cannot revise tasks: task revisions come from the ticketing integration (its own key)."),
        { action, missing: { kind: "integration_key" }, extra: { credential: "agent_key", keyId: agent.keyId } },
      );
    }
    throw await recordDenial(req, key ? { kind: "integration", id: key.id } : null, new DomainError("unauthorized", "This integration key is unknown or revoked."), {
      action,
      missing: { kind: "integration_key" },
      extra: key ? { credential: "revoked_key", keyId: key.id } : { credential: "unknown_key", keyPrefix: keyPrefix(m[1]) },
    });
  }
  const cookie = !!req.headers.get("cookie");
  const userId = cookie ? await sessionUserId(req.headers) : null;
  throw await recordDenial(req, userId ? { kind: "user", id: userId } : null, new DomainError("unauthorized", "Send the integration key as 'Authorization: Bearer <key>'."), {
    action,
    missing: { kind: "integration_key" },
    extra: cookie ? { credential: "session_cookie" } : {},
  });
}

/**
 * Refuses an integration key that does not hold `scope` (lib/api/integration-scopes.ts): 403
 * `key_scope_missing` {scope, keyScopes}, audited as `denied` {action, missing: {kind: "scope",
 * scope, keyScopes}} naming the integration — after the key's rate-limit token, so its rate bounds
 * these events. The route wrapper calls it with the scope an endpoint declares; `action` names what
 * was tried ("POST /api/v1/records/batch").
 */
export async function requireIntegrationScope(caller: Pick<IntegrationCaller, "id" | "scopes">, scope: IntegrationScope, action: string): Promise<void> {
  const keyScopes = [...(caller.scopes ?? INTEGRATION_SCOPES)];
  if (keyScopes.includes(scope)) return;
  const held = keyScopes.length ? `it holds only ${keyScopes.map((s) => `"${s}"`).join(" and ")}` : "it holds none";
  throw await recordDenial(
    null,
    { kind: "integration", id: caller.id },
    new DomainError("key_scope_missing", `This integration key lacks the scope "${scope}" (${held}); an admin creates a key with it.`, { scope, keyScopes }),
    { action, missing: { kind: "scope", scope, keyScopes } },
  );
}

/**
 * Object-level scope of runs for `viewer`: an operator reaches only the runs of their
 * own desk (the desk of the ticket's customer account); supervisors and admins reach all desks.
 * Used in the `where` of every run lookup, so another desk's run is simply not found (404).
 */
export function deskScope(viewer: Pick<Viewer, "role" | "desk">): Prisma.RunWhereInput {
  return viewer.role === "operator" ? { desk: viewer.desk } : {};
}
