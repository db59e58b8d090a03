/**
 * What the agent says it saw, through the agent API on this file's own database (SQLite, and
 * PostgreSQL with PLANDESK_TEST_DB=postgres): a false calculation is refused; evidence of another
 * account, a failed read and evidence that does not exist are refused where the seeded gate policy
 * requires evidence; a refund without the fields the policy requires is refused while a plan with
 * the agent's reads is accepted; a note resting on a failed or missing read waits for a person
 * though the policy would approve it; the claim carries the stop condition and a met one stops the run.
 */
import { nanoid } from "nanoid";
import { beforeAll, describe, expect, it } from "vitest";
import { prisma } from "@/lib/server/db/db";
import { IRREVERSIBLE_REQUIRED_FIELDS } from "@/lib/gate-policy/defaults";
import { loadGatePolicy } from "@/lib/server/gate-policy/load-gate-policy";
import { DEMO_AGENT_KEY } from "@/lib/server/demo/seed";
import { prepareTestDatabase } from "@/testing/test-support";
import { GET as getRunRoute } from "./runs/[runId]/route";
import { POST as claimRoute } from "./runs/[runId]/steps/[stepId]/claim/route";
import { POST as outcomeRoute } from "./runs/[runId]/steps/[stepId]/outcome/route";
import { POST as submitRoute } from "./tasks/[taskId]/runs/route";

const BASE = "http://localhost:3999";
type Json = Record<string, any>;

function request(path: string, opts: { body?: unknown; method?: string; headers?: Record<string, string> } = {}): Request {
  const headers: Record<string, string> = { authorization: `Bearer ${DEMO_AGENT_KEY}`, ...(opts.headers ?? {}) };
  if (opts.body !== undefined) headers["content-type"] = "application/json";
  return new Request(`${BASE}${path}`, { method: opts.method ?? "POST", headers, body: opts.body === undefined ? undefined : JSON.stringify(opts.body) });
}
const params = <P extends Record<string, string>>(p: P) => ({ params: Promise.resolve(p) });

async function post(taskId: string, body: Json): Promise<{ status: number; body: Json }> {
  const task = await prisma.task.findUniqueOrThrow({ where: { id: taskId } });
  const res = await submitRoute(request(`/api/v1/tasks/${taskId}/runs`, { body: { taskRevision: task.revision, addition: true, ...body }, headers: { "idempotency-key": nanoid() } }), params({ taskId }));
  return { status: res.status, body: (await res.json()) as Json };
}
const issuesOf = (r: { body: Json }) => (r.body.error?.details?.issues ?? r.body.error?.issues ?? []) as Json[];

/** A refund on acc_fjord's invoice in_74401 (total $3,180.00) for task_75004 (acc_fjord), with every field the seeded policy asks for. */
const refund = (over: Json = {}) => ({
  id: "r1",
  tool: "issue_refund",
  args: { invoiceId: "in_74401", amount: { minor: 106000, currency: "USD" }, reason: "Two of six pallets damaged" },
  title: "Refund the damaged pallets",
  rationale: "Two of six pallets arrived damaged",
  risk: "Money leaves the company",
  stopCondition: "The invoice was refunded meanwhile",
  evidence: [{ recordType: "invoice", recordId: "in_74401" }],
  ...over,
});
const read = (id: string, over: Json = {}) => ({ id, kind: "read", tool: "read_invoice", args: { invoiceId: "in_74401" }, status: "ok", observed: { openMinor: 318000 }, ...over });

beforeAll(async () => {
  // The demo desk as seeded: its gate policy requires title, evidence, risk and stop condition of
  // every irreversible tool (what seed 001 asks of such a step).
  await prepareTestDatabase();
  const live = await loadGatePolicy(prisma);
  expect(live.rules.find((r) => r.tool === "issue_refund")?.requiredFields).toEqual([...IRREVERSIBLE_REQUIRED_FIELDS]);
});

describe("a false calculation is refused, never shown as true", () => {
  it("issue_refund of $1,500.00 with amount computed as 318000 * 2 / 6 → 422 provenance_mismatch 'claimed $1,500.00, formula gives $1,060.00'", async () => {
    const r = await post("task_75004", { steps: [refund({ args: { ...refund().args, amount: { minor: 150000, currency: "USD" } }, provenance: { amount: { kind: "computed", formula: "318000 * 2 / 6" } } })] });
    expect(r.status).toBe(422);
    const issues = issuesOf(r);
    expect(issues.map((i) => i.code)).toEqual(["provenance_mismatch"]);
    expect(issues[0]).toMatchObject({ severity: "error", stepId: "r1", path: "steps.0.provenance.amount", details: { claimed: "$1,500.00", computed: "$1,060.00" } });
    expect(issues[0].message).toContain("claimed $1,500.00, formula gives $1,060.00");
    expect(await prisma.auditEvent.count({ where: { type: "submission_refused" } })).toBeGreaterThan(0);
  });

  it("the true calculation, also written with a record field, is accepted", async () => {
    const ok = await post("task_75004", { steps: [refund({ provenance: { amount: { kind: "computed", formula: "in_74401.totalMinor * 2 / 6" } } })] });
    expect(ok.status).toBe(201);
  });
});

