import { describe, expect, it } from "vitest";
import { createAgentClient, executeStep } from "@plandesk/client";

type Seen = { path: string; body: unknown };

/** A console stub answering claim, fence and outcome by path; `fence` decides the fence's answer from its body. */
function consoleStub(fence: (body: { targetVersions?: Record<string, number> } | undefined) => { status: number; body: unknown }) {
  const seen: Seen[] = [];
  const fetch = (async (input: RequestInfo | URL, init?: RequestInit) => {
    const req = input instanceof Request ? input : new Request(input, init);
    const text = await req.text();
    const body = text ? JSON.parse(text) : undefined;
    const path = new URL(req.url).pathname;
    seen.push({ path, body });
    const json = (status: number, b: unknown) => new Response(JSON.stringify(b), { status, headers: { "content-type": "application/json" } });
    if (path.endsWith("/claim")) return json(200, { claim: { token: "tok_".padEnd(32, "x"), stepId: "r1", digest: "d", recordVersions: { "invoice:in_74119": 8 } } });
    if (path.endsWith("/fence")) {
      const a = fence(body);
      return json(a.status, a.body);
    }
    return json(200, { step: { stepId: "r1" }, run: { id: "run_1", status: "completed" } });
  }) as typeof globalThis.fetch;
  return { client: createAgentClient({ baseUrl: "http://c", apiKey: "k", fetch }), seen };
}
const step = { runId: "run_1", stepId: "r1", digest: "d", taskRevision: 1, idempotencyKey: "run_1:r1" };
const holds = { status: 200, body: { fence: { holds: true } } };

describe("executeStep and the record versions at the write", () => {
  it("sends the live target versions to the fence, and the written versions with the outcome", async () => {
    const c = consoleStub(() => holds);
    const res = await executeStep(c.client, step, async ({ claim, fence }) => {
      expect(claim.recordVersions).toEqual({ "invoice:in_74119": 8 });
      const f = await fence({ targetVersions: { "invoice:in_74119": 8 } });
      if (!f.ok) return { status: "failed" };
      return { status: "succeeded", detail: "refunded", targetVersions: { "invoice:in_74119": 9 } };
    });
    expect(res.ok).toBe(true);
    expect(c.seen.find((s) => s.path.endsWith("/fence"))?.body).toEqual({ targetVersions: { "invoice:in_74119": 8 } });
    expect(c.seen.find((s) => s.path.endsWith("/outcome"))?.body).toEqual({ token: "tok_".padEnd(32, "x"), status: "succeeded", detail: "refunded", targetVersions: { "invoice:in_74119": 9 } });
  });

  it("a target_changed refusal: the write does not happen, the step is reported failed, and the helper ends typed with the record's versions", async () => {
    const error = { code: "target_changed", message: "invoice:in_74119 is at version 9", record: "invoice:in_74119", approvedVersion: 8, liveVersion: 9, runId: "run_1", stepId: "r1" };
    const c = consoleStub(() => ({ status: 409, body: { error } }));
    let wrote = false;
    const res = await executeStep(c.client, step, async ({ fence }) => {
      const f = await fence({ targetVersions: { "invoice:in_74119": 9 } });
      if (!f.ok) return { status: "failed", detail: `not written: ${f.error.code}` };
      wrote = true;
      return { status: "succeeded", targetVersions: { "invoice:in_74119": 10 } };
    });
    expect(wrote).toBe(false);
    expect(res).toMatchObject({ ok: false, stage: "fence", error: { code: "target_changed", record: "invoice:in_74119", approvedVersion: 8, liveVersion: 9 } });
    const outcome = c.seen.find((s) => s.path.endsWith("/outcome"))?.body as Record<string, unknown>;
    expect(outcome).toMatchObject({ status: "failed" });
    expect(outcome.targetVersions).toBeUndefined();
  });

  it("a write that ignores the refusal and says succeeded is still reported failed, without versions", async () => {
    const c = consoleStub(() => ({ status: 409, body: { error: { code: "target_changed", message: "moved", record: "invoice:in_74119", approvedVersion: 8, liveVersion: 9 } } }));
    await executeStep(c.client, step, async ({ fence }) => {
      await fence({ targetVersions: { "invoice:in_74119": 9 } });
      return { status: "succeeded", targetVersions: { "invoice:in_74119": 10 } };
    });
    expect(c.seen.find((s) => s.path.endsWith("/outcome"))?.body).toMatchObject({ status: "failed", detail: "not written: the fence refused (target_changed)" });
  });

  it("a fence without versions sends no body (only the token is checked)", async () => {
    const c = consoleStub(() => holds);
    await executeStep(c.client, step, async ({ fence }) => ((await fence()).ok ? { status: "succeeded" } : { status: "failed" }));
    expect(c.seen.find((s) => s.path.endsWith("/fence"))?.body).toBeUndefined();
  });
});
