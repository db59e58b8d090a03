import { nanoid } from "nanoid";
import type { IntegrationKeyView } from "../../api/schemas";
import { INTEGRATION_SCOPES, parseStoredScopes, storedScopes } from "../../api/integration-scopes";
import { createIntegrationKeySchema, type CreateIntegrationKeyInput } from "../../people/admin-schemas";
import { DomainError } from "../../errors/domain-error";
import { generateIntegrationKey, hashApiKey, keyPrefix } from "../auth/api-keys";
import { appendAudit } from "../audit-log/append-audit";
import { prisma } from "../db/db";
import { requireRole } from "../auth/require-role";
import type { Viewer } from "../auth/viewer";
import { afterCreated, nextCursorOf, pageSize } from "../db/pagination";
import { inTransaction, ok } from "../db/transaction";
import { assertDeskExists } from "./desks";

/**
 * Integration keys: the credential a ticketing system uses to open and revise tasks and report
 * ticket events (scope `tasks`), and a system of record uses for the records door (scope
 * `records`; lib/api/integration-scopes.ts) — nothing else. Admins create them (the key
 * is shown once; only its SHA-256 and first characters are stored), list them with when each was
 * last used, and revoke them. Every function checks the admin role itself (`requireRole`, which
 * audits a refusal as `denied`) and audits every change as `admin_change`.
 */

type Admin = Pick<Viewer, "id" | "role">;

/** The API's integration key shape (lib/api/schemas.ts), declared once. */
export type { IntegrationKeyView };

type Row = { id: string; name: string; prefix: string; createdAt: Date; lastUsedAt: Date | null; revokedAt: Date | null; desk: string | null; scopes: string };

function toView(k: Row): IntegrationKeyView {
  return {
    id: k.id,
    name: k.name,
    prefix: k.prefix,
    createdAt: k.createdAt.toISOString(),
    lastUsedAt: k.lastUsedAt?.toISOString() ?? null,
    revokedAt: k.revokedAt?.toISOString() ?? null,
    desk: k.desk,
    scopes: parseStoredScopes(k.scopes),
  };
}

/**
 * One page of integration keys, oldest first, keyset-paginated by (createdAt, id) (`opts.limit`
 * 1–200, default 100; `opts.cursor` from the previous page). Errors: 403 `forbidden` unless admin;
 * 400 `bad_request` for a malformed cursor.
 */
export async function listIntegrationKeys(
  admin: Admin,
  opts: { cursor?: string | null; limit?: number } = {},
): Promise<{ integrationKeys: IntegrationKeyView[]; nextCursor: string | null }> {
  await requireRole(admin, ["admin"], "admin.list_integration_keys");
  const limit = pageSize(opts.limit, 100);
  const rows = await prisma.integrationKey.findMany({ where: afterCreated(opts.cursor), orderBy: [{ createdAt: "asc" }, { id: "asc" }], take: limit + 1 });
  return { integrationKeys: rows.slice(0, limit).map(toView), nextCursor: nextCursorOf(rows, limit, (k) => k.createdAt) };
}

/**
 * Creates an integration key named `name` (bound to `desk` when given: it reaches only that desk's
 * tasks and records) holding `scopes` (absent: every scope); returns it with the key itself, which
 * is never shown again. Audited `admin_change` {what: "integration_key.create"} with the prefix and
 * scopes only. Errors: 403 `forbidden`; 400 `bad_request` {issues} (name empty or over 100
 * characters; no scope, an unknown or repeated one); 422 `unknown_desk`.
 */
export async function createIntegrationKey(admin: Admin, raw: CreateIntegrationKeyInput): Promise<{ integrationKey: IntegrationKeyView; key: string }> {
  await requireRole(admin, ["admin"], "admin.create_integration_key");
  const parsed = createIntegrationKeySchema.safeParse(raw);
  if (!parsed.success) {
    throw new DomainError("bad_request", parsed.error.issues.map((i) => i.message).join("; "), {
      issues: parsed.error.issues.map((i) => ({ path: i.path.map(String).join("."), message: i.message })),
    });
  }
  const key = generateIntegrationKey();
  const row = await inTransaction(async (tx) => {
    if (parsed.data.desk) await assertDeskExists(tx, parsed.data.desk);
    const scopes = storedScopes(parsed.data.scopes ?? INTEGRATION_SCOPES);
    const k = await tx.integrationKey.create({ data: { id: `ikey_${nanoid(12)}`, name: parsed.data.name, hash: hashApiKey(key), prefix: keyPrefix(key), desk: parsed.data.desk ?? null, scopes } });
    await appendAudit(tx, {
      type: "admin_change",
      actor: { kind: "user", id: admin.id },
      data: { what: "integration_key.create", target: { kind: "integration_key", id: k.id }, before: null, after: { name: k.name, prefix: k.prefix, desk: k.desk, scopes: parseStoredScopes(k.scopes) } },
    });
    return ok(k);
  });
  return { integrationKey: toView(row), key };
}

/**
 * Revokes an integration key at once (its next request gets 401). Revoking a revoked key returns
 * it unchanged (not audited again). Audited `admin_change` {what: "integration_key.revoke"}.
 * Errors: 403 `forbidden`; 404 `not_found`.
 */
export async function revokeIntegrationKey(admin: Admin, keyId: string, now = new Date()): Promise<IntegrationKeyView> {
  await requireRole(admin, ["admin"], "admin.revoke_integration_key");
  return inTransaction(async (tx) => {
    const key = await tx.integrationKey.findUnique({ where: { id: keyId } });
    if (!key) throw new DomainError("not_found", `No integration key ${keyId}.`);
    const res = await tx.integrationKey.updateMany({ where: { id: keyId, revokedAt: null }, data: { revokedAt: now } });
    if (res.count === 1) {
      await appendAudit(tx, {
        type: "admin_change",
        actor: { kind: "user", id: admin.id },
        data: { what: "integration_key.revoke", target: { kind: "integration_key", id: keyId }, before: { revokedAt: null }, after: { revokedAt: now.toISOString() }, name: key.name, prefix: key.prefix },
      });
    }
    return ok(toView(await tx.integrationKey.findUniqueOrThrow({ where: { id: keyId } })));
  });
}
