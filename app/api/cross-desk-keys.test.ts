/**
 * Desk-bound keys are bound everywhere: every endpoint that accepts an agent or integration key is
 * called with a key of ANOTHER desk (the retail desk's agent key, and a retail-bound integration
 * key made here) against the demo (freight) desk's task, run, claim or account it names, and must
 * refuse as if the thing did not exist (404, or the endpoint's own "not yours" refusal) and change
 * nothing: the task's revision and body, its revision rows, the run's status and approvals, its
 * step executions and timeline, the ticket events, tickets and tasks are compared before and after.
 *
 * The endpoints are enumerated from the declarations (lib/api/endpoints.ts `ENDPOINTS`, the ones the
 * route table and the OpenAPI document are built from), not listed by hand: a new endpoint that
 * accepts a key fails the first test below until it has a case in `CASES` saying how to call it
 * against the freight desk. Route handlers are called in process (their route files under app/api)
 * against this file's own database: SQLite, or PostgreSQL with PLANDESK_TEST_DB=postgres.
 */
import path from "node:path";
import { nanoid } from "nanoid";
import { beforeAll, describe, expect, it } from "vitest";
import type { Endpoint } from "@/lib/api/contract";
import { ENDPOINTS } from "@/lib/api/endpoints";
import { prisma } from "@/lib/server/db/db";
import { hashApiKey } from "@/lib/server/auth/api-keys";
import { DEMO_AGENT_KEY, DEMO_RETAIL_AGENT_KEY } from "@/lib/server/demo/seed";
import { apiRequest, routeCtx, TEST_ORIGIN } from "@/testing/test-auth";
import { approveAllAs, prepareTestDatabase, withRequiredReasons } from "@/testing/test-support";

type Json = Record<string, any>;
type Handler = (req: Request, ctx: { params: Promise<Record<string, string>> }) => Promise<Response>;

/** A retail-bound integration key (made in beforeAll). */
const RETAIL_INTEGRATION_KEY = "pd_int_retail_bound_key";
const APP_DIR = path.resolve(__dirname, "..");
const FREIGHT_TICKET = "75006";
const FREIGHT_TASK = `task_${FREIGHT_TICKET}`;

/** An invoice of the retail desk's own account: what another desk's key sends under the freight invoice's id. */
const RETAIL_INVOICE_FIELDS = { accountId: "acc_brightside", status: "open", currency: "USD", totalMinor: 1000, openMinor: 1000, fees: [], dueDate: "2027-01-31" };

/** The freight desk's things the cases name: a run approved with step s1 claimed (token) and s2 not. */
const freight = { runId: "", token: "", digestS2: "", revision: 0 };

/** One call of an endpoint with another desk's key, and what a refusal must look like. */
interface CrossDeskCase {
  /** The path parameters (`{taskId}` …) and the query string. */
  params: () => Record<string, string>;
  query?: () => string;
  body?: () => unknown;
  /** A body sent as is (NDJSON), with its content type, instead of `body` as JSON. */
  rawBody?: () => { text: string; contentType: string };
  /** The other desk's key that the endpoint accepts. */
  key: string;
  /**
   * What the answer must be: `refused` — one of these statuses (and codes, when given); `empty` — a
   * 200 that shows nothing of the freight desk (checked by `check`).
   */
  expect: { refused: number[]; codes?: string[] } | { empty: (body: Json) => void };
}

/**
 * How to call each endpoint that accepts an agent or integration key, keyed `METHOD path`. An
 * endpoint added with such a caller needs a case here (the first test names it).
 */
