/**
 * Every state an agent can meet ends or has a decision path, with a typed reason (route level,
 * real `Request`s, this file's own database): `run.outcome` for superseded, stopped for a stale
 * task, rejected, expired, failed and cannot_execute; one live plan per task per agent; replays
 * marked and refusals that may change not saved under the idempotency key; a finished session
 * answered `already_completed`; strict-mode nulls mean absent.
 */
import { nanoid } from "nanoid";
import { beforeAll, describe, expect, it } from "vitest";
import { hashApiKey } from "@/lib/server/auth/api-keys";
import { rejectRun } from "@/lib/server/approvals/reject-run";
import { listNeedsReconciliation } from "@/lib/server/claims/list-reconciliation";
import { submitEdit } from "@/lib/server/edits/submit-edit";
import { setAgentExecutesTools } from "@/lib/server/tools/imported-tools";
import { refused } from "@/testing/test-support";
import { prisma } from "@/lib/server/db/db";
import { DEMO_AGENT_KEY, DEMO_INTEGRATION_KEY } from "@/lib/server/demo/seed";
import { loadViewer, type Viewer } from "@/lib/server/auth/session";
import { approveAllAs, prepareTestDatabase } from "@/testing/test-support";
import { approveAsIs } from "@/testing/adapter-operator";
import { GET as getRunRoute } from "./runs/[runId]/route";
import { POST as claimRoute } from "./runs/[runId]/steps/[stepId]/claim/route";
import { POST as outcomeRoute } from "./runs/[runId]/steps/[stepId]/outcome/route";
import { POST as reviseRoute } from "./tasks/[taskId]/revisions/route";
import { POST as submitRoute } from "./tasks/[taskId]/runs/route";

const BASE = "http://localhost:3999";
const SECOND_KEY = "pd_second_agent_key_states";
type Json = Record<string, any>;

function request(path: string, opts: { body?: unknown; key?: string; headers?: Record<string, string>; method?: string } = {}): Request {
  const headers: Record<string, string> = { authorization: `Bearer ${opts.key ?? DEMO_AGENT_KEY}`, ...(opts.headers ?? {}) };
  const body = opts.body === undefined ? undefined : JSON.stringify(opts.body);
  if (body !== undefined) headers["content-type"] = "application/json";
  return new Request(`${BASE}${path}`, { method: opts.method ?? "POST", headers, body });
}
const params = <P extends Record<string, string>>(p: P) => ({ params: Promise.resolve(p) });

async function submitRes(ticketId: string, steps: unknown[], opts: { key?: string; idem?: string; extra?: Json } = {}): Promise<Response> {
  const task = await prisma.task.findUniqueOrThrow({ where: { id: `task_${ticketId}` } });
  return submitRoute(
    request(`/api/v1/tasks/${task.id}/runs`, { key: opts.key, body: { taskRevision: task.revision, steps, ...(opts.extra ?? {}) }, headers: { "idempotency-key": opts.idem ?? nanoid() } }),
    params({ taskId: task.id }),
  );
}
async function submit(ticketId: string, steps: unknown[], opts: { key?: string; idem?: string; extra?: Json } = {}): Promise<Json> {
  const res = await submitRes(ticketId, steps, opts);
  const body = (await res.json()) as Json;
  expect(res.status, JSON.stringify(body)).toBe(201);
  return body.run;
}
const getRun = async (runId: string, key?: string): Promise<Json> => ((await (await getRunRoute(request(`/api/v1/runs/${runId}`, { method: "GET", key }), params({ runId }))).json()) as Json).run;
const claim = (run: Json, stepId: string, idem = nanoid()) =>
  claimRoute(
    request(`/api/v1/runs/${run.id}/steps/${stepId}/claim`, { body: { digest: run.steps.find((s: Json) => s.id === stepId).digest, taskRevision: run.boundTaskRevision }, headers: { "idempotency-key": idem } }),
    params({ runId: run.id, stepId }),
  );
