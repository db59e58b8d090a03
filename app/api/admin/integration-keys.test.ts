/** Admins manage ticketing-integration keys: create (shown once), list, revoke — audited. */
import { beforeAll, describe, expect, it } from "vitest";
import { GET, POST } from "@/app/api/admin/integration-keys/route";
import { POST as REVOKE } from "@/app/api/admin/integration-keys/[keyId]/revoke/route";
import { POST as REVISE } from "@/app/api/v1/tasks/[taskId]/revisions/route";
import { prisma } from "@/lib/server/db/db";
import { apiRequest, routeCtx, signInCookie, TEST_ORIGIN } from "@/testing/test-auth";
import { prepareTestDatabase } from "@/testing/test-support";

let admin = "";
beforeAll(async () => {
  await prepareTestDatabase(new Date());
  admin = await signInCookie("admin@plandesk.test");
});

const revise = (key: string, comment: string) =>
  REVISE(apiRequest("POST", "/api/v1/tasks/task_75019/revisions", { key }, { comment }), routeCtx({ taskId: "task_75019" }));

describe("integration keys", () => {
  it("created once with its key, listed by prefix with last use, revoked at once; every change audited without the key", async () => {
    const created = await POST(apiRequest("POST", "/api/admin/integration-keys", { cookie: admin, origin: TEST_ORIGIN }, { name: "Zendesk sync" }), routeCtx({}));
    expect(created.status).toBe(201);
    expect(created.headers.get("cache-control")).toBe("no-store");
    const { integrationKey, key } = (await created.json()) as { integrationKey: { id: string; prefix: string; lastUsedAt: string | null }; key: string };
    expect(key.startsWith(integrationKey.prefix)).toBe(true);
    expect(integrationKey.lastUsedAt).toBeNull();

    expect((await revise(key, "Customer added a PO number.")).status).toBe(201);

    const listed = await GET(apiRequest("GET", "/api/admin/integration-keys", { cookie: admin }), routeCtx({}));
    const text = await listed.text();
    expect(text).not.toContain(key);
    const row = (JSON.parse(text) as { integrationKeys: { id: string; name: string; lastUsedAt: string | null; revokedAt: string | null }[] }).integrationKeys.find((k) => k.id === integrationKey.id)!;
    expect(row).toMatchObject({ name: "Zendesk sync", revokedAt: null });
    expect(row.lastUsedAt).not.toBeNull();

    const revoked = await REVOKE(apiRequest("POST", `/api/admin/integration-keys/${integrationKey.id}/revoke`, { cookie: admin, origin: TEST_ORIGIN }), routeCtx({ keyId: integrationKey.id }));
    expect(revoked.status).toBe(200);
    expect(((await revoked.json()) as { integrationKey: { revokedAt: string | null } }).integrationKey.revokedAt).not.toBeNull();
    expect((await revise(key, "After revoking.")).status).toBe(401);

    const changes = await prisma.auditEvent.findMany({ where: { type: "admin_change" }, orderBy: { seq: "asc" } });
    const mine = changes.filter((e) => (e.data as { target?: { id?: string } }).target?.id === integrationKey.id);
    expect(mine.map((e) => (e.data as { what: string }).what)).toEqual(["integration_key.create", "integration_key.revoke"]);
    expect(mine.every((e) => e.actorId === "usr_admin" && !JSON.stringify(e.data).includes(key))).toBe(true);
  });

  it("an unknown key id is 404; an empty name is 400", async () => {
    const res = await REVOKE(apiRequest("POST", "/api/admin/integration-keys/ikey_nope/revoke", { cookie: admin, origin: TEST_ORIGIN }), routeCtx({ keyId: "ikey_nope" }));
    expect(res.status).toBe(404);
    const bad = await POST(apiRequest("POST", "/api/admin/integration-keys", { cookie: admin, origin: TEST_ORIGIN }, { name: "  " }), routeCtx({}));
    expect(bad.status).toBe(400);
  });

  it("lists a page at a time: every key once across pages, in creation order, a bad cursor is 400", async () => {
    for (const name of ["Page key A", "Page key B", "Page key C"]) {
      expect((await POST(apiRequest("POST", "/api/admin/integration-keys", { cookie: admin, origin: TEST_ORIGIN }, { name }), routeCtx({}))).status).toBe(201);
    }
    const all = await prisma.integrationKey.findMany({ orderBy: [{ createdAt: "asc" }, { id: "asc" }], select: { id: true } });
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const res = await GET(apiRequest("GET", `/api/admin/integration-keys?limit=2${cursor ? `&cursor=${cursor}` : ""}`, { cookie: admin }), routeCtx({}));
      expect(res.status).toBe(200);
      const page = (await res.json()) as { integrationKeys: { id: string }[]; nextCursor: string | null };
      expect(page.integrationKeys.length).toBeLessThanOrEqual(2);
      seen.push(...page.integrationKeys.map((k) => k.id));
      cursor = page.nextCursor;
    } while (cursor);
    expect(seen).toEqual(all.map((k) => k.id));
    expect((await GET(apiRequest("GET", "/api/admin/integration-keys?cursor=not-a-cursor", { cookie: admin }), routeCtx({}))).status).toBe(400);
  });
});

