/**
 * Every refusal of an authenticated caller is on the record (issue #13, DESIGN.md §11: denials are
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
import { prisma } from "@/lib/server/db";
import { loadViewer, type Viewer } from "@/lib/server/session";
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
