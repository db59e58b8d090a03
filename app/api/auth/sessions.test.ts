/**
 * Sessions through better-auth's own endpoints: a changed password ends the person's other
 * sessions (whatever the body asks), and revoking a session names one of the caller's own or is
 * refused 404 `session_not_found` (it answered `{status: true}` for an empty or unknown token).
 */
import { beforeAll, describe, expect, it } from "vitest";
import { GET, POST } from "@/app/api/auth/[...all]/route";
import { prisma } from "@/lib/server/db/db";
import { DEMO_PASSWORD } from "@/lib/server/demo/seed";
import { signInCookie, TEST_ORIGIN } from "@/testing/test-auth";
import { prepareTestDatabase } from "@/testing/test-support";

beforeAll(async () => {
  await prepareTestDatabase(new Date());
});

const post = (path: string, cookie: string, body: unknown) =>
  POST(new Request(`${TEST_ORIGIN}/api/auth/${path}`, { method: "POST", headers: { cookie, origin: TEST_ORIGIN, "content-type": "application/json" }, body: JSON.stringify(body) }));
/** Whether `cookie` still carries a live session (better-auth's get-session answers null otherwise). */
const signedIn = async (cookie: string) => {
  const res = await GET(new Request(`${TEST_ORIGIN}/api/auth/get-session`, { headers: { cookie, origin: TEST_ORIGIN } }));
  return res.status === 200 && (await res.json()) !== null;
};
const tokenOf = (cookie: string) => decodeURIComponent(/session_token=([^;]+)/.exec(cookie)![1]).split(".")[0];

describe("changing a password", () => {
  it("ends the person's other sessions even when the body asks to keep them; the changing session goes on with a new cookie", async () => {
    const laptop = await signInCookie("senior@plandesk.test");
    const phone = await signInCookie("senior@plandesk.test");
    const other = await signInCookie("operator@plandesk.test");
    const res = await post("change-password", laptop, { currentPassword: DEMO_PASSWORD, newPassword: "a-new-password-2026", revokeOtherSessions: false });
    expect(res.status).toBe(200);
    const fresh = res.headers
      .getSetCookie()
      .map((c) => c.split(";")[0])
      .join("; ");
    expect(fresh).toContain("session_token");
    expect(await signedIn(phone)).toBe(false);
    expect(await signedIn(laptop)).toBe(false); // the old session was ended too; its replacement is the new cookie
    expect(await signedIn(fresh)).toBe(true);
    expect(await signedIn(other)).toBe(true); // another person is not affected
    expect(await prisma.session.count({ where: { userId: "usr_senior" } })).toBe(1);
    // and the new password signs in
    expect(await signInCookie("senior@plandesk.test", "a-new-password-2026")).toContain("session_token");
  });
});

describe("revoking a session", () => {
  it("an empty, unknown or another person's token is refused 404 session_not_found and revokes nothing", async () => {
    const mine = await signInCookie("supervisor@plandesk.test");
    const theirs = await signInCookie("admin@plandesk.test");
    const sessionsBefore = await prisma.session.count();
    for (const token of ["", "no-such-token", tokenOf(theirs)]) {
      const res = await post("revoke-session", mine, { token });
      expect(res.status, JSON.stringify(token)).toBe(404);
      expect(((await res.json()) as { error: { code: string } }).error.code).toBe("session_not_found");
    }
    expect(await prisma.session.count()).toBe(sessionsBefore);
    expect(await signedIn(theirs)).toBe(true);
  });

  it("one of the caller's own sessions is revoked: 200, and that session is over", async () => {
    const mine = await signInCookie("supervisor@plandesk.test");
    const myOther = await signInCookie("supervisor@plandesk.test");
    const res = await post("revoke-session", mine, { token: tokenOf(myOther) });
    expect(res.status).toBe(200);
    expect(await signedIn(myOther)).toBe(false);
    expect(await signedIn(mine)).toBe(true);
  });
});
