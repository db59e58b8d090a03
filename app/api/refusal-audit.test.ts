/**
 * Every refusal of an authenticated caller is on the record (docs/design.md §11: denials are
 * data), also those no service audits itself: another desk's operator asking for a run gets 404
 * and a `denied` event; a stale plan version gets its typed 409 and a `refused` event; an outcome
 * reported with another agent's claim token gets `invalid_claim_token` and a `denied` event
 * naming the foreign run. Called through the real route handlers with real sessions and keys.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { GET as getRun } from "@/app/api/runs/[runId]/route";
import { POST as approve } from "@/app/api/runs/[runId]/approvals/route";
import { POST as outcome } from "@/app/api/v1/runs/[runId]/steps/[stepId]/outcome/route";
import { createApiKey, createAgent, createUser } from "@/lib/server/admin/admin";
import { prisma } from "@/lib/server/db/db";
import { loadViewer, type Viewer } from "@/lib/server/auth/session";
import { apiRequest, routeCtx, signInCookie, TEST_ORIGIN } from "@/testing/test-auth";
import { prepareTestDatabase } from "@/testing/test-support";

let admin: Viewer;
let outsiderCookie = "";
let operatorCookie = "";
let runId = "";

beforeAll(async () => {
  await prepareTestDatabase(new Date());
  admin = (await loadViewer("usr_admin"))!;
  const outsider = await createUser(admin, { email: "olga.parcel@example.com", name: "Olga Parcel", role: "operator", password: "olga-password-1" });
  await prisma.user.update({ where: { id: outsider.id }, data: { desk: "parcel" } });
  outsiderCookie = await signInCookie("olga.parcel@example.com", "olga-password-1");
  operatorCookie = await signInCookie("operator@plandesk.test");
  runId = (await prisma.run.findFirstOrThrow({ where: { status: "pending_review" }, select: { id: true } })).id;
});

/** The audit log's last sequence number: events after it were written by the request under test. */
const lastSeq = async () => (await prisma.auditEvent.aggregate({ _max: { seq: true } }))._max.seq ?? 0;
const eventsSince = (seq: number, type: string) => prisma.auditEvent.findMany({ where: { type, seq: { gt: seq } } });

describe("refusals nobody audited before are on the record", () => {
  it("another desk's operator: 404 and a denied event naming them and the endpoint", async () => {
    const since = await lastSeq();
    const res = await getRun(apiRequest("GET", `/api/runs/${runId}`, { cookie: outsiderCookie, origin: TEST_ORIGIN }), routeCtx({ runId }));
    expect(res.status).toBe(404);
    const denied = await eventsSince(since, "denied");
    expect(denied).toHaveLength(1);
    expect(denied[0]).toMatchObject({ runId, actorKind: "user" });
    expect(denied[0].data).toMatchObject({ code: "not_found", action: `GET /api/runs/${runId}` });
  });

  it("a stale plan version: 409 and one refused event with its code", async () => {
    const since = await lastSeq();
    const res = await approve(
      apiRequest("POST", `/api/runs/${runId}/approvals`, { cookie: operatorCookie, origin: TEST_ORIGIN }, { planVersion: 99, stepIds: "all", idempotencyKey: "stale-1" }),
      routeCtx({ runId }),
    );
    expect(res.status).toBe(409);
    const code = (await res.json()).error.code;
    const refusedEvents = await eventsSince(since, "refused");
    expect(refusedEvents).toHaveLength(1);
    expect(refusedEvents[0].runId).toBe(runId);
    expect(refusedEvents[0].data).toMatchObject({ code, action: `POST /api/runs/${runId}/approvals` });
  });

  it("an outcome with another agent's token: refused, and a denied event naming the foreign run", async () => {
    const second = await createAgent(admin, { name: "Second agent", allowedTools: ["send_reply"] });
    const key = (await createApiKey(admin, second.id)).key;
    const target = { runId, stepId: "s1", token: "tok_of_the_demo_agent" };
    const since = await lastSeq();
    const res = await outcome(
      apiRequest("POST", `/api/v1/runs/${target.runId}/steps/${target.stepId}/outcome`, { key }, { token: target.token, status: "succeeded" }),
      routeCtx({ runId: target.runId, stepId: target.stepId }),
    );
    expect(res.status).toBe(409);
    expect((await res.json()).error.code).toBe("invalid_claim_token");
    const denied = await eventsSince(since, "denied");
    expect(denied).toHaveLength(1);
    expect(denied[0]).toMatchObject({ runId: null, actorKind: "agent", actorId: second.id });
    expect(denied[0].data).toMatchObject({ action: "report_outcome", code: "invalid_claim_token", foreignRunId: target.runId });
  });
});

