import { readToolBindings } from "../../tools/tool-bindings";
import { importedToolsAt, latestCatalogVersion } from "../tools/imported-tools";
import type { RecordKindDetail, RecordKindList, RecordKindVersionView, RecordKindView } from "../../api/record-kind-endpoints";
import { recordKindDraftSchema } from "../../api/record-kind-endpoints";
import { DomainError, parseOrBadRequest } from "../../errors/domain-error";
import { canonicalJson } from "../../plan/canonical-json";
import { checkRecordKindDeclaration, MAX_KINDS_PER_DESK, storedRolesSchema, type RecordKindRoles } from "../../records/record-kind-declaration";
import { RECORD_KIND_NAMES } from "../../records/record-kinds";
import { Prisma } from "../../generated/prisma/client";
import { appendAudit } from "../audit-log/append-audit";
import { requireRole } from "../auth/require-role";
import type { Viewer } from "../auth/viewer";
import { prisma } from "../db/db";
import { readJsonColumn, toJsonColumn } from "../db/json-column";
import { inTransaction, ok, type Db, type DbOrTx, type Tx } from "../db/transaction";

/*
 * A desk's declared record kinds in the admin API (docs/api-extensions.md "Declared record
 * kinds"; the rules are lib/records/record-kind-declaration.ts): read a desk's kinds, one kind
 * with its history, and save a kind's next version — conditional on the version the editor read,
 * checked against the desk's other kinds and its stored records, audited, all or nothing.
 */

type Admin = Pick<Viewer, "id" | "role">;

/** A kind's versions the detail lists, newest first. */
export const MAX_LISTED_VERSIONS = 100;

/** The desk row, or 404 `not_found` (an admin may name any desk; one that does not exist is not found). */
async function deskOf(db: DbOrTx, deskId: string): Promise<{ id: string; name: string }> {
  const desk = await db.desk.findUnique({ where: { id: deskId }, select: { id: true, name: true } });
  if (!desk) throw new DomainError("not_found", `There is no desk "${deskId}".`);
  return desk;
}

/** The names of the people with `ids` (one read by primary key). */
async function namesOf(db: DbOrTx, ids: readonly (string | null)[]): Promise<Map<string, string>> {
  const wanted = [...new Set(ids.filter((i): i is string => i !== null))];
  if (wanted.length === 0) return new Map();
  const users = await db.user.findMany({ where: { id: { in: wanted } }, select: { id: true, name: true } });
  return new Map(users.map((u) => [u.id, u.name]));
}

const by = (names: Map<string, string>, id: string | null) => (id ? { id, name: names.get(id) ?? id } : null);
const rolesOf = (v: unknown, kind: string): RecordKindRoles => readJsonColumn(storedRolesSchema, v, `roles of record kind ${kind}`);
const schemaOf = (v: unknown): Record<string, unknown> => (typeof v === "object" && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : {});

type HeadRow = { desk: string; kind: string; version: number; schema: unknown; roles: unknown; note: string; createdById: string | null; createdAt: Date; updatedAt: Date };

function viewOf(row: HeadRow, names: Map<string, string>): RecordKindView {
  return {
    desk: row.desk,
    kind: row.kind,
    version: row.version,
    schema: schemaOf(row.schema),
    roles: rolesOf(row.roles, row.kind),
    note: row.note,
    savedBy: by(names, row.createdById),
    savedAt: row.updatedAt.toISOString(),
    createdAt: row.createdAt.toISOString(),
  };
}

/**
 * The kinds desk `deskId` declared (their current versions, by name; at most MAX_KINDS_PER_DESK,
 * one indexed read) and the built-in kinds every desk has.
 * Errors: 403 `forbidden` unless admin (audited); 404 `not_found` for an unknown desk.
 */
export async function listRecordKinds(admin: Admin, deskId: string, db: Db = prisma): Promise<RecordKindList> {
  await requireRole(admin, ["admin"], "admin.list_record_kinds");
  const desk = await deskOf(db, deskId);
  const rows = await db.recordKind.findMany({ where: { desk: desk.id }, orderBy: { kind: "asc" }, take: MAX_KINDS_PER_DESK });
  const names = await namesOf(db, rows.map((r) => r.createdById));
  return { desk, builtIn: [...RECORD_KIND_NAMES], kinds: rows.map((r) => viewOf(r, names)) };
}

/**
 * Kind `kind` of desk `deskId` with its versions (newest first, at most MAX_LISTED_VERSIONS) and
 * whether records of it exist on the desk. Errors: 403 `forbidden` unless admin (audited);
 * 404 `not_found` for an unknown desk or a kind the desk has not declared.
 */
