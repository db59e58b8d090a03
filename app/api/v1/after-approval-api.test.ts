/**
 * After approval, over HTTP (route handlers, real Requests, the declared contract enforced):
 * issue case 3 — a claim refused at dispatch answers 422 validation_failed and the agent's GET
 * shows the run `needs_decision` with its reason; case 5 — a step reported failed after its run
 * stopped is listed with what was reported; case 6 — a task revision posted with the integration
 * key is attributed to that key by name in the run's audit trail (`GET /api/runs/{runId}/audit`).
 */
import { nanoid } from "nanoid";
import { beforeAll, describe, expect, it } from "vitest";
import { reconciliationReasonText } from "@/lib/audit/reconciliation-reason";
import { approveSteps } from "@/lib/server/approvals/approve-steps";
import { listNeedsReconciliation } from "@/lib/server/claims/list-reconciliation";
import { prisma } from "@/lib/server/db/db";
import { DEMO_AGENT_KEY, DEMO_INTEGRATION_ID, DEMO_INTEGRATION_KEY } from "@/lib/server/demo/seed";
import { loadViewer, type Viewer } from "@/lib/server/auth/session";
import { apiRequest, signInCookie, TEST_ORIGIN } from "@/testing/test-auth";
import { prepareTestDatabase, withRequiredReasons } from "@/testing/test-support";
import { GET as auditRoute } from "../runs/[runId]/audit/route";
import { GET as getRunRoute } from "./runs/[runId]/route";
import { POST as claimRoute } from "./runs/[runId]/steps/[stepId]/claim/route";
import { POST as outcomeRoute } from "./runs/[runId]/steps/[stepId]/outcome/route";
import { POST as reviseRoute } from "./tasks/[taskId]/revisions/route";
import { POST as submitRoute } from "./tasks/[taskId]/runs/route";

type Json = Record<string, any>;
const params = <P extends Record<string, string>>(p: P) => ({ params: Promise.resolve(p) });
const agentReq = (method: string, path: string, body?: unknown, key = DEMO_AGENT_KEY) => {
  const req = apiRequest(method, path, { key }, body);
  req.headers.set("idempotency-key", nanoid());
  return req;
};
let senior: Viewer;

async function submit(ticketId: string, steps: unknown[]): Promise<Json> {
  const task = await prisma.task.findUniqueOrThrow({ where: { id: `task_${ticketId}` } });
  const res = await submitRoute(agentReq("POST", `/api/v1/tasks/${task.id}/runs`, { taskRevision: task.revision, steps: withRequiredReasons(steps), addition: true }), params({ taskId: task.id }));
  const body = (await res.json()) as Json;
  expect(res.status, JSON.stringify(body)).toBe(201);
  return body.run;
}
const getRun = async (runId: string): Promise<Json> => {
  const res = await getRunRoute(agentReq("GET", `/api/v1/runs/${runId}`), params({ runId }));
  expect(res.status).toBe(200);
  return ((await res.json()) as Json).run;
};
const claim = (run: Json, stepId: string) =>
  claimRoute(agentReq("POST", `/api/v1/runs/${run.id}/steps/${stepId}/claim`, { digest: run.steps.find((s: Json) => s.id === stepId).digest, taskRevision: run.boundTaskRevision }), params({ runId: run.id, stepId }));
const approveAll = async (runId: string) => approveSteps(senior, runId, { planVersion: (await getRun(runId)).planVersion, stepIds: "all", idempotencyKey: nanoid() });

beforeAll(async () => {
  await prepareTestDatabase(new Date());
  senior = (await loadViewer("usr_senior"))!;
});