const CASES: Record<string, CrossDeskCase> = {
  "GET /api/v1/tasks": {
    params: () => ({}),
    query: () => `?ticketId=${FREIGHT_TICKET}`,
    key: DEMO_RETAIL_AGENT_KEY,
    expect: { empty: (b) => expect(b.tasks).toEqual([]) },
  },
  "POST /api/v1/tasks": {
    // the freight ticket's id, opened on the freight desk's account: neither is the retail key's
    params: () => ({}),
    body: () => ({ ticketId: FREIGHT_TICKET, accountId: "acc_nordkapp", subject: "Hamburg window confirmation", parts: [{ source: "system", text: "Confirm sh_5522 window with the customer." }] }),
    key: RETAIL_INTEGRATION_KEY,
    expect: { refused: [422], codes: ["unknown_account"] },
  },
  "GET /api/v1/tasks/{taskId}": { params: () => ({ taskId: FREIGHT_TASK }), key: DEMO_RETAIL_AGENT_KEY, expect: { refused: [404] } },
  "POST /api/v1/tasks/{taskId}/runs": {
    params: () => ({ taskId: FREIGHT_TASK }),
    body: () => ({ taskRevision: freight.revision, steps: withRequiredReasons([{ id: "s1", tool: "add_ticket_note", args: { ticketId: FREIGHT_TICKET, note: "From another desk." } }]) }),
    key: DEMO_RETAIL_AGENT_KEY,
    expect: { refused: [404] },
  },
  "GET /api/v1/runs/{runId}": { params: () => ({ runId: freight.runId }), key: DEMO_RETAIL_AGENT_KEY, expect: { refused: [404] } },
  "GET /api/v1/runs/{runId}/events": { params: () => ({ runId: freight.runId }), key: DEMO_RETAIL_AGENT_KEY, expect: { refused: [404] } },
  "POST /api/v1/runs/{runId}/steps/{stepId}/claim": {
    params: () => ({ runId: freight.runId, stepId: "s2" }),
    body: () => ({ digest: freight.digestS2, taskRevision: freight.revision }),
    key: DEMO_RETAIL_AGENT_KEY,
    expect: { refused: [404] },
  },
  // a claim token is the claim's name: another agent's token is "not a claim of yours"
  "POST /api/v1/claims/{token}/fence": { params: () => ({ token: freight.token }), key: DEMO_RETAIL_AGENT_KEY, expect: { refused: [404, 409], codes: ["not_found", "invalid_claim_token"] } },
  "POST /api/v1/runs/{runId}/steps/{stepId}/outcome": {
    params: () => ({ runId: freight.runId, stepId: "s1" }),
    body: () => ({ token: freight.token, status: "succeeded" }),
    key: DEMO_RETAIL_AGENT_KEY,
    expect: { refused: [404, 409], codes: ["not_found", "invalid_claim_token"] },
  },
  "POST /api/v1/tasks/{taskId}/revisions": { params: () => ({ taskId: FREIGHT_TASK }), body: () => ({ comment: "Rewritten by another desk." }), key: RETAIL_INTEGRATION_KEY, expect: { refused: [404] } },
  "POST /api/v1/demo/effects": {
    params: () => ({}),
    body: () => ({ runId: freight.runId, stepId: "s1", token: freight.token }),
    key: DEMO_RETAIL_AGENT_KEY,
    expect: { refused: [404, 409], codes: ["not_found", "invalid_claim_token"] },
  },
  // Promoting the freight run's staged writes with the retail agent's key: no such run for that agent
  "POST /api/v1/demo/effects/promote": {
    params: () => ({}),
    body: () => ({ runId: freight.runId }),
    key: DEMO_RETAIL_AGENT_KEY,
    expect: { refused: [404], codes: ["not_found"] },
  },
  // Plandesk's MCP endpoint: a write for the freight task is an MCP result refusing the tool (no tool of another desk is reachable)
  "POST /api/mcp": {
    params: () => ({}),
    body: () => ({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "book_redelivery", arguments: { shipmentId: "sh_5522", date: "2027-01-05" }, _meta: { "plandesk/taskId": FREIGHT_TASK } } }),
    key: DEMO_RETAIL_AGENT_KEY,
    expect: { empty: (b) => expect(b.result).toMatchObject({ isError: true, structuredContent: { status: "rejected", code: "not_found" } }) },
  },
  "GET /api/v1/guidance": { params: () => ({}), key: DEMO_RETAIL_AGENT_KEY, expect: { empty: (b) => expect(b.desk).toBe("retail") } },
  "POST /api/v1/tasks/{taskId}/events": {
    params: () => ({ taskId: FREIGHT_TASK }),
    body: () => ({ type: "reopened", detail: "From another desk." }),
    key: RETAIL_INTEGRATION_KEY,
    expect: { refused: [404] },
  },
  // The records door: ids are per desk. The retail key's put of in_74119 writes the retail desk's own
  // invoice of that id (the freight desk's in_74119 stays as it was, and the answer shows only what
  // the caller sent); a delete or read of a freight invoice retail has not got is 404, as a missing one.
  "PUT /api/v1/records/{kind}/{id}": {
    params: () => ({ kind: "invoice", id: "in_74119" }),
    body: () => ({ ...RETAIL_INVOICE_FIELDS, sourceVersion: 99, sourceUpdatedAt: new Date().toISOString() }),
    key: RETAIL_INTEGRATION_KEY,
    expect: {
      empty: (b) => {
        expect(b.record).toMatchObject({ kind: "invoice", id: "in_74119", desk: "retail", fields: { accountId: "acc_brightside", openMinor: 1000 }, sourceVersion: 99 });
        expect(JSON.stringify(b)).not.toMatch(/freight|acc_halvorsen/i);
      },
    },
  },
  "DELETE /api/v1/records/{kind}/{id}": {
    params: () => ({ kind: "invoice", id: "in_74203" }),
    query: () => `?sourceVersion=99&sourceUpdatedAt=${encodeURIComponent(new Date().toISOString())}`,
    key: RETAIL_INTEGRATION_KEY,
    expect: { refused: [404], codes: ["not_found"] },
  },
  "GET /api/v1/records/{kind}/{id}": { params: () => ({ kind: "invoice", id: "in_74203" }), key: RETAIL_INTEGRATION_KEY, expect: { refused: [404], codes: ["not_found"] } },
  "POST /api/v1/records/batch": {
    params: () => ({}),
    rawBody: () => ({
      text: [
        { kind: "invoice", id: "in_74801", ...RETAIL_INVOICE_FIELDS, sourceVersion: 99, sourceUpdatedAt: new Date().toISOString() },
        { kind: "shipment", id: "sh_9001", accountId: "acc_halvorsen", destination: "NO-OSL", windowFrom: "2027-01-04", windowTo: "2027-01-05", status: "scheduled", address: "Karl Johans gate 1", sourceVersion: 1, sourceUpdatedAt: new Date().toISOString() },
        { kind: "invoice", id: "in_74203", op: "delete", sourceVersion: 99, sourceUpdatedAt: new Date().toISOString() },
      ]
        .map((l) => JSON.stringify(l))
        .join("\n"),
      contentType: "application/x-ndjson",
    }),
    key: RETAIL_INTEGRATION_KEY,
    expect: {
      empty: (b) => {
        // line 1 is the retail desk's own in_74801 (at most once new: a rerun sends the same version)
        expect(b).toMatchObject({ lines: 3 });
        expect(b.errors.map((e: Json) => e.code)).toEqual(["unknown_account", "not_found"]);
        // the ids are the caller's own input; nothing else of the freight desk (its name, an account name) is said
        expect(JSON.stringify(b), JSON.stringify(b)).not.toMatch(/freight/i);
      },
    },
  },
};