export async function getRecordKind(admin: Admin, deskId: string, kind: string, db: Db = prisma): Promise<RecordKindDetail> {
  await requireRole(admin, ["admin"], "admin.view_record_kind");
  const desk = await deskOf(db, deskId);
  return detailOf(db, desk.id, kind);
}

/** The detail of a declared kind (three indexed reads and the savers' names); 404 when the desk has not declared it. */
async function detailOf(db: DbOrTx, desk: string, kind: string): Promise<RecordKindDetail> {
  const head = await db.recordKind.findUnique({ where: { desk_kind: { desk, kind } } });
  if (!head) throw new DomainError("not_found", `Desk ${desk} has declared no kind "${kind.slice(0, 64)}".`);
  const versions = await db.recordKindVersion.findMany({ where: { desk, kind }, orderBy: { version: "desc" }, take: MAX_LISTED_VERSIONS });
  const inUse = await recordsExist(db, desk, kind);
  const names = await namesOf(db, [head.createdById, ...versions.map((v) => v.createdById)]);
  const history: RecordKindVersionView[] = versions.map((v) => ({ version: v.version, schema: schemaOf(v.schema), roles: rolesOf(v.roles, kind), note: v.note, savedBy: by(names, v.createdById), savedAt: v.createdAt.toISOString() }));
  return { kind: viewOf(head, names), inUse, versions: history };
}

/** Whether desk `desk` holds any record of declared kind `kind`, tombstones included (one read of the primary key's prefix). */
async function recordsExist(db: DbOrTx, desk: string, kind: string): Promise<boolean> {
  return (await db.deskRecord.findFirst({ where: { desk, kind }, select: { id: true } })) !== null;
}

/**
 * Saves kind `kind` of desk `deskId` as its next version (version 1 when `baseVersion` is 0 and
 * the kind is new), from an admin's draft (`recordKindDraftSchema`: schema, roles, baseVersion,
 * note). One transaction, in this order: the desk's row is locked (saves of one desk's kinds take
 * turns, so the owner chains they check cannot cross), then the kind's row (on PostgreSQL this
 * waits for records being written against the current version, which hold it `FOR SHARE`), then
 * the version is compared, the desk's other kinds and whether records of this kind exist are
 * read, and the declaration is checked (lib/records/record-kind-declaration.ts). On success: the
 * kind's row and a version row are written; when the status's closed values changed, the stored
 * records' `closed` is recomputed; audited `admin_change {what: "desk.record_kind.save", target:
 * {kind: "record_kind", id: "<desk>/<kind>"}, desk, before, after, note}`.
 * Errors (nothing is written on any): 403 `forbidden` unless admin (audited); 400 `bad_request`
 * {issues} (the draft's shape); 404 `not_found` (desk); 409 `stale_record_kind` {version, savedBy,
 * savedAt} when the kind's version is not `baseVersion`; 422 `validation_failed` {issues: [{path,
 * code, message}]} with the declaration's problems, or `too_many_kinds` past MAX_KINDS_PER_DESK.
 */
