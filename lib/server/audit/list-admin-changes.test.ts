/**
 * The admins' change log on this file's own database (SQLite, or PostgreSQL with
 * PLANDESK_TEST_DB=postgres): admin changes made through the admin functions come back newest
 * first, with who made them and each field before and after; the initial password is never on
 * it; pages by cursor; anyone but an admin is refused and the refusal is recorded.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { DomainError } from "@/lib/errors/domain-error";
import { prisma } from "@/lib/server/db/db";
import { prepareTestDatabase } from "@/testing/test-support";
import { createUser, setGrant } from "../admin/admin";
import { listAdminChanges } from "./list-admin-changes";

const ADMIN = { id: "usr_admin", role: "admin" as const };
const PASSWORD = "initial-pass-never-logged";
let userId = "";

beforeAll(async () => {
  await prepareTestDatabase();
  const u = await createUser(ADMIN, { email: "log.reader@example.com", name: "Lou Log", role: "operator", password: PASSWORD });
  userId = u.id;
  await setGrant(ADMIN, userId, "issue_refund", { canApprove: true, approveLimit: { minor: 25_000, currency: "USD" }, canAuthor: false, authorLimit: null });
});

describe("listAdminChanges", () => {
  it("shows the latest changes first: who, what, on which target, each field before and after — never the password", async () => {
    const { rows } = await listAdminChanges(ADMIN, { limit: 10 });
    const [grant, created] = rows;
    expect(grant).toMatchObject({ what: "grant.set", label: "Grant set", target: `grant ${userId}:issue_refund`, actor: { kind: "user", id: "usr_admin" } });
    expect(grant.actor.name).toMatch(/<admin@plandesk\.test>$/);
    expect(grant.fields.find((f) => f.name === "canApprove")).toEqual({ name: "canApprove", before: "—", after: "true" }); // no grant before
    expect(created).toMatchObject({ what: "user.create", label: "Person created", target: `user ${userId}` });
    expect(created.fields.find((f) => f.name === "email")).toMatchObject({ before: "—", after: "log.reader@example.com" });
    expect(grant.seq).toBeGreaterThan(created.seq);
    expect(JSON.stringify(rows)).not.toContain(PASSWORD);
  });

  it("pages by cursor through the (type, seq) index: each page older than the last, none twice", async () => {
    const total = await prisma.auditEvent.count({ where: { type: "admin_change" } });
    expect(total).toBeGreaterThanOrEqual(2);
    const seen: number[] = [];
    let before: number | undefined;
    for (let pages = 0; pages < total + 1; pages++) {
      const page = await listAdminChanges(ADMIN, { before, limit: 1 });
      seen.push(...page.rows.map((r) => r.seq));
      if (!page.nextBefore) break;
      before = page.nextBefore;
    }
    expect(seen).toHaveLength(total);
    expect([...seen].sort((a, b) => b - a)).toEqual(seen);
  });

  it("refuses anyone but an admin, and records the refusal", async () => {
    for (const who of [{ id: "usr_supervisor", role: "supervisor" as const }, { id: "usr_operator", role: "operator" as const }]) {
      const err = await listAdminChanges(who).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(DomainError);
      expect((err as DomainError).code).toBe("forbidden");
      const denial = await prisma.auditEvent.findFirst({ where: { type: "denied", actorId: who.id }, orderBy: { seq: "desc" } });
      expect(JSON.stringify(denial?.data)).toContain("view admin changes");
    }
  });
});
