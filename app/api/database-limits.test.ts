/**
 * What one database stores and another does not: PostgreSQL cannot hold a NUL
 * character (U+0000) in text or JSON, and its `Int` columns are 32-bit. Such input is a typed
 * 422 on every database, never a 500, and the database is unchanged. Runs on SQLite and, with
 * PLANDESK_TEST_DB=postgres, on PostgreSQL (`npm test` does both); id prefix search behaves the same.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { prisma } from "@/lib/server/db/db";
import { DEMO_AGENT_KEY } from "@/lib/server/demo/seed";
import { prepareTestDatabase } from "@/testing/test-support";
import { apiRequest, routeCtx, signInCookie, TEST_ORIGIN, type Credentials } from "@/testing/test-auth";
import { PUT as putGrant } from "./admin/users/[userId]/grants/[tool]/route";
import { GET as searchRecords } from "./account-data/[kind]/route";
import { POST as submitRun } from "./v1/tasks/[taskId]/runs/route";

let admin: Credentials;
let operator: Credentials;

beforeAll(async () => {
  await prepareTestDatabase();
  admin = { cookie: await signInCookie("admin@plandesk.test"), origin: TEST_ORIGIN };
  operator = { cookie: await signInCookie("operator@plandesk.test"), origin: TEST_ORIGIN };
});

async function refusal(res: Response, status: number, code: string) {
  const body = (await res.json()) as { error: { code: string; message: string; issues?: { path: string }[] } };
  expect(res.status, JSON.stringify(body)).toBe(status);
  expect(body.error.code).toBe(code);
  return body.error;
}

describe("numbers beyond a 32-bit column", () => {
  const grant = (minor: number) => ({ canApprove: true, approveLimit: { minor, currency: "USD" }, canAuthor: false, authorLimit: null });
  const put = (body: unknown) => putGrant(apiRequest("PUT", "/api/admin/users/usr_operator/grants/issue_refund", admin, body), routeCtx({ userId: "usr_operator", tool: "issue_refund" }));

  it("a grant ceiling above 2^31 − 1 minor units is a 422 naming the field, and the grant is unchanged", async () => {
    const before = await prisma.grant.findUnique({ where: { userId_tool: { userId: "usr_operator", tool: "issue_refund" } } });
    for (const minor of [2 ** 31, 100_000_000_000]) {
      const error = await refusal(await put(grant(minor)), 422, "validation_failed");
      expect(error.issues?.map((i) => i.path)).toEqual(["approveLimit.minor"]);
    }
    expect(await prisma.grant.findUnique({ where: { userId_tool: { userId: "usr_operator", tool: "issue_refund" } } })).toEqual(before);
  });

  it("the largest ceiling a column holds is stored and read back exactly", async () => {
    const res = await put(grant(2 ** 31 - 1));
    expect(res.status).toBe(200);
    expect(((await res.json()) as { grant: { approveLimit: { minor: number } } }).grant.approveLimit.minor).toBe(2 ** 31 - 1);
  });
});

describe("NUL characters in text", () => {
  it("a plan whose note holds a NUL is a 422 naming the field, and no run is stored", async () => {
    const runs = await prisma.run.count();
    const events = await prisma.auditEvent.count();
    const task = await prisma.task.findUniqueOrThrow({ where: { id: "task_75002" } });
    const body = { taskRevision: task.revision, steps: [{ id: "s1", tool: "add_ticket_note", args: { ticketId: "75002", note: "before\u0000after" } }] };
    const req = new Request(`${TEST_ORIGIN}/api/v1/tasks/task_75002/runs`, {
      method: "POST",
      headers: { authorization: `Bearer ${DEMO_AGENT_KEY}`, "content-type": "application/json", "idempotency-key": "nul-1" },
      body: JSON.stringify(body),
    });
    const error = await refusal(await submitRun(req, routeCtx({ taskId: "task_75002" })), 422, "validation_failed");
    expect(error.issues?.map((i) => i.path)).toEqual(["steps.0.args.note"]);
    expect(await prisma.run.count()).toBe(runs);
    expect(await prisma.auditEvent.count()).toBeGreaterThanOrEqual(events); // the refusal itself may be audited
  });

  it("a search for an id holding a NUL is a 422, and ordinary prefixes match by byte order on every database", async () => {
    const search = (q: string) => searchRecords(apiRequest("GET", `/api/account-data/invoice?q=${encodeURIComponent(q)}`, operator), routeCtx({ kind: "invoice" }));
    await refusal(await search("in_74\u0000"), 422, "validation_failed");
    const res = await search("in_741");
    expect(res.status).toBe(200);
    const ids = ((await res.json()) as { records: { id: string }[] }).records.map((r) => r.id);
    expect(ids.length).toBeGreaterThan(0);
    expect(ids.every((id) => id.startsWith("in_741"))).toBe(true);
    expect(ids).toEqual([...ids].sort());
    const upper = await search("IN_741"); // case-sensitive, like the ids
    expect(((await upper.json()) as { records: unknown[] }).records).toEqual([]);
  });
});