describe("refusals of unidentified callers are counted, not written one by one", () => {
  const refusalCounts = () => prisma.refusalCount.findMany({ where: { route: "POST /api/runs/{runId}/approvals" } });
  const flood = (n: number, origin: string, address: string) =>
    Promise.all(
      Array.from({ length: n }, () => {
        const req = apiRequest("POST", `/api/runs/${runId}/approvals`, { origin }, { planVersion: 1, stepIds: "all", idempotencyKey: "flood" });
        req.headers.set("x-plandesk-client-ip", address);
        return approve(req, routeCtx({ runId }));
      }),
    );

  it("200 signed-out requests with an 8 KB Origin add no audit event and one bounded counter row of 200", async () => {
    await prisma.refusalCount.deleteMany({});
    const since = await lastSeq();
    const origin = `https://${"a".repeat(8000)}.example`;
    // in parallel batches: concurrent upserts of the same row must all be counted
    for (let i = 0; i < 10; i++) for (const res of await flood(20, origin, "203.0.113.7")) expect(res.status).toBe(403);
    expect(await eventsSince(since, "denied")).toHaveLength(0);
    const rows = await refusalCounts();
    expect(rows.reduce((n, r) => n + r.count, 0)).toBe(200);
    expect(rows.length).toBeLessThanOrEqual(2); // one per minute (the flood may straddle a minute's end)
    for (const r of rows) {
      expect(r).toMatchObject({ address: "203.0.113.7", code: "cross_origin", missing: "same_origin" });
      expect(r.origin!.length).toBeLessThanOrEqual(90);
      expect(r.origin!.startsWith("https://aaaa")).toBe(true);
    }
  });

  it("a second address gets its own row; a raw path never becomes the route", async () => {
    await prisma.refusalCount.deleteMany({});
    await flood(3, TEST_ORIGIN, "198.51.100.9"); // same origin but no session: 401 unauthorized
    await flood(2, "https://evil.example", "203.0.113.7");
    const rows = await refusalCounts();
    const by = (a: string) => rows.filter((r) => r.address === a).reduce((n, r) => n + r.count, 0);
    expect(by("198.51.100.9")).toBe(3);
    expect(by("203.0.113.7")).toBe(2);
    expect(rows.find((r) => r.address === "198.51.100.9")).toMatchObject({ code: "unauthorized", missing: "session" });
    expect(rows.every((r) => !r.route.includes(runId))).toBe(true);
  });

  it("a cross-site request riding on a valid session: the first of its minute is a denied event naming the person, the repeats are counted under the person", async () => {
    await prisma.refusalCount.deleteMany({});
    // at least 5 s left in the UTC minute, so both requests fall in one
    while (new Date().getUTCSeconds() > 55) await new Promise((r) => setTimeout(r, 250));
    const operatorId = (await prisma.user.findUniqueOrThrow({ where: { email: "operator@plandesk.test" } })).id;
    const since = await lastSeq();
    const res = await approve(
      apiRequest("POST", `/api/runs/${runId}/approvals`, { cookie: operatorCookie, origin: "https://evil.example" }, { planVersion: 1, stepIds: "all", idempotencyKey: "x" }),
      routeCtx({ runId }),
    );
    expect(res.status).toBe(403);
    const denied = await eventsSince(since, "denied");
    expect(denied).toHaveLength(1);
    expect(denied[0]).toMatchObject({ actorKind: "user", actorId: operatorId });
    expect(denied[0].data).toMatchObject({ code: "cross_origin", missing: { kind: "same_origin", origin: "https://evil.example" }, repeatsCounted: true });
    // the repeat is answered the same and counted; its long Origin bounded to 64 characters and a hash
    const long = await approve(
      apiRequest("POST", `/api/runs/${runId}/approvals`, { cookie: operatorCookie, origin: `https://${"b".repeat(8000)}.example` }, { planVersion: 1, stepIds: "all", idempotencyKey: "y" }),
      routeCtx({ runId }),
    );
    expect(long.status).toBe(403);
    expect(await eventsSince(since, "denied")).toHaveLength(1);
    const rows = await refusalCounts();
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ address: `person:${operatorId}`, code: "cross_origin", missing: "same_origin", count: 2 });
    expect(rows[0].origin!.length).toBeLessThanOrEqual(90);
    expect(rows[0].origin!.startsWith("https://bbbb")).toBe(true);
  });
});
