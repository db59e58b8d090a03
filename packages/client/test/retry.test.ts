/**
 * The client's retries of repeatable calls answered `503 database_unavailable`, against a fake
 * console (a real HTTP server on a free port) that answers from a script of statuses.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAgentClient } from "@plandesk/client";

type Answer = { status: number; body: unknown; headers?: Record<string, string> };
type Seen = { at: number; method: string; path: string; key: string | undefined };

const unavailable = (retryAfter: string | null, retryAfterSeconds = 5): Answer => ({
  status: 503,
  body: { error: { code: "database_unavailable", message: "The database cannot be reached right now; nothing was saved.", retryAfterSeconds } },
  headers: retryAfter === null ? {} : { "retry-after": retryAfter },
});
const claimed: Answer = { status: 200, body: { claim: { token: "t".repeat(32), stepId: "s1", digest: "d" } } };

let script: Answer[] = [];
let seen: Seen[] = [];
let server: http.Server;
let baseUrl = "";

beforeAll(async () => {
  server = http.createServer((req, res) => {
    seen.push({ at: performance.now(), method: req.method!, path: req.url!, key: req.headers["idempotency-key"] as string | undefined });
    req.resume();
    const answer = script.length > 1 ? script.shift()! : script[0];
    res.writeHead(answer.status, { "content-type": "application/json", ...answer.headers });
    res.end(JSON.stringify(answer.body));
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

/** Sets what the fake console answers, in order (the last one from then on). */
function answers(...list: Answer[]) {
  script = list;
  seen = [];
}

describe("retries on 503 database_unavailable", () => {
  it("a claim with an idempotency key is sent again with the same key after Retry-After, until it is answered", async () => {
    answers(unavailable("1"), unavailable("1"), claimed);
    const pd = createAgentClient({ baseUrl, apiKey: "k" });
    const res = await pd.claimStep("run_1", "s1", { digest: "d", taskRevision: 1 }, { idempotencyKey: "claim-1" });
    expect(res).toMatchObject({ ok: true, status: 200, claim: { stepId: "s1" } });
    expect(seen.map((s) => s.key)).toEqual(["claim-1", "claim-1", "claim-1"]);
    // each repeat came no sooner than the Retry-After second (a small allowance for timer rounding)
    expect(seen[1].at - seen[0].at).toBeGreaterThanOrEqual(990);
    expect(seen[2].at - seen[1].at).toBeGreaterThanOrEqual(990);
  });

  it("a GET is repeated too, waiting the body's retryAfterSeconds when the header is missing", async () => {
    answers(unavailable(null, 1), { status: 200, body: { run: { id: "run_1" } } });
    const pd = createAgentClient({ baseUrl, apiKey: "k" });
    const res = await pd.getRun("run_1");
    expect(res).toMatchObject({ ok: true, run: { id: "run_1" } });
    expect(seen).toHaveLength(2);
    expect(seen[1].at - seen[0].at).toBeGreaterThanOrEqual(990);
  });

  it("is bounded: after maxRetries the last 503 is returned", async () => {
    answers(unavailable("0"));
    const pd = createAgentClient({ baseUrl, apiKey: "k", retry: { maxRetries: 2 } });
    const res = await pd.getTask("task_1");
    expect(res).toMatchObject({ ok: false, status: 503, error: { code: "database_unavailable" } });
    expect(seen).toHaveLength(3);
  });

  it("does not wait beyond its bounds: a Retry-After over maxWaitSeconds, or over what is left of the budget, returns the 503 at once", async () => {
    const t = performance.now();
    answers(unavailable("120"));
    expect(await createAgentClient({ baseUrl, apiKey: "k" }).listTasks()).toMatchObject({ ok: false, status: 503 });
    expect(seen).toHaveLength(1);
    answers(unavailable("1"));
    expect(await createAgentClient({ baseUrl, apiKey: "k", retry: { budgetSeconds: 2.5 } }).listTasks()).toMatchObject({ ok: false, status: 503 });
    expect(seen).toHaveLength(3); // waited 1 + 1 s; a third second would pass the 2.5 s budget
    expect(performance.now() - t).toBeLessThan(5_000);
  });

  it("never repeats a write without an idempotency key, nor anything when retry is false, nor other 503s", async () => {
    answers(unavailable("0"));
    const pd = createAgentClient({ baseUrl, apiKey: "k" });
    expect(await pd.reportOutcome("run_1", "s1", { token: "t", status: "succeeded" })).toMatchObject({ ok: false, status: 503 });
    expect(seen).toHaveLength(1);
    answers(unavailable("0"));
    const once = createAgentClient({ baseUrl, apiKey: "k", retry: false });
    expect(await once.claimStep("run_1", "s1", { digest: "d", taskRevision: 1 }, { idempotencyKey: "claim-2" })).toMatchObject({ ok: false, status: 503 });
    expect(seen).toHaveLength(1);
    answers({ status: 503, body: { error: { code: "busy", message: "Busy." } }, headers: { "retry-after": "0" } });
    expect(await pd.getRun("run_1")).toMatchObject({ ok: false, status: 503, error: { code: "busy" } });
    expect(seen).toHaveLength(1);
  });
});
