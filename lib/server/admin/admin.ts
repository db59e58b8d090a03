import { nanoid } from "nanoid";
import type { ZodType } from "zod";
import type { AdminUserView, AgentView, ApiKeyView, GrantView } from "../../api/schemas";
import {
  createAgentSchema,
  createApiKeySchema,
  createUserSchema,
  grantInputSchema,
  toolMovesMoney,
  updateUserSchema,
  type Ceiling,
  type CreateAgentInput,
  type CreateUserInput,
  type GrantInput,
  type RoleName,
  type UpdateUserInput,
} from "../../people/admin-schemas";
import { DEFAULT_DESK, updateAgentSchema, type UpdateAgentInput } from "../../desk/desks";
import { DomainError } from "../../errors/domain-error";
import type { Prisma } from "../../generated/prisma/client";
import type { Currency } from "../../money/format-money";
import { getTool } from "../../tools/builtin-tools";
import { currentCatalog } from "../tools/imported-tools";
import { generateApiKey, hashApiKey, keyPrefix } from "../auth/api-keys";
import { appendAudit, type Actor } from "../audit-log/append-audit";
import { assertEmailFree, insertUserRecord } from "./bootstrap";
import { prisma } from "../db/db";
import { assertDeskExists } from "./desks";
import { recordSessionEnd } from "../feed/live-feed";
import { afterCreated, nextCursorOf, pageSize } from "../db/pagination";
import { requireRole } from "../auth/require-role";
import type { Viewer } from "../auth/viewer";
import { inTransaction, ok } from "../db/transaction";

/**
 * Administration of people, grants, agents and API keys (docs/design.md "People and machines":
 * the admin role). Every function checks the admin role itself (`requireRole`,
 * which audits a refusal as `denied`) and audits every change as `admin_change`
 * `{what, target, before, after}`. Inputs are parsed again with the shared schemas of
 * lib/people/admin-schemas.ts, so a caller that skipped the route handler gets the same checks.
 */

type Admin = Pick<Viewer, "id" | "role">;
type Tx = Prisma.TransactionClient;

/** The admin views are the API's response shapes (lib/api/schemas.ts), declared once. */
export type { AdminUserView, AgentView, ApiKeyView, GrantView };

const asRole = (r: string): RoleName => (r === "supervisor" || r === "admin" ? r : "operator");

/**
 * `input` parsed by `schema`. Errors: 422 `validation_failed` {issues} when the only problems are
 * numbers above their maximum (e.g. a ceiling beyond what a money column holds); otherwise 400
 * `bad_request` {issues}.
 */
function parse<T>(schema: ZodType<T>, input: unknown): T {
  const r = schema.safeParse(input);
  if (!r.success) {
    const tooBig = r.error.issues.every((i) => i.code === "too_big" && (i as { origin?: string }).origin === "number");
    throw new DomainError(tooBig ? "validation_failed" : "bad_request", r.error.issues.map((i) => i.message).join("; "), {
      issues: r.error.issues.map((i) => ({ path: i.path.map(String).join("."), message: i.message })),
    });
  }
  return r.data;
}

const userInclude = { _count: { select: { grants: true } }, sessions: { select: { expiresAt: true } } } as const;
type UserRow = Prisma.UserGetPayload<{ include: typeof userInclude }>;

function toUserView(u: UserRow, now = new Date()): AdminUserView {
  return {
    id: u.id,
    name: u.name,
    email: u.email,
    role: asRole(u.role),
    desk: u.desk,
    disabled: u.disabled,
    createdAt: u.createdAt.toISOString(),
    grantCount: u._count.grants,
    activeSessions: u.sessions.filter((s) => s.expiresAt > now).length,
  };
}

const money = (minor: number | null, currency: string | null): Ceiling => (minor == null ? null : { minor, currency: (currency ?? "USD") as Currency });

function toGrantView(tool: string, g: { canApprove: boolean; approveLimitMinor: number | null; approveLimitCurrency: string | null; canAuthor: boolean; authorLimitMinor: number | null; authorLimitCurrency: string | null } | null, label?: string): GrantView {
  return {
    tool,
    label: label ?? getTool(tool)?.label ?? tool,
    movesMoney: toolMovesMoney(tool),
    canApprove: g?.canApprove ?? false,
    approveLimit: g ? money(g.approveLimitMinor, g.approveLimitCurrency) : null,
    canAuthor: g?.canAuthor ?? false,
    authorLimit: g ? money(g.authorLimitMinor, g.authorLimitCurrency) : null,
  };
}