describe("issue case 3 over HTTP: no dead end after approval", () => {
  it("approve $600.00 on in_74203, its open balance drops to $100.00: the claim is 422 validation_failed and GET run says needs_decision with the reason", async () => {
    const run = await submit("75003", [{ id: "r1", tool: "issue_refund", args: { invoiceId: "in_74203", amount: { minor: 60000, currency: "USD" }, reason: "Storage while held" } }]);
    await approveAll(run.id);
    const approved = await getRun(run.id);
    expect(approved.status).toBe("approved");
    expect(approved.decisionReason).toBeNull();
    await prisma.invoice.update({ where: { desk_id: { desk: "freight", id: "in_74203" } }, data: { openMinor: 10000 } }); // as the account system would
    const res = await claim(approved, "r1");
    const body = (await res.json()) as Json;
    expect(res.status).toBe(422);
    expect(body.error.code).toBe("validation_failed");
    const after = await getRun(run.id);
    expect(after.status).toBe("needs_decision");
    expect(after.outcome).toBeNull();
    expect(after.decisionReason).toMatchObject({ code: "validation_failed", stepId: "r1", message: "Needs a new decision: in_74203 has $100.00 open; the approved refund was $600.00." });
    await prisma.invoice.update({ where: { desk_id: { desk: "freight", id: "in_74203" } }, data: { openMinor: 64950 } });
  });
});

describe("issue case 5: a step reported after its run stopped", () => {
  it("is listed on /reconciliation with what was reported, not 'No outcome reported'", async () => {
    const run = await submit("75014", [
      { id: "n1", tool: "add_ticket_note", args: { ticketId: "75014", note: "Customer wants a morning slot." } },
      { id: "n2", tool: "add_ticket_note", args: { ticketId: "75014", note: "Asked the depot." }, dependsOn: [] },
    ]);
    const c1 = (await (await claim(run, "n1")).json()) as Json;
    // The task changes while n1 is being written; the next claim stops the run.
    expect((await reviseRoute(agentReq("POST", `/api/v1/tasks/${run.taskId}/revisions`, { comment: "Customer now wants an afternoon slot." }, DEMO_INTEGRATION_KEY), params({ taskId: run.taskId }))).status).toBe(201);
    expect((await claim(run, "n2")).status).toBe(409);
    expect((await getRun(run.id)).status).toBe("stopped");
    const reported = await outcomeRoute(agentReq("POST", `/api/v1/runs/${run.id}/steps/n1/outcome`, { token: c1.claim.token, status: "failed", detail: "The ticket system timed out." }), params({ runId: run.id, stepId: "n1" }));
    expect(reported.status).toBe(200);
    const supervisor = (await loadViewer("usr_supervisor"))!;
    const item = (await listNeedsReconciliation(supervisor)).items.find((i) => i.runId === run.id && i.stepId === "n1")!;
    expect(item).toMatchObject({ reason: "flagged_report", status: "failed", flag: "reported_after_stopped" });
    expect(reconciliationReasonText(item)).toBe("Reported failed after the run stopped");
  });
});

describe("issue case 6: who posted a task revision", () => {
  it("the audit trail names the integration key, not 'Plandesk (system)'", async () => {
    const run = await submit("75013", [{ id: "n1", tool: "add_ticket_note", args: { ticketId: "75013", note: "ETA asked." } }]);
    const res = await reviseRoute(agentReq("POST", `/api/v1/tasks/${run.taskId}/revisions`, { comment: "The customer sent the booking number." }, DEMO_INTEGRATION_KEY), params({ taskId: run.taskId }));
    expect(res.status).toBe(201);
    const cookie = await signInCookie("supervisor@plandesk.test");
    const audit = await auditRoute(apiRequest("GET", `/api/runs/${run.id}/audit`, { cookie, origin: TEST_ORIGIN }), params({ runId: run.id }));
    expect(audit.status).toBe(200);
    const events = ((await audit.json()) as Json).events as Json[];
    const revised = events.find((e) => e.type === "task_revised")!;
    expect(revised.actor).toEqual({ kind: "integration", id: DEMO_INTEGRATION_ID, name: "Demo ticketing integration" });
    expect(events.find((e) => e.type === "stopped_stale")?.actor).toMatchObject({ kind: "integration", name: "Demo ticketing integration" });
  });
});
