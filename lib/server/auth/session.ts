import { headers as nextHeaders } from "next/headers";
import { DomainError } from "../../errors/domain-error";
import { INTEGRATION_SCOPES, parseStoredScopes, type IntegrationScope } from "../../api/integration-scopes";
import { auth } from "./auth";
import { grantsOf, loadViewer, type AgentCaller, type IntegrationCaller, type Viewer } from "./viewer";
import { recordDenial } from "./require-role";
import { serverConfig } from "../config/config";
import { bearerToken } from "../../net/bearer-token";
import { hashApiKey, keyPrefix } from "./api-keys";
import type { Actor } from "../audit-log/append-audit";
import { boundedOrigin } from "../audit-log/refusal-counts";
import { prisma } from "../db/db";
import { resolveDatabaseUrl } from "../db/database-url";
import { setRequestActor } from "../http/request-context";

/** Who calls (a person, an agent or an integration) and the plain reads of them (viewer.ts), for route handlers that also authenticate. */
export { agentDesk, deskScope, grantsOf, loadViewer, type AgentCaller, type IntegrationCaller, type Role, type Viewer } from "./viewer";
export { requireRole, type MissingAuthority } from "./require-role";

const SQLITE = resolveDatabaseUrl().provider === "sqlite";

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

const endpointOf = (req: Request) => {
  try {
    return `${req.method.toUpperCase()} ${new URL(req.url).pathname}`;
  } catch {
    return `${req.method.toUpperCase()} ${req.url}`;
  }
};

/** The agent behind a Bearer key, whether or not the key is still valid (for attribution only). */
async function agentOfKey(req: Request): Promise<{ agentId: string; keyId: string; revoked: boolean } | null> {
  const token = bearerToken(req.headers.get("authorization"));
  if (!token) return null;
  const key = await prisma.apiKey.findUnique({ where: { hash: hashApiKey(token) } });
  return key ? { agentId: key.agentId, keyId: key.id, revoked: key.revokedAt != null } : null;
}

/** Who a Bearer key belongs to — an agent or a ticketing integration — and the key's id, for attributing a refusal. */
async function ownerOfKey(req: Request): Promise<{ actor: Actor; keyId: string } | null> {
  const agent = await agentOfKey(req);
  if (agent) return { actor: { kind: "agent", id: agent.agentId }, keyId: agent.keyId };
  const token = bearerToken(req.headers.get("authorization"));
  const integration = token ? await prisma.integrationKey.findUnique({ where: { hash: hashApiKey(token) }, select: { id: true } }) : null;
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
 * Authenticates an agent by `Authorization: Bearer <key>`. A session cookie is not accepted.
 * Errors: 401 `unauthorized` for a missing, unknown, revoked or expired key (`expiresAt` at or
 * before now, UTC) — audited as `denied` (credential `expired_key` for an expired one)
 * (the agent when the key is known; the key's first 8 characters otherwise), except a read
 * with no credential at all.
 */
export async function requireAgent(req: Request): Promise<AgentCaller> {
  const action = endpointOf(req);
  const header = req.headers.get("authorization") ?? "";
  const token = bearerToken(header);
  if (!token) {
    const cookie = !!req.headers.get("cookie");
    const userId = cookie ? await sessionUserId(req.headers) : null;
    throw await recordDenial(
      req,
      userId ? { kind: "user", id: userId } : null,
      new DomainError("unauthorized", "Send the agent API key as 'Authorization: Bearer <key>'."),
      { action, missing: { kind: "agent_key" }, extra: cookie ? { credential: "session_cookie" } : header ? { credential: "malformed_authorization" } : {} },
    );
  }
  const key = await agentKeyByHash(hashApiKey(token));
  const now = new Date();
  if (key && !key.revoked && key.expiresAt && key.expiresAt.getTime() <= now.getTime()) {
    throw await recordDenial(
      req,
      { kind: "agent", id: key.agentId },
      new DomainError("unauthorized", `This API key expired at ${key.expiresAt.toISOString()}; an admin makes a new one under Admin → Agents.`),
      { action, missing: { kind: "agent_key" }, extra: { credential: "expired_key", keyId: key.id } },
    );
  }
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
        extra: key ? { credential: "revoked_key", keyId: key.id } : owner ? { credential: "integration_key", keyId: owner.keyId } : { credential: "unknown_key", keyPrefix: keyPrefix(token) },
      },
    );
  }
  setRequestActor({ kind: "agent", id: key.agentId });
  // "last used" for the admins' list: written only when the stored time is over a minute old, so
  // the decision path reads it with the key and adds no statement to most requests
  if (!key.lastUsedAt || now.getTime() - key.lastUsedAt.getTime() > LAST_USE_RESOLUTION_MS) {
    await prisma.apiKey.updateMany({ where: { id: key.id, OR: [{ lastUsedAt: null }, { lastUsedAt: { lt: new Date(now.getTime() - LAST_USE_RESOLUTION_MS) } }] }, data: { lastUsedAt: now } });
  }
  return { id: key.agentId, name: key.name, allowedTools: key.allowedTools, keyId: key.id, desk: key.desk };
}

/** How fresh a key's stored "last used" is kept, in ms: it is written at most once per this interval. */
const LAST_USE_RESOLUTION_MS = 60_000;

/** A timestamp column read by a raw query: a Date on PostgreSQL, ISO text or epoch milliseconds on SQLite; null stays null. */
function rawTime(v: unknown): Date | null {
  if (v === null || v === undefined) return null;
  const d = v instanceof Date ? v : new Date(typeof v === "bigint" ? Number(v) : (v as string | number));
  return Number.isNaN(d.getTime()) ? null : d;
}

/**
 * The agent key whose SHA-256 is `hash` with its agent, in ONE statement (a join; a relation
 * `include` would be two), or null when no key has that hash. `revoked` is true once the key's
 * `revokedAt` is set; `allowedTools` is the agent's allowlist (a stored JSON array; anything
 * else reads as none); `expiresAt` and `lastUsedAt` as Dates. Read on every request: a revoked
 * or expired key is refused at once.
 */
async function agentKeyByHash(hash: string): Promise<{ id: string; agentId: string; revoked: boolean; name: string; desk: string; allowedTools: string[]; expiresAt: Date | null; lastUsedAt: Date | null } | null> {
  const rows = await prisma.$queryRaw<{ id: string; agentId: string; revoked: number | bigint; name: string; desk: string; allowedTools: unknown; expiresAt: unknown; lastUsedAt: unknown }[]>`
    SELECT k."id", k."agentId", CASE WHEN k."revokedAt" IS NULL THEN 0 ELSE 1 END AS "revoked", a."name", a."desk", a."allowedTools", k."expiresAt", k."lastUsedAt"
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
    expiresAt: rawTime(row.expiresAt),
    lastUsedAt: rawTime(row.lastUsedAt),
  };
}

/**
 * Authenticates a ticketing integration by `Authorization: Bearer <integration key>` (* task revisions come from the ticketing system, not from agents). Errors: 401 `unauthorized`
 * for a missing, unknown or revoked key; 403 `forbidden` for a valid AGENT key (an agent may not
 * rewrite the task its approvals are bound to) — both audited as `denied`.
 */
export async function requireIntegration(req: Request): Promise<IntegrationCaller> {
  const action = endpointOf(req);
  const token = bearerToken(req.headers.get("authorization"));
  if (token) {
    const key = await prisma.integrationKey.findUnique({ where: { hash: hashApiKey(token) } });
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
      extra: key ? { credential: "revoked_key", keyId: key.id } : { credential: "unknown_key", keyPrefix: keyPrefix(token) },
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
