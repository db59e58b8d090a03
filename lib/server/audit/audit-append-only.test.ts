/**
 * The audit log is append-only (docs/design.md §11, CONTRIBUTING.md): no code path updates or deletes
 * an event (a scan of the source tree), and the database refuses it anyway (the triggers of
 * migration `*_audit_append_only`, SQLite and PostgreSQL).
 *
 * This file is the one place allowed to name the forbidden calls: it holds the patterns, and
 * the deliberate attempts that prove the database refuses them. The scan skips it by name.
 */
import fs from "node:fs";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { appendAudit } from "../audit-log/append-audit";
import { prisma } from "../db/db";
import { resolveDatabaseUrl } from "../db/database-url";
import { prepareTestDatabase } from "../../../testing/test-support";

const ROOT = path.resolve(__dirname, "../../..");
const SCANNED = ["lib", "app", "scripts", "prisma/migrations", "prisma/postgresql/migrations"];
const SKIP_DIRS = new Set(["node_modules", "generated", ".next"]);
const THIS_FILE = path.relative(ROOT, __filename);

/** Code that would change or remove audit events: Prisma delegate calls and raw SQL. */
export const FORBIDDEN: { name: string; re: RegExp }[] = [
  { name: "auditEvent.update / updateMany", re: /\bauditEvent\s*\.\s*update/ },
  { name: "auditEvent.delete / deleteMany", re: /\bauditEvent\s*\.\s*delete/ },
  { name: "auditEvent.upsert", re: /\bauditEvent\s*\.\s*upsert/ },
  { name: "auditEvent via brackets", re: /\[\s*["'`]auditEvent["'`]\s*\]/ },
  { name: "raw UPDATE of audit_event", re: /\bUPDATE\s+(?:OR\s+\w+\s+)?["'`[]?audit_event\b/i },
  { name: "raw DELETE FROM audit_event", re: /\bDELETE\s+FROM\s+["'`[]?audit_event\b/i },
  { name: "raw DROP / TRUNCATE of audit_event", re: /\b(?:DROP\s+TABLE|TRUNCATE(?:\s+TABLE)?)\s+(?:IF\s+EXISTS\s+)?["'`[]?audit_event\b/i },
  { name: "dropping the append-only triggers", re: /\bDROP\s+TRIGGER\s+(?:IF\s+EXISTS\s+)?["'`[]?audit_event_no_/i },
];

/** The forbidden patterns found in `text`, one entry per line and pattern. */
export function findForbidden(text: string): { line: number; name: string; text: string }[] {
  const hits: { line: number; name: string; text: string }[] = [];
  text.split("\n").forEach((l, i) => {
    for (const f of FORBIDDEN) if (f.re.test(l)) hits.push({ line: i + 1, name: f.name, text: l.trim() });
  });
  return hits;
}

function sourceFiles(dir: string, out: string[] = []): string[] {
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    if (entry.isDirectory()) {
      if (!SKIP_DIRS.has(entry.name)) sourceFiles(path.join(dir, entry.name), out);
    } else if (/\.(ts|tsx|js|mjs|cjs|sql)$/.test(entry.name)) {
      out.push(path.join(dir, entry.name));
    }
  }
  return out;
}

describe("no code path updates or deletes an audit event", () => {
  it("the scanner recognises every forbidden form (so the scan below can fail)", () => {
    const planted = [
      "await tx.auditEvent.update({ where: { seq: 1 }, data: {} });",
      "await prisma.auditEvent.updateMany({ data: { type: 'x' } });",
      "await prisma.auditEvent .delete({ where: { seq: 1 } });",
      "await prisma.auditEvent.deleteMany();",
      "await prisma.auditEvent.upsert({});",
      "await (prisma as any)['auditEvent'].deleteMany();",
      'await prisma.$executeRawUnsafe(\'UPDATE "audit_event" SET type = 1\');',
      "await prisma.$executeRaw`delete from audit_event where seq = ${1}`;",
      "DROP TRIGGER IF EXISTS audit_event_no_delete;",
    ];
    for (const p of planted) expect(findForbidden(p), p).not.toEqual([]);
    expect(findForbidden("await tx.auditEvent.create({ data });\nconst rows = await prisma.auditEvent.findMany();")).toEqual([]);
  });

  it(`none of ${SCANNED.join("/, ")}/ contains one (lib/generated and this file excepted)`, () => {
    const files = SCANNED.flatMap((d) => sourceFiles(path.join(ROOT, d)));
    expect(files.length).toBeGreaterThan(50);
    const hits = files
      .filter((f) => path.relative(ROOT, f) !== THIS_FILE)
      .flatMap((f) => findForbidden(fs.readFileSync(f, "utf8")).map((h) => `${path.relative(ROOT, f)}:${h.line} ${h.name}: ${h.text}`));
    expect(hits).toEqual([]);
  });

  it("the audit writer only inserts", () => {
    const src = fs.readFileSync(path.join(ROOT, "lib/server/audit-log/append-audit.ts"), "utf8");
    expect(src.match(/\.auditEvent\.\w+/g)).toEqual([".auditEvent.create"]);
  });
});

describe("the database refuses to change or remove an event", () => {
  let seq: number;
  beforeAll(async () => {
    await prepareTestDatabase(undefined, { seed: false });
    await appendAudit(prisma, { type: "admin_change", actor: { kind: "system" }, data: { what: "test.original", target: { kind: "test", id: "t1" }, before: null, after: { note: "original" } } });
    seq = (await prisma.auditEvent.findFirstOrThrow({ orderBy: { seq: "desc" } })).seq;
  });

  it("refuses updates and deletes through Prisma and raw SQL, and the event stays as written", async () => {
    const attempts: [string, () => Promise<unknown>][] = [
      ["update", () => prisma.auditEvent.update({ where: { seq }, data: { data: { note: "rewritten" } } })],
      ["updateMany", () => prisma.auditEvent.updateMany({ data: { type: "rewritten" } })],
      ["delete", () => prisma.auditEvent.delete({ where: { seq } })],
      ["deleteMany", () => prisma.auditEvent.deleteMany({})],
      ["raw UPDATE", () => prisma.$executeRawUnsafe(`UPDATE "audit_event" SET "type" = 'rewritten' WHERE "seq" = ${seq}`)],
      ["raw DELETE", () => prisma.$executeRawUnsafe(`DELETE FROM "audit_event" WHERE "seq" = ${seq}`)],
      // Emptying the table in one statement: TRUNCATE on PostgreSQL (SQLite has none; its DELETE without WHERE).
      ["emptying the table", () => prisma.$executeRawUnsafe(resolveDatabaseUrl().provider === "postgresql" ? 'TRUNCATE "audit_event"' : 'DELETE FROM "audit_event"')],
    ];
    for (const [name, attempt] of attempts) {
      const err = await attempt().then(
        () => null,
        (e: unknown) => e,
      );
      expect(err, `${name} was accepted`).not.toBeNull();
      // Prisma's SQLite adapter reports a trigger abort as P2003; the trigger's own message is kept in `meta`.
      const text = `${(err as Error).message} ${JSON.stringify((err as { meta?: unknown }).meta ?? {})}`;
      expect(text, name).toMatch(/append-only/);
    }
    const row = await prisma.auditEvent.findUniqueOrThrow({ where: { seq } });
    expect(row).toMatchObject({ type: "admin_change", actorKind: "system", data: { what: "test.original", target: { kind: "test", id: "t1" }, before: null, after: { note: "original" } } });
    expect(await prisma.auditEvent.count()).toBeGreaterThanOrEqual(1);
  });

  it("still accepts new events", async () => {
    const before = await prisma.auditEvent.count();
    await appendAudit(prisma, { type: "admin_change", actor: { kind: "system" }, data: { what: "test.another", target: { kind: "test", id: "t2" }, before: null, after: { note: "another" } } });
    expect(await prisma.auditEvent.count()).toBe(before + 1);
  });
});
