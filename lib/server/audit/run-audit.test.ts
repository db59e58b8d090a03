/**
 * The run timeline and the diff corpus (docs/design.md §11) against this file's own SQLite
 * database: the reference run of ticket #74991 goes submit → refused edit → edit → approve →
 * claim → outcome, and the timeline, stored edits and JSONL export are read back.
 */
import { addDays, formatISO } from "date-fns";
import { beforeAll, describe, expect, it } from "vitest";
import { DEMO_AGENT_TOOLS } from "../../demo/desk-data";
import { approveSteps } from "../approvals/approve-steps";
import { getEditDetail, getRunAudit } from "./run-audit";
import { claimStep } from "../claims/claim-step";
import { reportOutcome } from "../claims/report-outcome";
import { prisma } from "../db/db";
import { diffCorpus, diffCorpusStream, type DiffCorpusLine } from "./diff-corpus";
import { submitEdit } from "../edits/submit-edit";
import { loadRun } from "../plans/load-run";
import { toRunView } from "../plans/run-view";
import { DEMO_AGENT_ID } from "../demo/seed";
import { loadViewer, type AgentCaller, type Viewer } from "../auth/viewer";
import { prepareTestDatabase, referenceEdit, refused, TEST_NOW } from "../../../testing/test-support";

const agent: AgentCaller = { id: DEMO_AGENT_ID, name: "Freight desk agent", allowedTools: [...DEMO_AGENT_TOOLS], keyId: "key_demo" };
const iso = (n: number) => formatISO(addDays(TEST_NOW, n), { representation: "date" });
const at = (seconds: number) => new Date(TEST_NOW.getTime() + seconds * 1000);
let operator: Viewer;
let senior: Viewer;
let supervisor: Viewer;
let admin: Viewer;
let refRunId: string;
let refundStepId: string;


const seededRun = async (ticketId: string) => prisma.run.findFirstOrThrow({ where: { task: { ticketId }, idempotencyKey: { startsWith: "seed:" } } });


beforeAll(async () => {
  await prepareTestDatabase();
  operator = (await loadViewer("usr_operator"))!;
  senior = (await loadViewer("usr_senior"))!;
  supervisor = (await loadViewer("usr_supervisor"))!;
  admin = (await loadViewer("usr_admin"))!;

  // The reference run, from submission to the last outcome.
  const run = await seededRun("74991");
  refRunId = run.id;
  const v1 = toRunView(await loadRun(run.id), TEST_NOW);
  await refused(submitEdit(operator, run.id, { baseVersion: 1, steps: referenceEdit(v1.steps) }, at(60))); // no refund authorship
  const edit = await submitEdit(senior, run.id, { baseVersion: 1, steps: referenceEdit(v1.steps) }, at(120));
  refundStepId = edit.diff.added[0].id;
  await approveSteps(
    senior,
    run.id,
    { planVersion: 2, stepIds: "all", idempotencyKey: "ref-all", acknowledgedWarnings: [{ code: "cross_account_target", stepId: refundStepId }, { code: "evidence_unrelated", stepId: refundStepId }] },
    at(180),
  );
  const approved = toRunView(await loadRun(run.id), at(200));
  expect(approved.status).toBe("approved");
  for (const s of approved.steps) {
    const { claim } = await claimStep(agent, run.id, s.id, { digest: s.digest, taskRevision: approved.boundTaskRevision }, null, at(240));
    await reportOutcome(agent, run.id, s.id, { token: claim.token, status: "succeeded" }, at(250));
  }
});