function toKeyView(k: { id: string; prefix: string; name: string | null; createdAt: Date; revokedAt: Date | null; expiresAt: Date | null; lastUsedAt: Date | null }): ApiKeyView {
  return {
    id: k.id,
    prefix: k.prefix,
    name: k.name,
    createdAt: k.createdAt.toISOString(),
    revokedAt: k.revokedAt?.toISOString() ?? null,
    expiresAt: k.expiresAt?.toISOString() ?? null,
    lastUsedAt: k.lastUsedAt?.toISOString() ?? null,
  };
}

const agentInclude = { apiKeys: { orderBy: { createdAt: "asc" } }, _count: { select: { runs: true } } } as const;
function toAgentView(a: Prisma.AgentGetPayload<{ include: typeof agentInclude }>): AgentView {
  return {
    id: a.id,
    name: a.name,
    desk: a.desk,
    allowedTools: Array.isArray(a.allowedTools) ? (a.allowedTools as string[]) : [],
    createdAt: a.createdAt.toISOString(),
    runCount: a._count.runs,
    keys: a.apiKeys.map(toKeyView),
  };
}

async function audit(tx: Tx | typeof prisma, actor: Actor, what: string, target: { kind: string; id: string }, before: unknown, after: unknown, extra: Record<string, unknown> = {}) {
  await appendAudit(tx, { type: "admin_change", actor, data: { what, target, before: before ?? null, after: after ?? null, ...extra } });
}

// ── people ────────────────────────────────────────────────────────────────────

/** All people, admins first, then by name. Errors: 403 `forbidden` unless admin. */
export async function listUsers(
  admin: Admin,
  opts: { cursor?: string | null; limit?: number } = {},
  now = new Date(),
): Promise<{ users: AdminUserView[]; nextCursor: string | null }> {
  await requireRole(admin, ["admin"], "admin.list_users");
  const limit = pageSize(opts.limit, 100);
  const after = opts.cursor ? decodeName(opts.cursor) : null;
  const rows = await prisma.user.findMany({
    where: after ? { OR: [{ name: { gt: after.name } }, { name: after.name, id: { gt: after.id } }] } : {},
    include: userInclude,
    orderBy: [{ name: "asc" }, { id: "asc" }],
    take: limit + 1,
  });
  return { users: rows.slice(0, limit).map((u) => toUserView(u, now)), nextCursor: nextCursorOf(rows, limit, (u) => u.name) };
}

/** The (name, id) position a users cursor stands for. Errors: 400 `bad_request`. */
function decodeName(cursor: string): { name: string; id: string } {
  const text = Buffer.from(cursor, "base64url").toString("utf8");
  const at = text.lastIndexOf("|");
  if (at <= 0) throw new DomainError("bad_request", "This page cursor is not valid; start again from the first page.");
  return { name: text.slice(0, at), id: text.slice(at + 1) };
}

/** One person with a grant row per known tool. Errors: 403 `forbidden`; 404 `not_found`. */
export async function getUserDetail(admin: Admin, userId: string, now = new Date()): Promise<{ user: AdminUserView; grants: GrantView[] }> {
  await requireRole(admin, ["admin"], "admin.view_user");
  const u = await prisma.user.findUnique({ where: { id: userId }, include: { ...userInclude, grants: true } });
  if (!u) throw new DomainError("not_found", `No user ${userId}.`);
  const catalog = await currentCatalog(); // built-in and imported tools
  return { user: toUserView(u, now), grants: catalog.names().map((t) => toGrantView(t, u.grants.find((g) => g.tool === t) ?? null, catalog.get(t)?.label)) };
}

/**
 * Creates a person with a role and an initial password (no grants yet). Audited
 * `admin_change` {what: "user.create"}; the password is never recorded.
 * Errors: 403 `forbidden`; 400 `bad_request` {issues}; 409 `email_taken`.
 */