/** Every declared endpoint an agent or integration key reaches. */
const KEY_ENDPOINTS: readonly Endpoint[] = ENDPOINTS.filter((e) => e.caller.kind === "agent" || e.caller.kind === "integration");
const nameOf = (e: Endpoint) => `${e.method} ${e.path}`;
const templateOf = (e: Endpoint) => e.path.replace(/\{(\w+)\}/g, "[$1]");

async function handlerOf(e: Endpoint): Promise<Handler> {
  const mod = (await import(path.join(APP_DIR, templateOf(e), "route.ts"))) as Record<string, Handler>;
  const h = mod[e.method];
  if (typeof h !== "function") throw new Error(`${nameOf(e)}: its route file exports no ${e.method}`);
  return h;
}

/** What the freight desk has that no other desk's key may change (audit rows of refusals without a run aside). */
async function freightState(): Promise<Json> {
  return {
    task: await prisma.task.findUniqueOrThrow({ where: { id: FREIGHT_TASK }, select: { revision: true, body: true, contract: true, textParts: true, updatedAt: true } }),
    revisions: await prisma.taskRevision.count({ where: { taskId: FREIGHT_TASK } }),
    tickets: await prisma.ticket.count(),
    tasks: await prisma.task.count(),
    runs: await prisma.run.count({ where: { taskId: FREIGHT_TASK } }),
    run: await prisma.run.findUniqueOrThrow({ where: { id: freight.runId }, select: { status: true, planVersion: true, updatedAt: true } }),
    approvals: await prisma.approval.findMany({ where: { runId: freight.runId }, select: { id: true, state: true }, orderBy: { id: "asc" } }),
    executions: await prisma.stepExecution.findMany({ where: { runId: freight.runId }, select: { stepId: true, status: true, reportedAt: true, leaseExpiresAt: true }, orderBy: { stepId: "asc" } }),
    timeline: await prisma.auditEvent.count({ where: { runId: freight.runId } }),
    ticketEvents: await prisma.ticketEvent.count({ where: { taskId: FREIGHT_TASK } }),
    invoice: await prisma.invoice.findUniqueOrThrow({ where: { desk_id: { desk: "freight", id: "in_74119" } } }),
    // the freight invoices whose ids the records door cases send with the retail key
    invoices: await prisma.invoice.findMany({ where: { desk: "freight", id: { in: ["in_74119", "in_74203", "in_74801"] } }, orderBy: { id: "asc" } }),
    shipments: await prisma.shipment.count(),
  };
}