describe("the run timeline", () => {
  it("shows every event of submit → edit → approve → claim → outcome in order, with the right actors", async () => {
    const audit = await getRunAudit(supervisor, refRunId, at(300));
    expect(audit.run.status).toBe("completed");
    const steps = toRunView(await loadRun(refRunId), at(300)).steps.map((s) => s.id); // note, resched, reply, refund
    const agentActor = { kind: "agent", id: DEMO_AGENT_ID, name: "Freight desk agent" };
    const system = { kind: "system", id: null, name: "Plandesk" };
    const person = (id: string, name: string) => ({ kind: "user", id, name });
    const expected: [string, object, Record<string, unknown>?][] = [
      ["submitted", agentActor, { steps: 3 }],
      ["validated", system, { planVersion: 1 }],
      ["denied", person("usr_operator", "Olivia Operator"), { action: "author" }],
      ["edited", person("usr_senior", "Sam Senior"), { fromVersion: 1, toVersion: 2, changeCount: 2 }],
      ["validated", system, { planVersion: 2 }],
      // the note kept its policy approval (same digest); the other three are approved by a person, in plan order
      ["approved", person("usr_senior", "Sam Senior"), { stepId: steps[1] }],
      ["approved", person("usr_senior", "Sam Senior"), { stepId: steps[2] }],
      ["approved", person("usr_senior", "Sam Senior"), { stepId: steps[3], acknowledged: [{ code: "cross_account_target", stepId: steps[3] }, { code: "evidence_unrelated", stepId: steps[3] }] }],
      ...steps.flatMap((id): [string, object, Record<string, unknown>][] => [
        ["claimed", agentActor, { stepId: id, planVersion: 2 }],
        ["outcome", agentActor, { stepId: id, status: "succeeded" }],
      ]),
    ];
    expect(audit.events.map((e) => e.type)).toEqual(expected.map(([t]) => t));
    audit.events.forEach((e, i) => {
      expect(e.actor, `event ${i} (${e.type})`).toEqual(expected[i][1]);
      if (expected[i][2]) expect(e.data, `event ${i} (${e.type})`).toMatchObject(expected[i][2]!);
    });
    const seqs = audit.events.map((e) => e.seq);
    expect([...seqs].sort((a, b) => a - b)).toEqual(seqs);
    for (const e of audit.events) expect(e.at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    expect(audit.events.at(-1)!.data).toMatchObject({ runStatus: "completed" });
  });

  it("holds every plan version with its author, and the edit with its stored diff", async () => {
    const audit = await getRunAudit(operator, refRunId, at(300)); // operators of the desk may read it too
    expect(audit.planVersions.map((p) => [p.version, p.createdBy.kind, p.createdBy.name, p.steps.length, p.fromEdit])).toEqual([
      [1, "agent", "Freight desk agent", 3, false],
      [2, "user", "Sam Senior", 4, true],
    ]);
    expect(audit.edits).toHaveLength(1);
    expect(audit.edits[0]).toMatchObject({ fromVersion: 1, toVersion: 2, editorId: "usr_senior", editorName: "Sam Senior" });
    expect(audit.edits[0].diff.changeCount).toBe(2);
    expect(audit.edits[0].diff.added.map((s) => s.id)).toEqual([refundStepId]);
    const v2 = audit.planVersions[1];
    expect(v2.steps.every((s) => s.execution?.status === "succeeded")).toBe(true);
    expect(v2.steps.find((s) => s.id === refundStepId)!.approval).toMatchObject({ state: "consumed", approverId: "usr_senior" });
  });

  it("never relabels an origin: after approval and execution the provenance is the one stored by the edit", async () => {
    const audit = await getRunAudit(supervisor, refRunId, at(300));
    const detail = await getEditDetail(supervisor, refRunId, 2);
    const shown = Object.fromEntries(audit.planVersions[1].steps.map((s) => [s.id, { author: s.author, provenance: s.provenance }]));
    const stored = Object.fromEntries(detail.after.steps.map((s) => [s.id, { author: s.author, provenance: s.provenance }]));
    expect(shown).toEqual(stored);
    const resched = audit.planVersions[1].steps.find((s) => s.tool === "reschedule_delivery")!;
    expect(resched.author).toEqual({ kind: "user", userId: "usr_senior" });
    expect(resched.provenance.window).toMatchObject({ kind: "operator", userId: "usr_senior", previous: { from: iso(3), to: iso(3) } });
    expect(resched.provenance.shipmentId).toEqual({ kind: "source", recordType: "shipment", recordId: "sh_5521" }); // untouched: still account data
    const note = audit.planVersions[1].steps.find((s) => s.tool === "add_ticket_note")!;
    expect(note.author).toEqual({ kind: "model" });
    expect(note.approval).toMatchObject({ approverId: null }); // consent by policy, origin still the model's
    expect(note.provenance.ticketId).toEqual({ kind: "user_literal" });
  });

  it("serves an edit's pre-edit plan, post-edit plan and diff as stored", async () => {
    const detail = await getEditDetail(operator, refRunId, 2);
    const row = await prisma.planEdit.findUniqueOrThrow({ where: { runId_toVersion: { runId: refRunId, toVersion: 2 } } });
    expect(detail).toMatchObject({ runId: refRunId, fromVersion: 1, toVersion: 2, editorId: "usr_senior", editorName: "Sam Senior" });
    expect(detail.before).toEqual(row.before);
    expect(detail.after).toEqual(row.after);
    expect(detail.diff).toEqual(row.diff);
    expect(detail.before.steps).toHaveLength(3);
    expect(detail.after.steps).toHaveLength(4);
    expect((await refused(getEditDetail(operator, refRunId, 1))).code).toBe("not_found");
    expect((await refused(getEditDetail(operator, "run_nope", 2))).code).toBe("not_found");
  });

  it("refuses admins (403, audited) and says 404 for an unknown run", async () => {
    const other = await seededRun("74992");
    const err = await refused(getRunAudit(admin, other.id));
    expect(err.code).toBe("forbidden");
    expect(err.status).toBe(403);
    expect((await refused(getEditDetail(admin, other.id, 2))).code).toBe("forbidden");
    expect(await prisma.auditEvent.count({ where: { runId: other.id, type: "denied", actorId: "usr_admin" } })).toBe(2);
    expect((await refused(getRunAudit(supervisor, "run_does_not_exist"))).code).toBe("not_found");
  });
});

describe("the diff corpus (JSONL)", () => {
  async function readAll(stream: ReadableStream<Uint8Array>): Promise<string> {
    const reader = stream.getReader();
    const dec = new TextDecoder();
    let text = "";
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return text + dec.decode();
      text += dec.decode(value, { stream: true });
    }
  }

  it("parses line by line and matches the stored edits, with each run's outcome", async () => {
    // a second edited run that is still waiting: its outcome is null
    const pending = await seededRun("74994");
    const v1 = toRunView(await loadRun(pending.id), TEST_NOW);
    const steps = v1.steps.map((s) => ({ id: s.id, tool: s.tool, args: structuredClone(s.args) }));
    (steps.find((s) => s.tool === "add_ticket_note")!.args as { note: string }).note = "New warehouse address confirmed by phone;\u2028re-routing sh_5610.\u0085Driver informed.";
    await submitEdit(operator, pending.id, { baseVersion: 1, steps }, at(400));

    const text = await readAll(await diffCorpusStream(supervisor, at(500)));
    expect(text.endsWith("\n")).toBe(true);
    const lines = text.split("\n").slice(0, -1);
    // One edit, one line, also for a standard line splitter (U+2028, U+2029 and U+0085 in an edited note are escaped).
    expect(text.split(/\r\n|[\n\r\u2028\u2029\u0085]/).slice(0, -1)).toHaveLength(lines.length);
    const parsed = lines.map((l) => JSON.parse(l) as DiffCorpusLine);
    const stored = await prisma.planEdit.findMany({ orderBy: [{ createdAt: "asc" }, { runId: "asc" }, { toVersion: "asc" }] });
    expect(parsed).toHaveLength(stored.length);
    expect(parsed.length).toBe(2);
    parsed.forEach((line, i) => {
      expect(Object.keys(line).sort()).toEqual(["after", "before", "diff", "discarded", "editorId", "fromVersion", "label", "outcome", "outcomeRecord", "runId", "toVersion"]);
      expect(line).toMatchObject({ runId: stored[i].runId, fromVersion: stored[i].fromVersion, toVersion: stored[i].toVersion, editorId: stored[i].editorId });
      expect(line.before).toEqual(stored[i].before);
      expect(line.after).toEqual(stored[i].after);
      expect(line.diff).toEqual(stored[i].diff);
    });
    expect(parsed.find((l) => l.runId === refRunId)!.outcome).toBe("completed");
    expect(parsed.find((l) => l.runId === pending.id)!.outcome).toBeNull();
    // the generator gives the same objects
    const viaGenerator: DiffCorpusLine[] = [];
    for await (const l of diffCorpus(supervisor, at(500))) viaGenerator.push(l);
    expect(JSON.parse(JSON.stringify(viaGenerator))).toEqual(parsed);
    // a run that expires without a decision reports `expired`
    const later = new Date(pending.expiresAt.getTime() + 1000);
    const afterExpiry = (await readAll(await diffCorpusStream(supervisor, later))).trim().split("\n").map((l) => JSON.parse(l) as DiffCorpusLine);
    expect(afterExpiry.find((l) => l.runId === pending.id)!.outcome).toBe("expired");
  });

  it("is for supervisors only (operators and admins 403, audited)", async () => {
    const denials = async () =>
      (await prisma.auditEvent.findMany({ where: { type: "denied" } })).filter((e) => (e.data as { action?: string }).action === "export_diff_corpus").map((e) => e.actorId);
    expect(await denials()).toEqual([]);
    expect((await refused(diffCorpusStream(operator))).code).toBe("forbidden");
    expect((await refused(diffCorpusStream(admin))).status).toBe(403);
    expect(await denials()).toEqual(["usr_operator", "usr_admin"]);
  });
});
