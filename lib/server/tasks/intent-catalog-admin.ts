import type { IntentCatalogView } from "../../api/desk-endpoints";
import { createHash } from "node:crypto";
import { DomainError, parseOrBadRequest } from "../../errors/domain-error";
import { canonicalJson } from "../../plan/canonical-json";
import { catalogChanges, intentCatalogDraftSchema, unknownPermittedTools } from "../../task-contract/intent-catalog";
import type { Intent } from "../../task-contract/schema";
import type { CatalogToolOption } from "../../tools/versioned-catalog";
import { appendAudit } from "../audit-log/append-audit";
import { prisma } from "../db/db";
import { toJsonColumn } from "../db/json-column";
import { requireRole } from "../auth/require-role";
import type { Viewer } from "../auth/viewer";
import { catalogToolsForAdmin } from "../tools/imported-tools";
import { inTransaction, ok, type DbOrTx } from "../db/transaction";
import { listIntents } from "./task-contract";

/**
 * A desk's intent catalog in the admin console: read it with the tools an intent may permit, and
 * save a new catalog whole (docs/design.md, the task contract: the desk defines its intents). A task whose contract names an intent the catalog no longer has permits no
 * tool (fail closed, lib/validation/contract-rules.ts): the editor warns of that before a removal.
 */

type Admin = Pick<Viewer, "id" | "role">;

/**
 * Lowercase hex SHA-256 of the canonical JSON (RFC 8785) of `{intents, defaultIntent}`: what
 * `baseDigest` must be. The default intent is part of it, so an editor opened before another admin
 * changed only the default is refused as stale instead of silently putting the old default back.
 */
export function intentCatalogDigest(intents: readonly Intent[], defaultIntent: string | null): string {
  return createHash("sha256").update(canonicalJson({ intents, defaultIntent }), "utf8").digest("hex");
}

/** A desk's intent catalog with the current catalog's tools and the permitted tools it lacks: the API's `IntentCatalog` (lib/api/desk-endpoints.ts), declared once. */
export type { IntentCatalogView };

/** The view of `intents` with `tools` (the current catalog) and the desk's default intent. */
function viewOf(desk: DeskRow, intents: Intent[], tools: CatalogToolOption[]): IntentCatalogView {
  const known = new Set(tools.map((t) => t.name));
  const notInCatalog = [...new Set(intents.flatMap((i) => i.permittedTools))].filter((t) => !known.has(t)).sort();
  return { desk: { id: desk.id, name: desk.name }, intents, digest: intentCatalogDigest(intents, desk.defaultIntent), tools, notInCatalog, defaultIntent: desk.defaultIntent };
}

type DeskRow = { id: string; name: string; defaultIntent: string | null };

/** The desk row, or 404 `not_found` (an admin may name any desk; one that does not exist is not found). */
async function deskOf(db: DbOrTx, deskId: string): Promise<DeskRow> {
  const desk = await db.desk.findUnique({ where: { id: deskId }, select: { id: true, name: true, defaultIntent: true } });
  if (!desk) throw new DomainError("not_found", `There is no desk "${deskId}".`);
  return desk;
}

/**
 * The intent catalog of desk `deskId` for the editor (at most MAX_INTENTS intents, one indexed
 * query) with its digest and the tools an intent may permit (built-in and imported).
 * Errors: 403 `forbidden` unless admin; 404 `not_found` for an unknown desk.
 */
export async function getIntentCatalogForAdmin(admin: Admin, deskId: string): Promise<IntentCatalogView> {
  await requireRole(admin, ["admin"], "admin.view_intent_catalog");
  const desk = await deskOf(prisma, deskId);
  return viewOf(desk, await listIntents(prisma, desk.id), (await catalogToolsForAdmin(admin)).tools);
}

/**
 * Saves a desk's whole intent catalog (positions = list order) and its default intent in one
 * transaction: the previous rows replaced, audited `admin_change` {what: "desk.intents.save",
 * target: {kind: "desk", id}, before, after, changes: {added, removed, changed}, note,
 * defaultIntent: {before, after}}. `defaultIntent` absent keeps the desk's current default; a
 * catalog that removes the current default is refused unless the draft names another (or null):
 * the desk's tasks without a contract would otherwise silently change what they permit. Returns
 * the saved catalog as `getIntentCatalogForAdmin` would.
 * Errors: 403 `forbidden`; 404 `not_found` (desk); 400 `bad_request` {issues} (the draft schema);
 * 422 `validation_failed` {issues} for a permitted tool that is neither in the current catalog nor
 * already permitted by the saved catalog (`unknown_tool`: a new name must be a real tool; one the
 * desk permitted before an import changed is kept); 409 `stale_intent_catalog` {digest} when the catalog changed since the editor
 * opened it (`baseDigest` differs); 400 `bad_request` {issues: [{path: "defaultIntent", message}]}
 * for a default intent the new catalog lacks (named, or kept by omission). Nothing is written on
 * any error.
 */
export async function saveIntentCatalog(admin: Admin, deskId: string, raw: unknown): Promise<IntentCatalogView> {
  await requireRole(admin, ["admin"], "admin.save_intent_catalog");
  const draft = parseOrBadRequest(intentCatalogDraftSchema, raw);
  const desk = await deskOf(prisma, deskId);
  const tools = (await catalogToolsForAdmin(admin)).tools;
  await inTransaction(async (tx) => {
    const before = await listIntents(tx, desk.id);
    const defaultBefore = (await deskOf(tx, desk.id)).defaultIntent;
    const current = intentCatalogDigest(before, defaultBefore);
    if (current !== draft.baseDigest) {
      throw new DomainError("stale_intent_catalog", `Someone changed the intent catalog of desk ${desk.id} after you opened it; review it and try again.`, { digest: current });
    }
    const defaultAfter = draft.defaultIntent === undefined ? defaultBefore : draft.defaultIntent;
    if (defaultAfter !== null && !draft.intents.some((i) => i.name === defaultAfter)) {
      const message = `"${defaultAfter}" is the desk's default intent; name another default intent (or null) to remove it from the catalog`;
      throw new DomainError("bad_request", `defaultIntent: ${message}`, { issues: [{ path: "defaultIntent", message }] });
    }
    const unknown = unknownPermittedTools(draft.intents, new Set([...tools.map((t) => t.name), ...before.flatMap((i) => i.permittedTools)]));
    if (unknown.length) throw new DomainError("validation_failed", unknown.map((i) => i.message).join("; "), { issues: unknown });
    await tx.deskIntent.deleteMany({ where: { desk: desk.id } });
    if (draft.intents.length) {
      await tx.deskIntent.createMany({
        data: draft.intents.map((i, position) => ({ desk: desk.id, name: i.name, label: i.label, description: i.description, permittedTools: toJsonColumn(i.permittedTools), position })),
      });
    }
    if (defaultAfter !== defaultBefore) await tx.desk.update({ where: { id: desk.id }, data: { defaultIntent: defaultAfter } });
    await appendAudit(tx, {
      type: "admin_change",
      actor: { kind: "user", id: admin.id },
      data: {
        what: "desk.intents.save",
        target: { kind: "desk", id: desk.id },
        before,
        after: draft.intents,
        changes: catalogChanges(before, draft.intents),
        note: draft.note,
        defaultIntent: { before: defaultBefore, after: defaultAfter },
      },
    });
    return ok(undefined);
  });
  return viewOf(await deskOf(prisma, desk.id), await listIntents(prisma, desk.id), tools);
}