export async function createUser(admin: Admin, raw: CreateUserInput): Promise<AdminUserView> {
  await requireRole(admin, ["admin"], "admin.create_user");
  const input = parse(createUserSchema, raw);
  await assertDeskExists(prisma, input.desk ?? DEFAULT_DESK);
  return inTransaction(async (tx) => {
    await assertEmailFree(input.email, tx); // a concurrent creation of the same email: the unique key fires, the retry refuses here
    const u = await insertUserRecord(tx, input, userInclude);
    await audit(tx, { kind: "user", id: admin.id }, "user.create", { kind: "user", id: u.id }, null, { email: u.email, name: u.name, role: u.role, desk: u.desk, disabled: false });
    return ok(toUserView(u));
  });
}

/**
 * Disables/enables a person, changes their role, assigns them another desk and/or renames them
 * (the only way a display name changes: people cannot rename themselves). Disabling deletes all
 * their sessions in the same transaction, so they are signed out at once (getViewer also refuses
 * disabled users); a change of role, desk or enablement ends their open live streams at once.
 * The last enabled admin cannot be disabled or demoted. Audited `admin_change` {what:
 * "user.update", before, after, sessionsEnded}. A change to the current values is a no-op.
 * Errors: 403 `forbidden`; 400 `bad_request`; 404 `not_found`; 409 `last_admin`; 422 `unknown_desk`.
 */
export async function updateUser(admin: Admin, userId: string, raw: UpdateUserInput, now = new Date()): Promise<AdminUserView> {
  await requireRole(admin, ["admin"], "admin.update_user");
  const input = parse(updateUserSchema, raw);
  if (input.desk !== undefined) await assertDeskExists(prisma, input.desk);
  // SERIALIZABLE on PostgreSQL (inTransaction): two admins demoting each other at once is a write
  // skew — each sees the other still an admin — that would leave no admin; one of them is retried
  // and refused `last_admin`.
  return inTransaction(async (tx) => {
    const u = await tx.user.findUnique({ where: { id: userId }, include: userInclude });
    if (!u) throw new DomainError("not_found", `No user ${userId}.`);
    const before = { role: asRole(u.role), disabled: u.disabled, desk: u.desk, name: u.name };
    const after = { role: input.role ?? before.role, disabled: input.disabled ?? before.disabled, desk: input.desk ?? before.desk, name: input.name ?? before.name };
    if (after.role === before.role && after.disabled === before.disabled && after.desk === before.desk && after.name === before.name) return ok(toUserView(u, now));
    await tx.user.update({ where: { id: userId }, data: after });
    const ended = after.disabled && !before.disabled ? (await tx.session.deleteMany({ where: { userId } })).count : 0;
    const admins = await tx.user.count({ where: { role: "admin", disabled: false } });
    if (admins === 0) {
      throw new DomainError("last_admin", `${u.name} is the last active admin; make someone else an admin first.`);
    }
    await audit(tx, { kind: "user", id: admin.id }, "user.update", { kind: "user", id: userId }, before, after, { email: u.email, ...(ended ? { sessionsEnded: ended } : {}) });
    // their open live streams re-check their session now, on every instance
    if (after.role !== before.role || after.disabled !== before.disabled || after.desk !== before.desk) await recordSessionEnd(tx, userId);
    return ok(toUserView(await tx.user.findUniqueOrThrow({ where: { id: userId }, include: userInclude }), now));
  });
}

/**
 * Sets one person's grant for one tool: may approve (ceiling optional), may author (ceiling
 * optional). Ceilings are only for tools that move money; a ceiling without its permission is
 * dropped; both permissions off removes the grant. Audited `admin_change` {what: "grant.set",
 * before, after} (each a GrantView). Errors: 403; 400 `bad_request` (unknown tool, ceiling on a
 * tool that moves no money); 404 `not_found` (user).
 */