beforeAll(async () => {
  await prepareTestDatabase(new Date());
  await prisma.integrationKey.create({ data: { id: "int_retail_bound", name: "Retail ticketing", hash: hashApiKey(RETAIL_INTEGRATION_KEY), prefix: RETAIL_INTEGRATION_KEY.slice(0, 8), desk: "retail" } });
  // a freight run, approved, step s1 claimed by the freight agent (its token), s2 not yet
  const task = await prisma.task.findUniqueOrThrow({ where: { id: FREIGHT_TASK } });
  freight.revision = task.revision;
  const submit = await handlerOf(ENDPOINTS.find((e) => e.id === "submitRun")!);
  const steps = withRequiredReasons([
    { id: "s1", tool: "add_ticket_note", args: { ticketId: FREIGHT_TICKET, note: "First note." } },
    { id: "s2", tool: "add_ticket_note", args: { ticketId: FREIGHT_TICKET, note: "Second note." } },
  ]);
  const req = apiRequest("POST", `/api/v1/tasks/${FREIGHT_TASK}/runs`, { key: DEMO_AGENT_KEY }, { taskRevision: task.revision, steps });
  req.headers.set("idempotency-key", nanoid());
  const submitted = await submit(req, routeCtx({ taskId: FREIGHT_TASK }));
  expect(submitted.status).toBe(201);
  const run = ((await submitted.json()) as Json).run;
  freight.runId = run.id;
  await approveAllAs(run.id, "usr_senior");
  const claim = await handlerOf(ENDPOINTS.find((e) => e.id === "claimStep")!);
  const digestOf = (id: string) => run.steps.find((s: Json) => s.id === id).digest as string;
  freight.digestS2 = digestOf("s2");
  const claimed = await claim(apiRequest("POST", `/api/v1/runs/${run.id}/steps/s1/claim`, { key: DEMO_AGENT_KEY }, { digest: digestOf("s1"), taskRevision: task.revision }), routeCtx({ runId: run.id, stepId: "s1" }));
  expect(claimed.status).toBe(200);
  freight.token = ((await claimed.json()) as Json).claim.token;
});

