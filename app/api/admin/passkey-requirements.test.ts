/**
 * Requiring a passkey per role through `PUT /api/admin/passkey-requirements` (the route handler
 * with real sessions, SQLite and PostgreSQL): what the admin page's "Passkeys required" boxes send
 * and what the page reads back (`rolesRequiringPasskey()`, in ROLES order). A change is audited
 * once with before/after, repeating it changes and records nothing, a person of a required role
 * without a passkey must register one (another role's person need not), and a non-admin or a
 * malformed body is refused with nothing changed. `GET` answers the same roles and, per role, how
 * many enabled people have no passkey yet (what the page shows under each box); admins only.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { prisma } from "@/lib/server/db/db";
import { mustRegisterPasskey, rolesRequiringPasskey } from "@/lib/server/auth/passkey-requirement";
import { apiRequest, routeCtx, signInCookie, TEST_ORIGIN, type Credentials } from "@/testing/test-auth";
import { prepareTestDatabase } from "@/testing/test-support";
import { GET, PUT } from "./passkey-requirements/route";

type Json = Record<string, any>;
let admin: Credentials;
let operator: Credentials;

async function put(body: unknown, creds: Credentials = admin) {
  const res = await PUT(apiRequest("PUT", "/api/admin/passkey-requirements", creds, body), routeCtx({}) as never);
  const text = await res.text();
  return { status: res.status, body: (text ? JSON.parse(text) : {}) as Json };
}
async function get(creds: Credentials = admin) {
  const res = await GET(apiRequest("GET", "/api/admin/passkey-requirements", creds), routeCtx({}) as never);
  return { status: res.status, body: (await res.json()) as Json };
}
const changes = () =>
  prisma.auditEvent.findMany({ where: { type: "admin_change" }, orderBy: { seq: "asc" } }).then((es) => es.map((e) => e.data as Json).filter((d) => d.what === "passkey_requirement"));

beforeAll(async () => {
  await prepareTestDatabase();
  admin = { cookie: await signInCookie("admin@plandesk.test"), origin: TEST_ORIGIN };
  operator = { cookie: await signInCookie("operator@plandesk.test"), origin: TEST_ORIGIN };
});

describe("PUT /api/admin/passkey-requirements", () => {
  it("requires a passkey for a role: answered and read back in ROLES order, audited once, idempotent", async () => {
    expect(await rolesRequiringPasskey()).toEqual([]);
    expect(await put({ role: "supervisor", required: true })).toEqual({ status: 200, body: { roles: ["supervisor"] } });
    expect(await put({ role: "operator", required: true })).toEqual({ status: 200, body: { roles: ["operator", "supervisor"] } });
    expect(await rolesRequiringPasskey()).toEqual(["operator", "supervisor"]);
    expect(await put({ role: "supervisor", required: true })).toEqual({ status: 200, body: { roles: ["operator", "supervisor"] } });
    expect(await changes()).toEqual([
      expect.objectContaining({ target: { kind: "role", id: "supervisor" }, before: { required: false }, after: { required: true } }),
      expect.objectContaining({ target: { kind: "role", id: "operator" }, before: { required: false }, after: { required: true } }),
    ]);
  });

  it("sends a person of a required role without a passkey to register one; other roles and people with one are not", async () => {
    const supervisor = await prisma.user.findUniqueOrThrow({ where: { email: "supervisor@plandesk.test" }, select: { id: true, role: true } });
    const adm = await prisma.user.findUniqueOrThrow({ where: { email: "admin@plandesk.test" }, select: { id: true, role: true } });
    expect(await mustRegisterPasskey(supervisor as never)).toBe(true);
    expect(await mustRegisterPasskey(adm as never)).toBe(false);
    await prisma.passkey.create({ data: { id: "pk_req_test", userId: supervisor.id, credentialID: "cred-req-test", publicKey: "AQID", counter: 0, deviceType: "singleDevice", backedUp: false } });
    expect(await mustRegisterPasskey(supervisor as never)).toBe(false);
  });

  it("stops requiring it: the role leaves the list, audited", async () => {
    expect(await put({ role: "operator", required: false })).toEqual({ status: 200, body: { roles: ["supervisor"] } });
    expect(await put({ role: "supervisor", required: false })).toEqual({ status: 200, body: { roles: [] } });
    expect(await rolesRequiringPasskey()).toEqual([]);
    expect((await changes()).slice(-2).map((d) => [d.target.id, d.after.required])).toEqual([
      ["operator", false],
      ["supervisor", false],
    ]);
  });

  it("refuses a non-admin (403) and a malformed body (400); nothing changes", async () => {
    const before = (await changes()).length;
    const refused = await put({ role: "operator", required: true }, operator);
    expect(refused.status).toBe(403);
    expect(refused.body.error.code).toBe("forbidden");
    for (const body of [{ role: "owner", required: true }, { role: "operator" }, { role: "operator", required: "yes" }, { role: "operator", required: true, extra: 1 }]) {
      const res = await put(body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.error.code).toBe("bad_request");
    }
    expect(await rolesRequiringPasskey()).toEqual([]);
    expect((await changes()).length).toBe(before);
  });
});

describe("GET /api/admin/passkey-requirements", () => {
  /** Enabled people of `role` without a passkey, counted one by one (what the grouped count must equal). */
  const lacking = (role: string) => prisma.user.count({ where: { role, disabled: false, passkeys: { none: {} } } });

  it("answers the required roles and, per role, how many enabled people have no passkey yet; a new passkey, a disabled person change the count", async () => {
    expect(await put({ role: "supervisor", required: true })).toMatchObject({ status: 200 });
    const first = await get();
    expect(first.status).toBe(200);
    expect(first.body.roles).toEqual(["supervisor"]);
    expect(first.body.withoutPasskey).toEqual({ operator: await lacking("operator"), supervisor: await lacking("supervisor"), admin: await lacking("admin") });
    expect(first.body.withoutPasskey.operator).toBeGreaterThan(0);

    // an operator registers a passkey: one fewer operator without one
    const op = await prisma.user.findUniqueOrThrow({ where: { email: "operator@plandesk.test" }, select: { id: true } });
    await prisma.passkey.create({ data: { id: "pk_overview_test", userId: op.id, credentialID: "cred-overview-test", publicKey: "AQID", counter: 0, deviceType: "singleDevice", backedUp: false } });
    expect((await get()).body.withoutPasskey.operator).toBe(first.body.withoutPasskey.operator - 1);

    // a disabled person without a passkey is not counted (they cannot sign in)
    const other = await prisma.user.findFirstOrThrow({ where: { role: "operator", disabled: false, passkeys: { none: {} } }, select: { id: true } });
    await prisma.user.update({ where: { id: other.id }, data: { disabled: true } });
    expect((await get()).body.withoutPasskey.operator).toBe(first.body.withoutPasskey.operator - 2);
    await prisma.user.update({ where: { id: other.id }, data: { disabled: false } });
    await prisma.passkey.delete({ where: { id: "pk_overview_test" } });
    expect(await put({ role: "supervisor", required: false })).toMatchObject({ status: 200, body: { roles: [] } });
  });

  it("refuses a non-admin with 403", async () => {
    const refused = await get(operator);
    expect(refused.status).toBe(403);
    expect(refused.body.error.code).toBe("forbidden");
  });
});