export async function setGrant(admin: Admin, userId: string, tool: string, raw: GrantInput): Promise<GrantView> {
  await requireRole(admin, ["admin"], "admin.set_grant");
  const input = parse(grantInputSchema, raw);
  if (!(await currentCatalog()).get(tool)) throw new DomainError("bad_request", `Unknown tool "${tool}".`, { tool });
  const approveLimit = input.canApprove ? input.approveLimit : null;
  const authorLimit = input.canAuthor ? input.authorLimit : null;
  if (!toolMovesMoney(tool) && (approveLimit || authorLimit)) {
    throw new DomainError("bad_request", `${tool} moves no money, so its grant cannot have a ceiling.`, { tool });
  }
  return inTransaction(async (tx) => {
    const user = await tx.user.findUnique({ where: { id: userId }, select: { id: true, email: true } });
    if (!user) throw new DomainError("not_found", `No user ${userId}.`);
    const existing = await tx.grant.findUnique({ where: { userId_tool: { userId, tool } } });
    const before = existing ? toGrantView(tool, existing) : null;
    const data = {
      canApprove: input.canApprove,
      approveLimitMinor: approveLimit?.minor ?? null,
      approveLimitCurrency: approveLimit?.currency ?? null,
      canAuthor: input.canAuthor,
      authorLimitMinor: authorLimit?.minor ?? null,
      authorLimitCurrency: authorLimit?.currency ?? null,
    };
    let after: GrantView | null = null;
    if (!input.canApprove && !input.canAuthor) {
      if (existing) await tx.grant.delete({ where: { id: existing.id } });
    } else {
      const row = await tx.grant.upsert({ where: { userId_tool: { userId, tool } }, create: { id: `${userId}_${tool}`, userId, tool, ...data }, update: data });
      after = toGrantView(tool, row);
    }
    if (JSON.stringify(before) !== JSON.stringify(after)) {
      await audit(tx, { kind: "user", id: admin.id }, "grant.set", { kind: "grant", id: `${userId}:${tool}` }, before, after, { userId, email: user.email, tool });
    }
    return ok(after ?? toGrantView(tool, null));
  });
}

// ── agents and keys ───────────────────────────────────────────────────────────

/**
 * One page of agents with their allowlists and keys, oldest first, keyset-paginated by
 * (createdAt, id) (`opts.limit` 1–200, default 100; `opts.cursor` from the previous page).
 * Errors: 403 `forbidden`; 400 `bad_request` for a malformed cursor.
 */
export async function listAgents(admin: Admin, opts: { cursor?: string | null; limit?: number } = {}): Promise<{ agents: AgentView[]; nextCursor: string | null }> {
  await requireRole(admin, ["admin"], "admin.list_agents");
  const limit = pageSize(opts.limit, 100);
  const rows = await prisma.agent.findMany({
    where: afterCreated(opts.cursor),
    include: agentInclude,
    orderBy: [{ createdAt: "asc" }, { id: "asc" }],
    take: limit + 1,
  });
  return { agents: rows.slice(0, limit).map(toAgentView), nextCursor: nextCursorOf(rows, limit, (a) => a.createdAt) };
}

/**
 * Creates an agent with its tool allowlist and desk (absent: the default desk), no key yet: tools
 * are built-in or imported names of the current catalog, stored in catalog order without
 * duplicates — the same names `setAgentAllowedTools` accepts. Audited `agent.create`. Errors:
 * 403; 400 `bad_request` {issues} for a malformed body, or {unknown} for names the catalog does
 * not know; 422 `unknown_desk`.
 */
export async function createAgent(admin: Admin, raw: CreateAgentInput): Promise<AgentView> {
  await requireRole(admin, ["admin"], "admin.create_agent");
  const input = parse(createAgentSchema, raw);
  const desk = input.desk ?? DEFAULT_DESK;
  await assertDeskExists(prisma, desk);
  const catalog = await currentCatalog();
  const unknown = [...new Set(input.allowedTools.filter((t) => !catalog.get(t)))];
  if (unknown.length) throw new DomainError("bad_request", `Unknown tool ${unknown.join(", ")}.`, { unknown });
  const allowedTools = catalog.names().filter((t) => input.allowedTools.includes(t)); // catalog order, no duplicates
  return inTransaction(async (tx) => {
    const a = await tx.agent.create({ data: { id: `agent_${nanoid(10)}`, name: input.name, desk, allowedTools }, include: agentInclude });
    await audit(tx, { kind: "user", id: admin.id }, "agent.create", { kind: "agent", id: a.id }, null, { name: a.name, desk, allowedTools });
    return ok(toAgentView(a));
  });
}