const report = (runId: string, stepId: string, body: Json) => outcomeRoute(request(`/api/v1/runs/${runId}/steps/${stepId}/outcome`, { body }), params({ runId, stepId }));
const revise = (taskId: string) => reviseRoute(request(`/api/v1/tasks/${taskId}/revisions`, { key: DEMO_INTEGRATION_KEY, body: { comment: "The customer changed the request." } }), params({ taskId }));

const reply = (ticketId: string, id = "s_reply") => ({ id, tool: "send_reply", args: { ticketId, body: "Thanks for getting in touch; we are looking into it." }, rationale: "The customer asked." });
const note = (ticketId: string, id = "s_note") => ({ id, tool: "add_ticket_note", args: { ticketId, note: "Looked into it." } });

let supervisor: Viewer;
beforeAll(async () => {
  await prepareTestDatabase();
  supervisor = (await loadViewer("usr_supervisor"))!;
  await prisma.agent.create({ data: { id: "agent_states", name: "Second agent", allowedTools: ["add_ticket_note", "send_reply"] } });
  await prisma.apiKey.create({ data: { id: "key_states", agentId: "agent_states", hash: hashApiKey(SECOND_KEY), prefix: SECOND_KEY.slice(0, 8) } });
});

describe("a waiting run's typed end in GET /api/v1/runs/{id}", () => {
  it("a run still waiting has no outcome (it has a decision path)", async () => {
    const run = await submit("75006", [reply("75006")]);
    expect(run.status).toBe("pending_review");
    expect((await getRun(run.id)).outcome).toBeNull();
  });

  it("superseded by the same agent's newer plan: outcome names the newer run", async () => {
    const first = await submit("75007", [reply("75007")]);
    const second = await submit("75007", [reply("75007", "s_reply2")]);
    const seen = await getRun(first.id);
    expect(seen).toMatchObject({ status: "superseded", supersededById: second.id, outcome: { code: "superseded", supersededById: second.id } });
  });

  it("a task revision while the run waits stops it at once: stopped_stale_task with both revisions", async () => {
    const run = await submit("75008", [reply("75008")]);
    const approved = await submit("75009", [note("75009"), reply("75009")]);
    await approveAllAs(approved.id, "usr_senior");
    expect((await revise("task_75008")).status).toBe(201);
    expect((await revise("task_75009")).status).toBe(201);
    for (const id of [run.id, approved.id]) {
      const seen = await getRun(id);
      expect(seen).toMatchObject({ status: "stopped", outcome: { code: "stopped_stale_task", boundRevision: 1, liveRevision: 2 } });
    }
    // nothing can approve or claim it any more; a claim says why
    const refused = (await (await claim(await getRun(approved.id), "s_note")).json()) as Json;
    expect(refused.error.code).toBe("stopped_stale_task");
  });

  it("rejected: outcome carries the operator's reason", async () => {
    const run = await submit("75010", [reply("75010")]);
    await rejectRun(supervisor, run.id, { planVersion: 1, reason: "Wrong customer." });
    expect((await getRun(run.id)).outcome).toMatchObject({ code: "rejected", reason: "Wrong customer." });
  });

  it("expired: outcome carries the deadline", async () => {
    const run = await submit("75012", [reply("75012")]);
    const past = new Date(Date.now() - 1000);
    await prisma.run.update({ where: { id: run.id }, data: { expiresAt: past } });
    expect(await getRun(run.id)).toMatchObject({ status: "expired", outcome: { code: "expired", expiresAt: past.toISOString() } });
  });

  it("failed: outcome names the step that failed and its detail", async () => {
    const run = await submit("75013", [note("75013")]);
    const token = ((await (await claim(run, "s_note")).json()) as Json).claim.token;
    expect((await report(run.id, "s_note", { token, status: "failed", detail: "The ticket system said no." })).status).toBe(200);
    expect((await getRun(run.id)).outcome).toMatchObject({ code: "failed", stepId: "s_note", detail: "The ticket system said no." });
  });

  it("cannot_execute: the run ends typed, names step and tool, and the step is listed for reconciliation", async () => {
    const run = await submit("75014", [note("75014"), note("75014", "s_note2")]);
    const token = ((await (await claim(run, "s_note")).json()) as Json).claim.token;
    const res = await report(run.id, "s_note", { token, status: "cannot_execute", detail: "This executor does not implement add_ticket_note." });
    expect(res.status).toBe(200);
    expect(((await res.json()) as Json).run.status).toBe("failed");
    expect((await getRun(run.id)).outcome).toMatchObject({ code: "cannot_execute", stepId: "s_note", tool: "add_ticket_note" });
    const page = await listNeedsReconciliation(supervisor);
    expect(page.items.filter((i) => i.runId === run.id)).toEqual([expect.objectContaining({ stepId: "s_note", flag: "cannot_execute", status: "failed" })]);
  });
});

