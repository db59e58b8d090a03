/**
 * Display names change only through an admin: better-auth's own `POST /api/auth/update-user` is
 * refused for everyone (a colleague's name would otherwise show in presence, the audit trail and
 * "who acts next"); an admin renames a person, on the record.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { POST } from "@/app/api/auth/[...all]/route";
import { updateUser } from "@/lib/server/admin/admin";
import { prisma } from "@/lib/server/db/db";
import { loadViewer } from "@/lib/server/auth/session";
import { signInCookie, TEST_ORIGIN } from "@/testing/test-auth";
import { prepareTestDatabase } from "@/testing/test-support";

beforeAll(async () => {
  await prepareTestDatabase(new Date());
});

const updateSelf = (cookie: string, body: unknown) =>
  POST(new Request(`${TEST_ORIGIN}/api/auth/update-user`, { method: "POST", headers: { cookie, origin: TEST_ORIGIN, "content-type": "application/json" }, body: JSON.stringify(body) }));

describe("display names", () => {
  it("nobody renames themselves through better-auth, not even an admin; the name stays", async () => {
    for (const email of ["operator@plandesk.test", "admin@plandesk.test"]) {
      const cookie = await signInCookie(email);
      const before = await prisma.user.findUniqueOrThrow({ where: { email } });
      const res = await updateSelf(cookie, { name: "Sofia Supervisor" });
      expect(res.status, email).toBe(403);
      const body = (await res.json()) as { error: { code: string; message: string } };
      expect(body.error.code).toBe("name_change_by_admin_only");
      expect((await prisma.user.findUniqueOrThrow({ where: { email } })).name).toBe(before.name);
      expect((await updateSelf(cookie, { image: "https://evil.example/x.png" })).status).toBe(403);
    }
  });

  it("an admin renames a person, audited with before and after", async () => {
    const admin = (await loadViewer("usr_admin"))!;
    const view = await updateUser(admin, "usr_operator", { name: "Olivia Operator-Hansen" });
    expect(view.name).toBe("Olivia Operator-Hansen");
    const audit = await prisma.auditEvent.findFirstOrThrow({ where: { type: "admin_change" }, orderBy: { seq: "desc" } });
    expect(audit.data).toMatchObject({ what: "user.update", before: { name: "Olivia Operator" }, after: { name: "Olivia Operator-Hansen" } });
  });
});