/**
 * Assigns an agent to another desk: from its next request it reads, plans and claims for that
 * desk's tasks and runs only (its runs of the old desk are no longer found by it). A change to
 * the current desk is a no-op. Audited `agent.update` {before: {desk}, after: {desk}}.
 * Errors: 403; 400 `bad_request`; 404 `not_found`; 422 `unknown_desk`.
 */
export async function updateAgent(admin: Admin, agentId: string, raw: UpdateAgentInput): Promise<AgentView> {
  await requireRole(admin, ["admin"], "admin.update_agent");
  const input = parse(updateAgentSchema, raw);
  await assertDeskExists(prisma, input.desk);
  return inTransaction(async (tx) => {
    const a = await tx.agent.findUnique({ where: { id: agentId }, include: agentInclude });
    if (!a) throw new DomainError("not_found", `No agent ${agentId}.`);
    if (a.desk === input.desk) return ok(toAgentView(a));
    const updated = await tx.agent.update({ where: { id: agentId }, data: { desk: input.desk }, include: agentInclude });
    await audit(tx, { kind: "user", id: admin.id }, "agent.update", { kind: "agent", id: agentId }, { desk: a.desk }, { desk: input.desk });
    return ok(toAgentView(updated));
  });
}

/**
 * Creates an API key for an agent, with the name and expiry of `raw` (lib/people/admin-schemas.ts
 * `createApiKeySchema`; absent: unnamed, never expires). The key is returned here once and never
 * again: only its SHA-256 and its first characters are stored. Audited `api_key.create` (prefix,
 * name, expiry). Errors: 403; 404 `not_found` (agent); 400 `bad_request` (shape); 422
 * `validation_failed` at `expiresAt` when it is not after `now`.
 */
export async function createApiKey(admin: Admin, agentId: string, raw: unknown = {}, now = new Date()): Promise<{ apiKey: ApiKeyView; key: string }> {
  await requireRole(admin, ["admin"], "admin.create_api_key");
  const input = parse(createApiKeySchema, raw);
  const expiresAt = input.expiresAt ? new Date(input.expiresAt) : null;
  if (expiresAt && expiresAt.getTime() <= now.getTime()) {
    throw new DomainError("validation_failed", "The expiry must be in the future.", { issues: [{ path: "expiresAt", message: "Choose a time in the future" }] });
  }
  const agent = await prisma.agent.findUnique({ where: { id: agentId }, select: { id: true } });
  if (!agent) throw new DomainError("not_found", `No agent ${agentId}.`);
  const key = generateApiKey();
  const row = await inTransaction(async (tx) => {
    const k = await tx.apiKey.create({ data: { id: `key_${nanoid(12)}`, agentId, hash: hashApiKey(key), prefix: keyPrefix(key), name: input.name ?? null, expiresAt } });
    await audit(tx, { kind: "user", id: admin.id }, "api_key.create", { kind: "api_key", id: k.id }, null, { agentId, prefix: k.prefix, name: k.name, expiresAt: k.expiresAt?.toISOString() ?? null }, { agentId });
    return ok(k);
  });
  return { apiKey: toKeyView(row), key };
}

/**
 * Revokes an agent's API key at once (the next request with it gets 401). Revoking a revoked key
 * returns it unchanged. Audited `api_key.revoke`. Errors: 403; 404 `not_found` (no such key of this agent).
 */
export async function revokeApiKey(admin: Admin, agentId: string, keyId: string, now = new Date()): Promise<ApiKeyView> {
  await requireRole(admin, ["admin"], "admin.revoke_api_key");
  return inTransaction(async (tx) => {
    const key = await tx.apiKey.findFirst({ where: { id: keyId, agentId } });
    if (!key) throw new DomainError("not_found", `Agent ${agentId} has no key ${keyId}.`);
    const res = await tx.apiKey.updateMany({ where: { id: keyId, revokedAt: null }, data: { revokedAt: now } });
    if (res.count === 1) {
      await audit(tx, { kind: "user", id: admin.id }, "api_key.revoke", { kind: "api_key", id: keyId }, { revokedAt: null }, { revokedAt: now.toISOString() }, { agentId, prefix: key.prefix });
    }
    return ok(toKeyView(await tx.apiKey.findUniqueOrThrow({ where: { id: keyId } })));
  });
}