describe("one task, one live plan, per agent", () => {
  it("another agent's submission on a task with a live run is 409 task_has_live_run naming it; the first run is untouched", async () => {
    const mine = await submit("75015", [note("75015"), reply("75015")]);
    await approveAllAs(mine.id, "usr_senior");
    const res = await submitRes("75015", [reply("75015", "s_theirs")], { key: SECOND_KEY });
    const body = (await res.json()) as Json;
    expect(res.status).toBe(409);
    expect(body.error).toMatchObject({ code: "task_has_live_run", runId: mine.id, status: "approved" });
    expect((await getRun(mine.id)).status).toBe("approved");
  });

  it("an agent supersedes only its own runs", async () => {
    const theirs = await submit("75016", [reply("75016", "s_theirs")], { key: SECOND_KEY });
    const mine = await submit("75016", [reply("75016")], { extra: { addition: true } });
    const replacing = await submitRes("75016", [reply("75016", "s_reply2")]);
    expect(replacing.status).toBe(409); // theirs is live: a replacing plan is refused, never superseding it
    expect(((await replacing.json()) as Json).error).toMatchObject({ code: "task_has_live_run", runId: theirs.id });
    expect((await getRun(theirs.id, SECOND_KEY)).status).toBe("pending_review");
    expect((await getRun(mine.id)).status).toBe("pending_review");
  });
});

describe("idempotency: replays marked, refusals that may change not saved", () => {
  it("a claim refused before approval, retried with the same key after approval, claims (no stale refusal replayed)", async () => {
    const run = await submit("75017", [reply("75017")]);
    const early = await claim(run, "s_reply", "claim-key-1");
    expect(((await early.json()) as Json).error.code).toBe("run_not_approved");
    await approveAllAs(run.id, "usr_senior");
    const later = await claim(run, "s_reply", "claim-key-1");
    expect(later.status).toBe(200);
    expect(later.headers.get("idempotent-replayed")).toBeNull();
    const again = await claim(run, "s_reply", "claim-key-1");
    expect(again.status).toBe(200);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
  });

  it("a final refusal is saved and replayed with Idempotent-Replayed: true", async () => {
    const run = await submit("75018", [reply("75018")]);
    await approveAllAs(run.id, "usr_senior");
    await revise("task_75018");
    const first = await claim(run, "s_reply", "claim-key-2");
    expect(((await first.json()) as Json).error.code).toBe("stopped_stale_task");
    expect(first.headers.get("idempotent-replayed")).toBeNull();
    const replay = await claim(run, "s_reply", "claim-key-2");
    expect(((await replay.json()) as Json).error).toMatchObject({ code: "stopped_stale_task", replayed: true });
    expect(replay.headers.get("idempotent-replayed")).toBe("true");
  });

  it("a session's submission whose run finished answers 409 already_completed with the outcome; a new key starts a new run", async () => {
    const run = await submit("75019", [note("75019")], { idem: "session-1" });
    const token = ((await (await claim(run, "s_note")).json()) as Json).claim.token;
    await report(run.id, "s_note", { token, status: "succeeded" });
    const again = await submitRes("75019", [note("75019")], { idem: "session-1" });
    const body = (await again.json()) as Json;
    expect(again.status).toBe(409);
    expect(body.error).toMatchObject({ code: "already_completed", runId: run.id, status: "completed", outcome: { code: "completed" } });
    const fresh = await submit("75019", [note("75019")], { idem: "session-2" });
    expect(fresh.id).not.toBe(run.id);
  });
});