describe("evidence must exist, belong to the task's account and be a successful read", () => {
  it("a record of another account as evidence → 422 evidence_other_account (the seeded policy requires evidence of a refund)", async () => {
    const r = await post("task_75004", { steps: [refund({ evidence: [{ recordType: "invoice", recordId: "in_74119" }] })] });
    expect(r.status).toBe(422);
    // in_74119 is not about the refunded invoice in_74401 either: evidence_unrelated, to acknowledge
    expect(issuesOf(r).map((i) => i.code).sort()).toEqual(["evidence_missing", "evidence_other_account", "evidence_unrelated"]);
    expect(issuesOf(r).find((i) => i.code === "evidence_other_account")!.message).toContain("invoice in_74119 belongs to another account");
  });

  it("a failed read as evidence → 422 evidence_failed", async () => {
    const r = await post("task_75004", { steps: [read("rd1", { status: "failed", error: "timeout", observed: undefined }), refund({ evidence: [{ readStepId: "rd1" }] })] });
    expect(r.status).toBe(422);
    expect(issuesOf(r).map((i) => [i.code, i.path])).toEqual([["evidence_failed", "steps.1.evidence.0"]]);
  });

  it("evidence that does not exist → 422: a read step the plan lacks, a record that is not there", async () => {
    const noRead = await post("task_75004", { steps: [refund({ evidence: [{ readStepId: "rd_nope" }] })] });
    expect(noRead.status).toBe(422);
    expect(issuesOf(noRead).every((i) => i.code === "evidence_missing")).toBe(true);
    const noRecord = await post("task_75004", { steps: [refund({ evidence: [{ recordType: "invoice", recordId: "in_00000" }] })] });
    expect(noRecord.status).toBe(422);
    expect(issuesOf(noRecord).map((i) => i.code).sort()).toEqual(["evidence_missing", "unverified_evidence"]);
  });
});

describe("completeness by policy, and the agent's reads", () => {
  it("a refund with no title, evidence, risk or stop condition is refused at submit", async () => {
    const r = await post("task_75004", { steps: [{ id: "r1", tool: "issue_refund", args: refund().args, rationale: "Damaged" }] });
    expect(r.status).toBe(422);
    const issues = issuesOf(r);
    expect(issues.map((i) => i.code).sort()).toEqual(["evidence_missing", "missing_required_field", "missing_required_field", "missing_required_field"]);
    expect(issues.filter((i) => i.code === "missing_required_field").map((i) => i.details.field)).toEqual(["title", "risk", "stopCondition"]);
  });

  it("reads are accepted: read steps (in steps or in reads), a step's reads as evidence, writes as its declared target", async () => {
    const r = await post("task_75004", {
      steps: [read("rd1"), refund({ evidence: undefined, reads: ["rd1", "invoice:in_74401"], writes: ["invoice:in_74401"] })],
      reads: [{ id: "rd2", kind: "read", tool: "read_ticket", args: { ticketId: "75004" }, status: "ok" }],
    });
    expect(r.status).toBe(201);
    const run = r.body.run;
    expect(run.reads.map((x: Json) => x.id)).toEqual(["rd1", "rd2"]);
    expect(run.steps.map((s: Json) => s.id)).toEqual(["r1"]); // read steps are not steps to approve or claim
    expect(run.steps[0].evidence).toEqual([{ readStepId: "rd1" }, { recordType: "invoice", recordId: "in_74401" }]);
    expect(run.steps[0].requiredFields).toEqual(["title", "evidence", "risk", "stopCondition"]);
    expect(run.steps[0]).not.toHaveProperty("writes");
    // What the agent saw differs from the record now: flagged, not refused.
    const pv = await prisma.planVersion.findUniqueOrThrow({ where: { runId_version: { runId: run.id, version: 1 } } });
    expect(pv.reads).toHaveLength(2);
    const claimRead = await claimRoute(request(`/api/v1/runs/${run.id}/steps/rd1/claim`, { body: { digest: "0".repeat(64), taskRevision: run.boundTaskRevision }, headers: { "idempotency-key": nanoid() } }), params({ runId: run.id, stepId: "rd1" }));
    expect(claimRead.status).toBeGreaterThanOrEqual(400); // a read step is never claimed
  });

  it("a write outside the tool's declared target is refused: undeclared_write", async () => {
    const r = await post("task_75004", { steps: [refund({ writes: ["invoice:in_74403"] })] });
    expect(r.status).toBe(422);
    expect(issuesOf(r).map((i) => [i.code, i.path])).toEqual([["undeclared_write", "steps.0.writes.0"]]);
  });

  it("a read that saw another balance than the record holds now is flagged read_outdated on the stored plan", async () => {
    const r = await post("task_75004", { steps: [read("rd1", { observed: { openMinor: 212000 } }), refund({ evidence: [{ readStepId: "rd1" }] })] });
    expect(r.status).toBe(201);
    const pv = await prisma.planVersion.findUniqueOrThrow({ where: { runId_version: { runId: r.body.run.id, version: 1 } } });
    const outdated = (pv.validation as { issues: Json[] }).issues.filter((i) => i.code === "read_outdated");
    expect(outdated.map((i) => i.message)).toEqual(["The agent saw an open balance of $2,120.00 on invoice in_74401; it is $3,180.00 now"]);
  });
});

