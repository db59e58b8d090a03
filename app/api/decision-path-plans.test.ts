/**
 * The decision path reads through indexes (docs/design.md "Storage and scale"; SQLite and PostgreSQL): every
 * statement that submit, edit, GET run, approve, claim, outcome and the queue send — the row locks,
 * the claim's grant read, the account snapshot's ticket and invoice included — is captured as the
 * route handlers send it and explained on this database, and none reads a whole table. On
 * PostgreSQL the plans are made with sequential scans disabled, so a `Seq Scan` means no index can
 * serve the statement (on a test database this small the planner would otherwise read every table
 * whole because that is cheaper); on SQLite a `SCAN <table>` without an index is one.
 */
import { statementsOf, type CapturedStatement } from "@/testing/statement-capture";
import { nanoid } from "nanoid";
import { beforeAll, describe, expect, it } from "vitest";
import { resolveDatabaseUrl } from "@/lib/server/db/database-url";
import { prisma } from "@/lib/server/db/db";
import { DEMO_AGENT_KEY } from "@/lib/server/demo/seed";
import { explainStatement, readsNoTable, wholeTableReads } from "@/testing/query-plans";
import { apiRequest, routeCtx, signInCookie, TEST_ORIGIN } from "@/testing/test-auth";
import { prepareTestDatabase, withRequiredReasons } from "@/testing/test-support";
import { GET as queueRoute } from "./runs/route";
import { GET as runDetailsRoute } from "./runs/[runId]/route";
import { POST as editRoute } from "./runs/[runId]/edits/route";
import { POST as approveRoute } from "./runs/[runId]/approvals/route";
import { GET as agentRunRoute } from "./v1/runs/[runId]/route";
import { POST as claimRoute } from "./v1/runs/[runId]/steps/[stepId]/claim/route";
import { POST as outcomeRoute } from "./v1/runs/[runId]/steps/[stepId]/outcome/route";
import { POST as submitRoute } from "./v1/tasks/[taskId]/runs/route";

type Json = Record<string, any>;
const target = resolveDatabaseUrl();
let senior: string;

