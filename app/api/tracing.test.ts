/**
 * Traces and logs of the decision path (docs/operations.md "Traces" and "Logs"): an
 * agent's and a person's requests that carry a W3C `traceparent` are answered inside a server span
 * of that trace, named by the endpoint template, with `validate`, `gate`, `approve`, `claim`,
 * `fence` and `outcome` spans under it and Prisma's SQL statement spans under those; each answer
 * names its trace in `traceresponse`. The log lines written while answering are JSON with the
 * trace id. Neither a span nor a log line carries the agent's key, a session cookie or the plan's
 * text. Spans go to an in-memory exporter; the route handlers are called in this process.
 */
import { InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from "@opentelemetry/sdk-trace-base";
import { nanoid } from "nanoid";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { log, setLogSink } from "@/lib/net/log.mjs";
import { prisma } from "@/lib/server/db/db";
import { DEMO_AGENT_KEY } from "@/lib/server/demo/seed";
import { startTracing } from "@/lib/server/trace/start-tracing";
import { apiRequest, routeCtx, signInCookie, TEST_ORIGIN } from "@/testing/test-auth";
import { prepareTestDatabase, withRequiredReasons } from "@/testing/test-support";
import { POST as approveRoute } from "./runs/[runId]/approvals/route";
import { POST as fenceRoute } from "./v1/claims/[token]/fence/route";
import { POST as claimRoute } from "./v1/runs/[runId]/steps/[stepId]/claim/route";
import { POST as outcomeRoute } from "./v1/runs/[runId]/steps/[stepId]/outcome/route";
import { POST as submitRoute } from "./v1/tasks/[taskId]/runs/route";

type Json = Record<string, any>;
const exporter = new InMemorySpanExporter();
startTracing({ spanProcessors: [new SimpleSpanProcessor(exporter)] });

const TRACE_ID = "4bf92f3577b34da6a3ce929d0e0e4736";
const CALLER_SPAN = "00f067aa0ba902b7";
const TRACEPARENT = `00-${TRACE_ID}-${CALLER_SPAN}-01`;
/** Customer text planted in the plan: it must reach no span and no log line. */
const PLANTED_TEXT = "Planted-customer-text-7Q2ZK";
/** A key no agent has: its refusal is logged nowhere with the key in it. */
const PLANTED_KEY = "pd_planted_secret_key_3XW9M";

const lines: string[] = [];
let senior: string;
let levelBefore: string;

const agentRequest = (method: string, path: string, body?: unknown, key = DEMO_AGENT_KEY) =>
  new Request(`${TEST_ORIGIN}${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, traceparent: TRACEPARENT, "idempotency-key": nanoid(), ...(body === undefined ? {} : { "content-type": "application/json" }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });

/** Calls a route and returns its status, body and `traceresponse` header. */
async function call(res: Promise<Response>): Promise<{ status: number; body: Json; traceresponse: string | null }> {
  const r = await res;
  return { status: r.status, body: (await r.json()) as Json, traceresponse: r.headers.get("traceresponse") };
}

beforeAll(async () => {
  await prepareTestDatabase();
  senior = await signInCookie("senior@plandesk.test");
  levelBefore = log.level;
  log.level = "debug";
  setLogSink((line) => lines.push(line));
});

afterAll(() => {
  setLogSink(null);
  log.level = levelBefore;
});

describe("a traceparent through the decision path", () => {
  let spans: ReadableSpan[];
  const byId = () => new Map(spans.map((s) => [s.spanContext().spanId, s]));
  /** The names of `span`'s ancestors, nearest first. */
  const ancestors = (span: ReadableSpan): string[] => {
    const ids = byId();
    const out: string[] = [];
    for (let p = ids.get(span.parentSpanContext?.spanId ?? ""); p; p = ids.get(p.parentSpanContext?.spanId ?? "")) out.push(p.name);
    return out;
  };

  it("submit, approve, claim, fence and report: each answer names the caller's trace; spans for every decision step, SQL under them", async () => {
    exporter.reset();
    lines.length = 0;
    const TASK = "task_75016";
    const task = await prisma.task.findUniqueOrThrow({ where: { id: TASK } });
    const steps = withRequiredReasons([
      { id: "s_note", tool: "add_ticket_note", args: { ticketId: "75016", note: `${PLANTED_TEXT}: refund of the damaged share agreed.` } },
      { id: "s_refund", tool: "issue_refund", args: { invoiceId: "in_74403", amount: { minor: 10000, currency: "USD" }, reason: "Goodwill" } },
    ]);
    const submitted = await call(submitRoute(agentRequest("POST", `/api/v1/tasks/${TASK}/runs`, { taskRevision: task.revision, steps }), routeCtx({ taskId: TASK })));
    expect(submitted.status).toBe(201);
    expect(submitted.traceresponse).toMatch(new RegExp(`^00-${TRACE_ID}-[0-9a-f]{16}-01$`));
    const run = submitted.body.run;

    const personal = apiRequest("POST", `/api/runs/${run.id}/approvals`, { cookie: senior, origin: TEST_ORIGIN }, { planVersion: run.planVersion, stepIds: "all", idempotencyKey: nanoid() });
    personal.headers.set("traceparent", TRACEPARENT);
    const approved = await call(approveRoute(personal, routeCtx({ runId: run.id })));
    expect([200, 201]).toContain(approved.status);
    expect(approved.traceresponse).toContain(TRACE_ID);

    const current = await prisma.run.findUniqueOrThrow({ where: { id: run.id }, include: { planVersions: true } });
    for (const step of run.steps as Json[]) {
      const claimed = await call(claimRoute(agentRequest("POST", `/api/v1/runs/${run.id}/steps/${step.id}/claim`, { digest: step.digest, taskRevision: current.boundTaskRevision }), routeCtx({ runId: run.id, stepId: step.id })));
      expect(claimed.status, JSON.stringify(claimed.body)).toBe(200);
      const token = claimed.body.claim.token as string;
      const fenced = await call(fenceRoute(agentRequest("POST", `/api/v1/claims/${token}/fence`, {}), routeCtx({ token })));
      expect(fenced.status, JSON.stringify(fenced.body)).toBe(200);
      const reported = await call(outcomeRoute(agentRequest("POST", `/api/v1/runs/${run.id}/steps/${step.id}/outcome`, { token, status: "succeeded" }), routeCtx({ runId: run.id, stepId: step.id })));
      expect(reported.status).toBe(200);
      expect(reported.traceresponse).toContain(TRACE_ID);
    }
    // a request with a key no agent has: refused, in the same trace
    const refused = await call(submitRoute(agentRequest("POST", `/api/v1/tasks/${TASK}/runs`, { taskRevision: task.revision, steps }, PLANTED_KEY), routeCtx({ taskId: TASK })));
    expect(refused.status).toBe(401);

    // this file's own reads (outside any request) are traces of their own; everything the requests did is in the caller's
    spans = exporter.getFinishedSpans().filter((s) => s.spanContext().traceId === TRACE_ID);
    const servers = spans.filter((s) => s.kind === 1); // SpanKind.SERVER
    expect(servers.map((s) => s.name)).toEqual([
      "POST /api/v1/tasks/{taskId}/runs",
      "POST /api/runs/{runId}/approvals",
      "POST /api/v1/runs/{runId}/steps/{stepId}/claim",
      "POST /api/v1/claims/{token}/fence",
      "POST /api/v1/runs/{runId}/steps/{stepId}/outcome",
      "POST /api/v1/runs/{runId}/steps/{stepId}/claim",
      "POST /api/v1/claims/{token}/fence",
      "POST /api/v1/runs/{runId}/steps/{stepId}/outcome",
      "POST /api/v1/tasks/{taskId}/runs",
    ]);
    for (const s of servers) expect(s.parentSpanContext?.spanId).toBe(CALLER_SPAN);
    expect(servers[0].attributes).toMatchObject({ "http.request.method": "POST", "http.route": "/api/v1/tasks/{taskId}/runs", "http.response.status_code": 201 });
    expect(servers.at(-1)!.attributes).toMatchObject({ "http.response.status_code": 401, "plandesk.refusal": "unauthorized" });

    const named = (name: string) => spans.filter((s) => s.name === name);
    // validate at submit, at approval (the recheck) and at each claim; the gate under each validate
    expect(named("validate").length).toBeGreaterThanOrEqual(4);
    for (const v of named("validate")) expect(ancestors(v).at(-1)).toMatch(/^POST /);
    expect(named("gate").length).toBe(named("validate").length);
    for (const g of named("gate")) expect(ancestors(g)[0]).toBe("validate");
    expect(ancestors(named("approve")[0])).toEqual(["POST /api/runs/{runId}/approvals"]);
    expect(named("claim").map((s) => ancestors(s)[0])).toEqual(["POST /api/v1/runs/{runId}/steps/{stepId}/claim", "POST /api/v1/runs/{runId}/steps/{stepId}/claim"]);
    expect(named("fence").map((s) => ancestors(s)[0])).toEqual(["POST /api/v1/claims/{token}/fence", "POST /api/v1/claims/{token}/fence"]);
    expect(named("outcome").map((s) => ancestors(s)[0])).toEqual(["POST /api/v1/runs/{runId}/steps/{stepId}/outcome", "POST /api/v1/runs/{runId}/steps/{stepId}/outcome"]);

    // SQL statements as spans (Prisma's instrumentation), under the decision steps
    const sql = named("prisma:client:db_query");
    expect(sql.length).toBeGreaterThan(20);
    for (const step of ["approve", "claim", "fence", "outcome"]) expect(sql.some((s) => ancestors(s).includes(step)), `SQL under ${step}`).toBe(true);
    expect(sql.every((s) => typeof s.attributes["db.query.text"] === "string")).toBe(true);
  });

  it("log lines written while answering are JSON with the trace id; no span or line holds a key, a cookie or the plan's text", () => {
    const parsed = lines.map((l) => JSON.parse(l) as Json);
    const answered = parsed.filter((l) => l.msg === "plandesk: answered");
    expect(answered.length).toBe(9);
    for (const l of answered) expect(l).toMatchObject({ level: "debug", trace_id: TRACE_ID, span_id: expect.stringMatching(/^[0-9a-f]{16}$/), route: expect.stringMatching(/^POST \/api\//) });
    const spanText = JSON.stringify(spans.map((s) => ({ name: s.name, attributes: s.attributes, events: s.events, status: s.status })));
    const cookieValue = senior.split(";")[0].split("=")[1];
    for (const secret of [DEMO_AGENT_KEY, PLANTED_KEY, cookieValue, PLANTED_TEXT]) {
      expect(lines.join("\n")).not.toContain(secret);
      expect(spanText).not.toContain(secret);
    }
  });
});
