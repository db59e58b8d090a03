/**
 * Admin changes that race: every one runs in `inTransaction` (SERIALIZABLE on PostgreSQL, the
 * single writer on SQLite), so two admins demoting each other at once never leave the desk without
 * an admin (a write skew under READ COMMITTED), and two creations of one email give one person
 * and one typed `email_taken`, never a 500 or a `busy`.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { DomainError } from "@/lib/errors/domain-error";
import { prisma } from "@/lib/server/db/db";
import { prepareTestDatabase } from "@/testing/test-support";
import { createDesk } from "./desks";
import { createUser, updateUser } from "./admin";

const ADMIN = { id: "usr_admin", role: "admin" as const };

beforeAll(async () => {
  await prepareTestDatabase();
});

/** The error code of a rejected settlement, or "ok". */
const outcome = (r: PromiseSettledResult<unknown>) => (r.status === "fulfilled" ? "ok" : r.reason instanceof DomainError ? r.reason.code : `thrown: ${String(r.reason)}`);

describe("admin changes in parallel", () => {
  it("two admins demoting each other at once: one is refused last_admin and one admin remains", async () => {
    for (let round = 0; round < 3; round++) {
      const second = await createUser(ADMIN, { email: `second.admin.${round}@example.com`, name: `Second Admin ${round}`, role: "admin", password: "second-admin-pass" });
      const other = { id: second.id, role: "admin" as const };
      const results = await Promise.allSettled([updateUser(ADMIN, second.id, { role: "operator" }), updateUser(other, ADMIN.id, { role: "operator" })]);
      expect(results.map(outcome).sort()).toEqual(["last_admin", "ok"]);
      const admins = await prisma.user.findMany({ where: { role: "admin", disabled: false }, select: { id: true } });
      expect(admins).toHaveLength(1);
      // the next round starts again from usr_admin as the only admin
      const survivor = { id: admins[0].id, role: "admin" as const };
      if (survivor.id !== ADMIN.id) {
        await updateUser(survivor, ADMIN.id, { role: "admin" });
        await updateUser(ADMIN, survivor.id, { role: "operator" });
      }
    }
  });

  it("two creations of one email at once: one person, the other refused email_taken", async () => {
    const body = { email: "twice@example.com", name: "Twice", role: "operator" as const, password: "twice-initial-pass" };
    const results = await Promise.allSettled([createUser(ADMIN, body), createUser(ADMIN, body), createUser(ADMIN, body)]);
    expect(results.map(outcome).sort()).toEqual(["email_taken", "email_taken", "ok"]);
    expect(await prisma.user.count({ where: { email: body.email } })).toBe(1);
  });

  it("two creations of one desk id at once: one desk, the other refused desk_taken", async () => {
    const results = await Promise.allSettled([createDesk(ADMIN, { id: "twin-desk", name: "Twin" }), createDesk(ADMIN, { id: "twin-desk", name: "Twin" })]);
    expect(results.map(outcome).sort()).toEqual(["desk_taken", "ok"]);
    expect(await prisma.desk.count({ where: { id: "twin-desk" } })).toBe(1);
  });
});