const agentRequest = (method: string, path: string, body?: unknown) =>
  new Request(`${TEST_ORIGIN}${path}`, {
    method,
    headers: { authorization: `Bearer ${DEMO_AGENT_KEY}`, "idempotency-key": nanoid(), ...(body === undefined ? {} : { "content-type": "application/json" }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
const personRequest = (method: string, path: string, body?: unknown) => apiRequest(method, path, { cookie: senior, origin: TEST_ORIGIN }, body);

/**
 * The whole-table reads among `statements`, one line each ("<plan node> — <SQL>"), each distinct
 * statement explained once.
 */
async function wholeTableReadsOf(statements: CapturedStatement[]): Promise<string[]> {
  const found: string[] = [];
  const seen = new Set<string>();
  for (const s of statements) {
    if (readsNoTable(s.sql) || seen.has(s.sql)) continue;
    seen.add(s.sql);
    const plan = await explainStatement(target, s, { forbidSeqScan: true });
    if (plan.startsWith("(not explained")) found.push(`${plan} — ${s.sql.slice(0, 300)}`);
    for (const read of wholeTableReads(target.provider, plan, { sql: s.sql })) found.push(`${read} — ${s.sql.replace(/\s+/g, " ").slice(0, 300)}`);
  }
  return found;
}

/** Runs one request of the decision path, expects `status`, and returns its body with the whole-table reads it caused. */
async function decision(fn: () => Promise<Response>, status: number | number[]): Promise<{ body: Json; reads: string[]; statements: number }> {
  const { value: res, statements } = await statementsOf(fn);
  const body = (await res.json()) as Json;
  expect(Array.isArray(status) ? status : [status], JSON.stringify(body).slice(0, 500)).toContain(res.status);
  return { body, reads: await wholeTableReadsOf(statements), statements: statements.length };
}

beforeAll(async () => {
  await prepareTestDatabase();
  senior = await signInCookie("senior@plandesk.test");
});

describe(`the decision path reads through indexes (${target.provider})`, () => {
  // Fjordline Seafood (task_75016): a note on its ticket and a refund of part of invoice in_74403 (open 1,200.00 USD).
  const TASK = "task_75016";
  let run: Json;
  let revision: number;

  it("the check sees a whole-table read: runs looked up by a column no index holds", async () => {
    const { statements } = await statementsOf(() => prisma.run.findFirst({ where: { riskyStepCount: 999 }, select: { id: true } }));
    expect(statements.length).toBeGreaterThan(0);
    expect((await wholeTableReadsOf(statements)).join("\n")).toMatch(target.provider === "postgresql" ? /Seq Scan on run/ : /SCAN (main\.)?(t0|run)\b/);
  });

  it("submit: every statement by key or index", async () => {
    const task = await prisma.task.findUniqueOrThrow({ where: { id: TASK } });
    revision = task.revision;
    const steps = withRequiredReasons([
      { id: "s_note", tool: "add_ticket_note", args: { ticketId: "75016", note: "Refund of the damaged share agreed." } },
      { id: "s_refund", tool: "issue_refund", args: { invoiceId: "in_74403", amount: { minor: 10000, currency: "USD" }, reason: "Goodwill" } },
    ]);
    const { body, reads, statements } = await decision(() => submitRoute(agentRequest("POST", `/api/v1/tasks/${TASK}/runs`, { taskRevision: revision, steps }), routeCtx({ taskId: TASK })), 201);
    run = body.run;
    expect(statements).toBeGreaterThan(5);
    expect(reads).toEqual([]);
  });

  it("edit by a person: every statement by key or index", async () => {
    const steps = (run.steps as Json[]).map((s) => ({ id: s.id, tool: s.tool, args: s.tool === "add_ticket_note" ? { ...s.args, note: "Refund of the damaged share agreed (checked)." } : s.args }));
    const { reads } = await decision(() => editRoute(personRequest("POST", `/api/runs/${run.id}/edits`, { baseVersion: run.planVersion, steps }), routeCtx({ runId: run.id })), 201);
    expect(reads).toEqual([]);
  });

  it("GET run, as the agent and as a person: every statement by key or index", async () => {
    const agent = await decision(() => agentRunRoute(agentRequest("GET", `/api/v1/runs/${run.id}`), routeCtx({ runId: run.id })), 200);
    run = agent.body.run;
    expect(agent.reads).toEqual([]);
    const person = await decision(() => runDetailsRoute(personRequest("GET", `/api/runs/${run.id}`), routeCtx({ runId: run.id })), 200);
    expect(person.reads).toEqual([]);
  });

  it("approve every step: every statement by key or index", async () => {
    const { reads } = await decision(() => approveRoute(personRequest("POST", `/api/runs/${run.id}/approvals`, { planVersion: run.planVersion, stepIds: "all", idempotencyKey: nanoid() }), routeCtx({ runId: run.id })), [200, 201]);
    expect(reads).toEqual([]);
  });

  it("claim and outcome of each step, the refund's money hold included: every statement by key or index", async () => {
    for (const step of run.steps as Json[]) {
      const claimed = await decision(() => claimRoute(agentRequest("POST", `/api/v1/runs/${run.id}/steps/${step.id}/claim`, { digest: step.digest, taskRevision: revision }), routeCtx({ runId: run.id, stepId: step.id })), 200);
      expect(claimed.reads, `claim of ${step.tool}`).toEqual([]);
      const reported = await decision(
        () => outcomeRoute(agentRequest("POST", `/api/v1/runs/${run.id}/steps/${step.id}/outcome`, { token: claimed.body.claim.token, status: "succeeded" }), routeCtx({ runId: run.id, stepId: step.id })),
        200,
      );
      expect(reported.reads, `outcome of ${step.tool}`).toEqual([]);
    }
    expect((await prisma.run.findUniqueOrThrow({ where: { id: run.id } })).status).toBe("completed");
  });

  it("the queue: every statement by key or index", async () => {
    const { body, reads } = await decision(() => queueRoute(personRequest("GET", "/api/runs"), routeCtx({})), 200);
    expect(body.runs.length).toBeGreaterThan(0);
    expect(reads).toEqual([]);
  });
});