describe("every endpoint that accepts a key has a cross-desk case", () => {
  it("the declarations' key endpoints are exactly the cases (a new one must say how it is called with another desk's key)", () => {
    expect(KEY_ENDPOINTS.length).toBeGreaterThanOrEqual(13);
    const missing = KEY_ENDPOINTS.map(nameOf).filter((n) => !(n in CASES));
    expect(missing, `These endpoints accept an agent or integration key but have no case in app/api/cross-desk-keys.test.ts CASES (how to call them with another desk's key against the freight desk's task, run, claim, record or account): ${missing.join(", ")}`).toEqual([]);
    const stale = Object.keys(CASES).filter((n) => !KEY_ENDPOINTS.some((e) => nameOf(e) === n));
    expect(stale, "cases for endpoints that no longer accept a key (or no longer exist)").toEqual([]);
  });
});

describe.each(KEY_ENDPOINTS.filter((e) => nameOf(e) in CASES).map((e) => [nameOf(e), e] as const))("another desk's key: %s", (name, e) => {
  it("refuses as if the freight desk's thing did not exist, and changes nothing", async () => {
    const c = CASES[name];
    const handler = await handlerOf(e);
    const before = await freightState();
    const urlPath = e.path.replace(/\{(\w+)\}/g, (_m, k: string) => encodeURIComponent(c.params()[k]));
    const raw = c.rawBody?.();
    const req = raw
      ? new Request(`${TEST_ORIGIN}${urlPath}${c.query?.() ?? ""}`, { method: e.method, headers: { authorization: `Bearer ${c.key}`, "content-type": raw.contentType }, body: raw.text })
      : apiRequest(e.method, `${urlPath}${c.query?.() ?? ""}`, { key: c.key }, e.method === "GET" || e.method === "DELETE" ? undefined : c.body?.());
    const res = await handler(req, routeCtx(c.params()));
    const text = await res.text();
    const body = JSON.parse(text) as Json;
    if ("refused" in c.expect) {
      expect(c.expect.refused, `${name} with another desk's key answered ${res.status}: ${text.slice(0, 300)}`).toContain(res.status);
      if (c.expect.codes) expect(c.expect.codes, `${name}: ${text.slice(0, 300)}`).toContain(body.error?.code);
      // the answer names nothing of the freight desk beyond what the caller sent
      expect(text, `${name} leaks the freight desk`).not.toMatch(/freight|acc_halvorsen|Hamburg window/i);
    } else {
      expect(res.status, `${name}: ${text.slice(0, 300)}`).toBe(200);
      c.expect.empty(body);
    }
    expect(await freightState(), `${name} with another desk's key changed the freight desk`).toEqual(before);
  });
});

describe("control: the freight desk's own keys reach the same things", () => {
  it("the freight agent reads the task and the run; the unbound integration key revises the task", async () => {
    const getTask = await handlerOf(ENDPOINTS.find((e) => e.id === "getTask")!);
    expect((await getTask(apiRequest("GET", `/api/v1/tasks/${FREIGHT_TASK}`, { key: DEMO_AGENT_KEY }), routeCtx({ taskId: FREIGHT_TASK }))).status).toBe(200);
    const getRun = await handlerOf(ENDPOINTS.find((e) => e.id === "getRun")!);
    expect((await getRun(apiRequest("GET", `/api/v1/runs/${freight.runId}`, { key: DEMO_AGENT_KEY }), routeCtx({ runId: freight.runId }))).status).toBe(200);
    const fence = await handlerOf(ENDPOINTS.find((e) => e.id === "fenceClaim")!);
    expect((await fence(apiRequest("POST", `/api/v1/claims/${freight.token}/fence`, { key: DEMO_AGENT_KEY }), routeCtx({ token: freight.token }))).status).toBe(200);
  });
});