describe("a write resting on a failed or missing read waits for a person", () => {
  const note = (evidence: Json[]) => ({ id: "n1", tool: "add_ticket_note", args: { ticketId: "75004", note: "Pallet damage confirmed." }, evidence });
  const ticketRead = (over: Json = {}) => ({ id: "rd1", kind: "read", tool: "read_ticket", args: { ticketId: "75004" }, status: "ok", ...over });

  it("a note resting on a successful read is approved by the gate policy and can be claimed", async () => {
    const r = await post("task_75004", { steps: [ticketRead(), note([{ readStepId: "rd1" }])] });
    expect(r.status).toBe(201);
    expect(r.body.run.status).toBe("approved");
  });

  it("a note resting on a failed read is not: it stays pending review, with the reason on the step, and cannot be claimed", async () => {
    const r = await post("task_75004", { steps: [ticketRead({ status: "failed", error: "timeout" }), note([{ readStepId: "rd1" }])] });
    expect(r.status).toBe(201);
    const run = r.body.run;
    expect(run.status).toBe("pending_review");
    expect(await prisma.approval.count({ where: { runId: run.id } })).toBe(0);
    const pv = await prisma.planVersion.findUniqueOrThrow({ where: { runId_version: { runId: run.id, version: 1 } } });
    const validation = pv.validation as { issues: Json[]; gate: Record<string, string> };
    expect(validation.gate).toEqual({ n1: "approval_required" });
    expect(validation.issues.find((i) => i.code === "evidence_failed")?.message).toMatch(/rests on a read that failed.*a person must approve this step/);
    const claimed = await claimRoute(
      request(`/api/v1/runs/${run.id}/steps/n1/claim`, { body: { digest: run.steps[0].digest, taskRevision: run.boundTaskRevision }, headers: { "idempotency-key": nanoid() } }),
      params({ runId: run.id, stepId: "n1" }),
    );
    expect(claimed.status).toBe(409);
  });

  it("a note naming a read the plan does not have stays pending review too", async () => {
    const r = await post("task_75004", { steps: [note([{ readStepId: "rd_nope" }])] });
    expect(r.status).toBe(201);
    expect(r.body.run.status).toBe("pending_review");
  });
});

describe("the stop condition reaches the executor", () => {
  it("the claim carries it; an executor that reports it met stops the run, typed", async () => {
    const r = await post("task_75004", { steps: [{ id: "n1", tool: "add_ticket_note", args: { ticketId: "75004", note: "New contact noted." }, stopCondition: "The contact was already on file" }] });
    expect(r.status).toBe(201);
    const run = r.body.run;
    expect(run.status).toBe("approved"); // an internal note: auto-approved by the policy
    const claimed = await claimRoute(
      request(`/api/v1/runs/${run.id}/steps/n1/claim`, { body: { digest: run.steps[0].digest, taskRevision: run.boundTaskRevision }, headers: { "idempotency-key": nanoid() } }),
      params({ runId: run.id, stepId: "n1" }),
    );
    const claim = ((await claimed.json()) as Json).claim;
    expect(claim.stopCondition).toBe("The contact was already on file");
    const wrong = await outcomeRoute(request(`/api/v1/runs/${run.id}/steps/n1/outcome`, { body: { token: claim.token, status: "succeeded", stopConditionMet: true } }), params({ runId: run.id, stepId: "n1" }));
    expect(wrong.status).toBe(400);
    const res = await outcomeRoute(request(`/api/v1/runs/${run.id}/steps/n1/outcome`, { body: { token: claim.token, status: "failed", stopConditionMet: true, detail: "Ingrid Berg is already the contact" } }), params({ runId: run.id, stepId: "n1" }));
    expect(res.status).toBe(200);
    expect(((await res.json()) as Json).run.status).toBe("stopped");
    const view = ((await (await getRunRoute(request(`/api/v1/runs/${run.id}`, { method: "GET" }), params({ runId: run.id }))).json()) as Json).run;
    expect(view.status).toBe("stopped");
    expect(view.stopReason).toMatchObject({ code: "stop_condition_met", stepId: "n1", stopCondition: "The contact was already on file", detail: "Ingrid Berg is already the contact" });
    expect(await prisma.auditEvent.count({ where: { runId: run.id, type: "stopped_condition" } })).toBe(1);
  });
});