describe("strict-mode nulls mean absent", () => {
  it("null optional fields of the body, the step and the arguments are dropped, not refused", async () => {
    const step = { ...reply("75020"), title: null, evidence: null, risk: null, stopCondition: null, dependsOn: null, provenance: null };
    const run = await submit("75020", [step], { extra: { expiresInSeconds: null, addition: null } });
    expect(run.steps[0]).toMatchObject({ id: "s_reply", tool: "send_reply", rationale: "The customer asked." });
    expect(run.steps[0].title).toBeUndefined();
  });
});

describe("agents declare the tools they execute", () => {
  it("an edit adding a tool the run's agent cannot execute is refused at edit time (422, naming the tool); an executable one passes", async () => {
    const admin = (await loadViewer("usr_admin"))!;
    const senior = (await loadViewer("usr_senior"))!;
    const set = await setAgentExecutesTools(admin, "agent_states", ["add_ticket_note", "send_reply"]);
    expect(set.effectiveExecutesTools).toEqual(["add_ticket_note", "send_reply"]);
    const run = await submit("75011", [reply("75011")], { key: SECOND_KEY });
    const steps = run.steps.map((s: Json) => ({ id: s.id, tool: s.tool, args: s.args }));
    const escalate = { id: "op_escalate", tool: "escalate_ticket", args: { ticketId: "75011", team: "operations", note: "Please look." } };
    const err = await refused(submitEdit(senior, run.id, { baseVersion: 1, steps: [...steps, escalate] }));
    expect(err.code).toBe("validation_failed");
    expect(err.status).toBe(422);
    const issues = (err.details.issues as Json[]).filter((i) => i.code === "tool_not_executable");
    expect(issues).toEqual([expect.objectContaining({ path: "steps.1.tool", severity: "error" })]);
    expect(issues[0].message).toContain("escalate_ticket");
    const okEdit = await submitEdit(senior, run.id, { baseVersion: 1, steps: [...steps, { id: "op_note", tool: "add_ticket_note", args: { ticketId: "75011", note: "Checked." } }] });
    expect(okEdit.planVersion.version).toBe(2);
    // null: back to the allowlist
    expect((await setAgentExecutesTools(admin, "agent_states", null)).effectiveExecutesTools).toEqual(["add_ticket_note", "send_reply"]);
  });
});

describe("push, not polling: GET /api/v1/runs/{id}?wait=N", () => {
  const waitRun = async (runId: string, wait: number): Promise<Json> =>
    ((await (await getRunRoute(request(`/api/v1/runs/${runId}?wait=${wait}`, { method: "GET" }), params({ runId }))).json()) as Json).run;

  it("holds the answer while the run waits for review and answers with the decision when it comes", async () => {
    const run = await submit("75006", [reply("75006", "s_lp")]);
    const held = waitRun(run.id, 30);
    let answered = false;
    void held.then(() => (answered = true));
    await new Promise((r) => setImmediate(r));
    expect(answered).toBe(false);
    await approveAsIs(run.id); // a person's approval, through the service (audited: the live fan-out carries it)
    expect((await held).status).toBe("approved");
  });

  it("answers the run as it is when nothing changes within the wait", async () => {
    const run = await submit("75006", [reply("75006", "s_lp2")]);
    expect((await waitRun(run.id, 1)).status).toBe("pending_review");
  });
});
