import { describe, expect, it } from "vitest";
import { createAgentClient } from "@plandesk/client";

type Seen = { url: string; method: string; headers: Record<string, string>; body: unknown };

/** A fetch stub that records the request and answers `status` with `body` (a string is sent raw). */
function stub(status: number, body: unknown, headers: Record<string, string> = {}) {
  const seen: Seen[] = [];
  const fetch = (async (input: RequestInfo | URL, init?: RequestInit) => {
    const req = input instanceof Request ? input : new Request(input, init);
    const text = await req.text();
    seen.push({
      url: req.url,
      method: req.method,
      headers: Object.fromEntries(req.headers.entries()),
      body: text ? JSON.parse(text) : undefined,
    });
    const answer = typeof body === "string" ? body : JSON.stringify(body);
    return new Response(answer, { status, headers: { "content-type": "application/json", ...headers } });
  }) as typeof globalThis.fetch;
  return { fetch, seen };
}

describe("createAgentClient", () => {
  it("sends the key, the idempotency key and the JSON body to the docs/api.md path, and spreads the answer", async () => {
    const s = stub(200, { claim: { token: "t".repeat(32), stepId: "s 1", digest: "d" } }, { "idempotent-replayed": "true" });
    const pd = createAgentClient({ baseUrl: "http://console:3000/", apiKey: "pd_key", fetch: s.fetch });
    const res = await pd.claimStep("run_1", "s 1", { digest: "d", taskRevision: 2 }, { idempotencyKey: "k-1" });
    expect(s.seen[0]).toMatchObject({
      url: "http://console:3000/api/v1/runs/run_1/steps/s%201/claim",
      method: "POST",
      headers: { authorization: "Bearer pd_key", "idempotency-key": "k-1", "content-type": "application/json" },
      body: { digest: "d", taskRevision: 2 },
    });
    expect(res).toEqual({ ok: true, status: 200, replayed: true, claim: { token: "t".repeat(32), stepId: "s 1", digest: "d" } });
  });

  it("returns a typed refusal with its details instead of throwing", async () => {
    const error = { code: "stopped_stale_task", message: "The task changed.", boundRevision: 1, liveRevision: 2, executedStepIds: ["s1"], blockedStepId: "s2" };
    const pd = createAgentClient({ baseUrl: "http://c", apiKey: "k", fetch: stub(409, { error }).fetch });
    const res = await pd.claimStep("r", "s2", { digest: "d", taskRevision: 1 }, { idempotencyKey: "x" });
    expect(res.ok).toBe(false);
    if (res.ok) return;
    expect(res.status).toBe(409);
    expect(res.error).toEqual(error);
    if (res.error.code === "stopped_stale_task") expect(res.error.blockedStepId).toBe("s2");
  });

  it("maps an unreachable console and non-API answers to network_error / bad_response", async () => {
    const down = createAgentClient({ baseUrl: "http://c", apiKey: "k", fetch: (async () => { throw new TypeError("fetch failed"); }) as typeof fetch });
    expect(await down.getTask("task_1")).toMatchObject({ ok: false, status: 0, error: { code: "network_error", message: expect.stringContaining("fetch failed") } });
    const html = createAgentClient({ baseUrl: "http://c", apiKey: "k", fetch: stub(502, "<html>bad gateway</html>").fetch });
    expect(await html.getRun("r")).toMatchObject({ ok: false, status: 502, error: { code: "bad_response" } });
    const noError = createAgentClient({ baseUrl: "http://c", apiKey: "k", fetch: stub(500, { oops: true }).fetch });
    expect(await noError.getRun("r")).toMatchObject({ ok: false, status: 500, error: { code: "bad_response" } });
  });

  it("builds the remaining paths of docs/api.md", async () => {
    const s = stub(200, {});
    const pd = createAgentClient({ baseUrl: "http://c", apiKey: "k", fetch: s.fetch });
    await pd.listTasks({ ticketId: "74991" });
    await pd.listTasks();
    await pd.getTask("task_74991");
    await pd.submitRun("task_74991", { taskRevision: 1, steps: [] }, { idempotencyKey: "sub-1" });
    await pd.getRun("run_1");
    await pd.reportOutcome("run_1", "s1", { token: "t", status: "unknown" });
    await pd.reviseTask("task_74991", { comment: "c" });
    await pd.applyDemoEffect({ runId: "run_1", stepId: "s1", token: "t" });
    await pd.stageDemoEffect({ runId: "run_1", stepId: "s1", token: "t" });
    await pd.promoteDemoEffects("run_1");
    expect(s.seen.map((x) => `${x.method} ${x.url.replace("http://c", "")}`)).toEqual([
      "GET /api/v1/tasks?ticketId=74991",
      "GET /api/v1/tasks",
      "GET /api/v1/tasks/task_74991",
      "POST /api/v1/tasks/task_74991/runs",
      "GET /api/v1/runs/run_1",
      "POST /api/v1/runs/run_1/steps/s1/outcome",
      "POST /api/v1/tasks/task_74991/revisions",
      "POST /api/v1/demo/effects",
      "POST /api/v1/demo/effects",
      "POST /api/v1/demo/effects/promote",
    ]);
    expect(s.seen[7].body).toEqual({ runId: "run_1", stepId: "s1", token: "t" });
    expect(s.seen[8].body).toEqual({ runId: "run_1", stepId: "s1", token: "t", stage: true });
    expect(s.seen[9].body).toEqual({ runId: "run_1" });
    expect(s.seen[3].headers["idempotency-key"]).toBe("sub-1");
    expect(s.seen[0].headers["content-type"]).toBeUndefined();
  });
});