export async function saveRecordKind(admin: Admin, deskId: string, kind: string, raw: unknown, opts: { db?: Db; now?: Date } = {}): Promise<RecordKindDetail> {
  await requireRole(admin, ["admin"], "admin.save_record_kind");
  const draft = parseOrBadRequest(recordKindDraftSchema, raw);
  const db = opts.db ?? prisma;
  const now = opts.now ?? new Date();
  return inTransaction(
    async (tx) => {
      const locked = await tx.$executeRaw`UPDATE "desk" SET "name" = "name" WHERE "id" = ${deskId}`;
      if (locked === 0) throw new DomainError("not_found", `There is no desk "${deskId}".`);
      await tx.$executeRaw`UPDATE "record_kind" SET "version" = "version" WHERE "desk" = ${deskId} AND "kind" = ${kind}`;
      const current = await tx.recordKind.findUnique({ where: { desk_kind: { desk: deskId, kind } } });
      const currentVersion = current?.version ?? 0;
      if (currentVersion !== draft.baseVersion) {
        const names = await namesOf(tx, [current?.createdById ?? null]);
        throw new DomainError("stale_record_kind", `Someone saved version ${currentVersion} of ${kind} on desk ${deskId} after you opened version ${draft.baseVersion}; review it and try again.`, {
          version: currentVersion,
          savedBy: current ? by(names, current.createdById) : null,
          savedAt: current?.updatedAt.toISOString() ?? null,
        });
      }
      const desk = await tx.recordKind.findMany({ where: { desk: deskId }, select: { kind: true, roles: true }, take: MAX_KINDS_PER_DESK + 1 });
      if (!current && desk.length >= MAX_KINDS_PER_DESK) {
        throw new DomainError("validation_failed", `Desk ${deskId} already declares ${desk.length} kinds, the most a desk may.`, { issues: [{ path: "kind", code: "too_many_kinds", message: `At most ${MAX_KINDS_PER_DESK} kinds per desk.` }], limit: MAX_KINDS_PER_DESK });
      }
      const others = new Map(desk.filter((d) => d.kind !== kind).map((d) => [d.kind, rolesOf(d.roles, d.kind)]));
      const previous = current ? { kind, schema: schemaOf(current.schema), roles: rolesOf(current.roles, kind) } : null;
      const inUse = current ? await recordsExist(tx, deskId, kind) : false;
      const check = checkRecordKindDeclaration(kind, draft.schema, draft.roles, { others, previous, inUse });
      if (!check.ok) {
        throw new DomainError("validation_failed", check.problems.map((p) => p.message).join(" "), { issues: check.problems });
      }
      const relied = previous ? rolesToolsRelyOn(kind, await importedToolsAt(await latestCatalogVersion(tx), tx)).filter((r) => previous.roles[r.role] && !check.declaration.roles[r.role]) : [];
      if (relied.length > 0) {
        const issues = relied.map((r) => ({ code: "role_in_use" as const, path: `roles.${r.role}`, message: `${r.tool} (an imported tool) binds ${r.arg} to ${kind}'s ${r.role}; a kind a tool relies on keeps that role.` }));
        throw new DomainError("validation_failed", issues.map((i) => i.message).join(" "), { issues });
      }
      const { schema, roles } = check.declaration;
      const version = currentVersion + 1;
      const row = { version, schema: toJsonColumn(schema), roles: toJsonColumn(roles), note: draft.note, createdById: admin.id, updatedAt: now };
      if (current) await tx.recordKind.update({ where: { desk_kind: { desk: deskId, kind } }, data: row });
      else await tx.recordKind.create({ data: { desk: deskId, kind, ...row, createdAt: now } });
      await tx.recordKindVersion.create({ data: { desk: deskId, kind, version, schema: toJsonColumn(schema), roles: toJsonColumn(roles), note: draft.note, createdById: admin.id, createdAt: now } });
      if (inUse && roles.status && canonicalJson(roles.status.closedValues) !== canonicalJson(previous?.roles.status?.closedValues ?? null)) {
        await recomputeClosed(tx, deskId, kind, roles.status.closedValues);
      }
      await appendAudit(tx, {
        type: "admin_change",
        actor: { kind: "user", id: admin.id },
        data: {
          what: "desk.record_kind.save",
          target: { kind: "record_kind", id: `${deskId}/${kind}` },
          desk: deskId,
          before: previous ? { version: currentVersion, schema: previous.schema, roles: previous.roles } : null,
          after: { version, schema, roles },
          note: draft.note,
        },
      });
      return ok(await detailOf(tx, deskId, kind));
    },
    db,
    { isolation: "row-locks" },
  );
}

/**
 * The roles of kind `kind` the imported tools of the current catalog rely on (their bindings,
 * lib/tools/tool-bindings.ts): `balance` for a money bound or effect on the kind, `window` for a
 * date bound. The catalog is one for every desk, so a tool bound to a kind of this name on any desk
 * counts (a kind never loses a role some tool could be bounding money by).
 */
function rolesToolsRelyOn(kind: string, tools: readonly { name: string; inputSchema: Record<string, unknown> }[]): { tool: string; arg: string; role: "balance" | "window" }[] {
  const out: { tool: string; arg: string; role: "balance" | "window" }[] = [];
  for (const t of tools) {
    const read = readToolBindings(t.inputSchema);
    if (!read.ok) continue;
    const b = read.bindings;
    if (b.max?.kind === kind) out.push({ tool: t.name, arg: b.max.arg, role: "balance" });
    else if (b.effect?.kind === kind) out.push({ tool: t.name, arg: b.effect.arg, role: "balance" });
    for (const w of b.windows) if (w.kind === kind) out.push({ tool: t.name, arg: w.arg, role: "window" });
  }
  return out;
}

/** Sets `closed` of every stored record of `kind` on `desk` from its status and `closedValues` (one statement over the primary key's prefix). */
async function recomputeClosed(tx: Tx, desk: string, kind: string, closedValues: readonly string[]): Promise<void> {
  await tx.$executeRaw`UPDATE "desk_record" SET "closed" = CASE WHEN "status" IN (${Prisma.join([...closedValues])}) THEN TRUE ELSE FALSE END
    WHERE "desk" = ${desk} AND "kind" = ${kind} AND "status" IS NOT NULL`;
}
