/**
 * `/insights` numbers from the database: seven runs taken through real edits,
 * approvals, a rejection, claims and outcomes; every expected number is computed by hand below.
 */
import { nanoid } from "nanoid";
import { beforeAll, describe, expect, it } from "vitest";
import { DEMO_AGENT_TOOLS } from "../../demo/desk-data";
import { isDomainError } from "../../errors/domain-error";
import type { Step, StepInput } from "../../plan/schema";
import { approveSteps } from "../approvals/approve-steps";
import { rejectRun } from "../approvals/reject-run";
import { claimStep } from "../claims/claim-step";
import { reportOutcome } from "../claims/report-outcome";
import { prisma } from "../db/db";
import { submitEdit } from "../edits/submit-edit";
import { discardEdit } from "../edits/discard-edit";
import { loadInsights, type InsightsPage } from "./insights";
import { diffCorpus, type DiffCorpusLine } from "./diff-corpus";
import { loadRun } from "../plans/load-run";
import { submitRun } from "../runs/submit-run";
import { toRunView } from "../plans/run-view";
import { DEMO_AGENT_ID } from "../demo/seed";
import { loadViewer, type AgentCaller, type Viewer } from "../auth/viewer";
import { prepareTestDatabase, TEST_NOW } from "../../../testing/test-support";

const agent: AgentCaller = { id: DEMO_AGENT_ID, name: "Freight desk agent", allowedTools: [...DEMO_AGENT_TOOLS], keyId: "key_demo" };
const D1 = new Date(TEST_NOW.getTime() + 10 * 86_400_000); // 2026-04-11 09:00 UTC
const D2 = new Date(TEST_NOW.getTime() + 11 * 86_400_000); // 2026-04-12 09:00 UTC
const plus = (d: Date, s: number) => new Date(d.getTime() + s * 1000);
const TICKET = "75011";
const NOTE_A = "Customer uploaded the certificate.";
const NOTE_A2 = "Customer uploaded the missing certificate today.";

let senior: Viewer;
let supervisor: Viewer;
let operator: Viewer;

/** Four steps: two notes and an escalation (auto-gated), a reply (needs a person). */
const plan = (): StepInput[] => [
  { id: "s1", tool: "add_ticket_note", args: { ticketId: TICKET, note: NOTE_A } },
  { id: "s2", tool: "add_ticket_note", args: { ticketId: TICKET, note: "Checked the certificate against the shipment." } },
  { id: "s3", tool: "escalate_ticket", args: { ticketId: TICKET, team: "customs", note: "Please release the hold." } },
  { id: "s4", tool: "send_reply", args: { ticketId: TICKET, body: "Thanks, we received the certificate and are checking it now." } },
];

async function submit(at: Date) {
  const task = await prisma.task.findUniqueOrThrow({ where: { id: `task_${TICKET}` } });
  return (await submitRun(agent, task.id, { taskRevision: task.revision, steps: plan(), addition: true }, `ins:${nanoid()}`, at)).run;
}

async function edit(viewer: Viewer, runId: string, at: Date, change: (steps: Step[]) => Step[]) {
  const v = toRunView(await loadRun(runId), at);
  const steps: Step[] = v.steps.map((s) => ({ id: s.id, tool: s.tool, args: structuredClone(s.args), provenance: {}, author: { kind: "model" } }));
  return submitEdit(viewer, runId, { baseVersion: v.planVersion, steps: change(steps) }, at);
}

const setNote = (id: string, note: string) => (steps: Step[]) => steps.map((s) => (s.id === id ? { ...s, args: { ...s.args, note } } : s));

async function approve(runId: string, at: Date) {
  const v = toRunView(await loadRun(runId), at);
  return approveSteps(senior, runId, { planVersion: v.planVersion, stepIds: "all", idempotencyKey: `k-${nanoid()}` }, at);
}

/** Claims and reports each listed step (default: all) with `status`. */
async function execute(runId: string, at: Date, status: "succeeded" | "failed", only?: string[]) {
  const v = toRunView(await loadRun(runId), at);
  for (const s of v.steps.filter((x) => !only || only.includes(x.id))) {
    const { claim } = await claimStep(agent, runId, s.id, { digest: s.digest, taskRevision: v.boundTaskRevision }, null, at);
    await reportOutcome(agent, runId, s.id, { token: claim.token, status }, at);
  }
}

let insights: InsightsPage;

beforeAll(async () => {
  await prepareTestDatabase();
  senior = (await loadViewer("usr_senior"))!;
  supervisor = (await loadViewer("usr_supervisor"))!;
  operator = (await loadViewer("usr_operator"))!;

  // Day 1 (2026-04-11)
  const r1 = await submit(D1); // one note changed (1 of 4), approved, executed: completed
  await edit(senior, r1.id, plus(D1, 60), setNote("s1", NOTE_A2));
  await approve(r1.id, plus(D1, 120));
  await execute(r1.id, plus(D1, 180), "succeeded");

  const r3 = await submit(plus(D1, 300)); // unedited, approved, first step fails: failed
  await approve(r3.id, plus(D1, 360));
  await execute(r3.id, plus(D1, 420), "failed", ["s1"]);

  const r4 = await submit(plus(D1, 500)); // a note added (1 of 5), rejected
  await edit(senior, r4.id, plus(D1, 560), (steps) => [
    ...steps,
    { id: "extra", tool: "add_ticket_note", args: { ticketId: TICKET, note: "Asked the customer for the original too." }, provenance: {}, author: { kind: "model" } },
  ]);
  await rejectRun(senior, r4.id, { planVersion: 2, reason: "The customer already sent the original." }, plus(D1, 600));

  // Day 2 (2026-04-12)
  const r2 = await submit(D2); // both notes and the team changed (3 of 4), approved
  await edit(senior, r2.id, plus(D2, 60), (steps) =>
    setNote("s2", "Certificate matches the shipment.")(setNote("s1", "Certificate received by email.")(steps)).map((s) =>
      s.id === "s3" ? { ...s, args: { ...s.args, team: "operations" } } : s,
    ),
  );
  await approve(r2.id, plus(D2, 120));

  const r5 = await submit(plus(D2, 200)); // three steps removed (3 of 4), approved
  await edit(supervisor, r5.id, plus(D2, 260), (steps) => steps.filter((s) => s.id === "s4"));
  await approve(r5.id, plus(D2, 300));

  await submit(plus(D2, 400)); // r6: unedited, still waiting

  const r7 = await submit(plus(D2, 500)); // the same note change as r1 (1 of 4), approved
  await edit(supervisor, r7.id, plus(D2, 560), setNote("s1", NOTE_A2));
  await approve(r7.id, plus(D2, 600));

  // r8: over half touched (3 of 4, the same note change again), then discarded by its editor and
  // approved as the agent proposed it — the discarded edit is in no count.
  const r8 = await submit(plus(D2, 700));
  await edit(senior, r8.id, plus(D2, 760), (steps) =>
    setNote("s2", "Changed and then thrown away.")(setNote("s1", NOTE_A2)(steps)).map((s) => (s.id === "s3" ? { ...s, args: { ...s.args, team: "operations" } } : s)),
  );
  await discardEdit(senior, r8.id, 2, plus(D2, 800));
  await approve(r8.id, plus(D2, 860));

  insights = await loadInsights(supervisor, plus(D2, 3600), { since: new Date("2026-04-11T00:00:00Z") });
});

describe("loadInsights over stored runs and edits", () => {
  it("edit rate: 5 of 7 decided runs were edited (r8's discarded edit does not make it edited)", () => {
    // decided: r1 (completed), r3 (failed), r4 (rejected), r2, r5, r7, r8 (approved); r6 waits
    expect(insights.runs).toEqual({ total: 8, decided: 7, pending: 1, expired: 0 });
    expect(insights.editRate).toEqual({ decided: 7, edited: 5, rate: 5 / 7 });
  });

  it("edit sizes: 1/4, 1/5, 3/4, 3/4, 1/4 (the discarded 3/4 left out)", () => {
    expect(insights.edits.count).toBe(5);
    expect(insights.edits.medianSize).toBe(0.25);
    expect(insights.edits.meanSize).toBeCloseTo((0.25 + 0.2 + 0.75 + 0.75 + 0.25) / 5, 10);
    expect(insights.editSizeBins.map((b) => b.edits)).toEqual([0, 1, 2, 0, 0, 0, 0, 2, 0, 0]);
  });

  it("drift: day 1 none of 3 plans over half touched, day 2 two of 4 — above the 20 % line", () => {
    expect(insights.drift.threshold).toBe(0.2);
    expect(insights.drift.points).toEqual([
      { day: "2026-04-11", plans: 3, overHalf: 0, share: 0 },
      { day: "2026-04-12", plans: 4, overHalf: 2, share: 2 / 4 },
    ]);
    expect(insights.drift.alertDays).toEqual(["2026-04-12"]);
    // one definition: the headline is the series' sum (r2, r5), r8's discarded edit not among them
    expect(insights.plansOverHalf).toEqual({ plans: 2, decided: 7 });
  });

  it("outcomes of edited vs unedited plans", () => {
    const row = (k: string) => insights.outcomes.find((o) => o.key === k)!;
    expect(row("completed")).toMatchObject({ edited: 1, unedited: 0 });
    expect(row("failed")).toMatchObject({ edited: 0, unedited: 1 });
    expect(row("stopped")).toMatchObject({ edited: 0, unedited: 0 });
    expect(row("rejected")).toMatchObject({ edited: 1, unedited: 0 });
    expect(row("expired")).toMatchObject({ edited: 0, unedited: 0 });
    expect(row("in_progress")).toMatchObject({ edited: 3, unedited: 1 });
    expect(insights.completionRate).toEqual({ edited: 1, unedited: 0 });
  });

  it("recurring edits: the note changed in 3 edits, the same way in 2 (by two people; r8's discarded one not counted)", () => {
    expect(insights.recurring.map((r) => [r.kind, r.tool, r.pattern, r.count, r.runs, r.editors])).toEqual([
      ["field", "add_ticket_note", "note changed", 3, 3, ["usr_senior", "usr_supervisor"]],
      ["field_change", "add_ticket_note", `note: ${NOTE_A} → ${NOTE_A2}`, 2, 2, ["usr_senior", "usr_supervisor"]],
    ]);
    expect(insights.users.usr_senior).toBe("Sam Senior");
    expect(insights.recurring[1].desks).toEqual(["freight"]);
  });

  it("a discarded edit leaves its run unedited and its patterns uncounted", async () => {
    const r8 = await prisma.run.findFirstOrThrow({ where: { createdAt: plus(D2, 700) } });
    expect({ editCount: r8.editCount, editFraction: r8.editFraction }).toEqual({ editCount: 0, editFraction: null });
    const e = await prisma.planEdit.findFirstOrThrow({ where: { runId: r8.id } });
    expect(e.discardedAt).not.toBeNull();
    expect(await prisma.planEditPattern.count({ where: { runId: r8.id } })).toBe(0);
    expect(await prisma.planEditPattern.count({ where: { editId: { not: e.id } } })).toBeGreaterThan(0);
  });

  it("the diff corpus leaves the discarded edit out, as insights do; ?discarded=include adds it, saying so", async () => {
    const r8 = await prisma.run.findFirstOrThrow({ where: { createdAt: plus(D2, 700) } });
    const lines = async (includeDiscarded?: boolean) => {
      const out: DiffCorpusLine[] = [];
      for await (const l of diffCorpus(supervisor, plus(D2, 3600), { includeDiscarded })) out.push(l);
      return out;
    };
    const byDefault = await lines();
    expect(byDefault.some((l) => l.runId === r8.id)).toBe(false);
    expect(byDefault.every((l) => l.discarded === false)).toBe(true);
    const all = await lines(true);
    expect(all.filter((l) => l.runId === r8.id).map((l) => l.discarded)).toEqual([true]);
    expect(all.length).toBe(byDefault.length + 1);
  });

  it("is for supervisors only", async () => {
    const err = await loadInsights(operator).catch((e: unknown) => e);
    expect(isDomainError(err) && err.code).toBe("forbidden");
  });
});

describe("the edit rate and the edits beside it count the same runs", () => {
  const D3 = new Date(TEST_NOW.getTime() + 12 * 86_400_000); // 2026-04-13 09:00 UTC, after the fixture's days
  const day3 = new Date("2026-04-13T00:00:00Z");

  it("edits of a run still waiting for review are stored, but in neither the edit rate nor the edits on decided runs", async () => {
    const waiting = await submit(D3); // edited once, still waiting for review
    await edit(senior, waiting.id, plus(D3, 60), setNote("s1", NOTE_A2));
    const twice = await submit(plus(D3, 100)); // edited twice, then approved
    await edit(senior, twice.id, plus(D3, 160), setNote("s1", NOTE_A2));
    await edit(supervisor, twice.id, plus(D3, 200), setNote("s2", "Certificate matches the shipment."));
    await approve(twice.id, plus(D3, 260));
    const plain = await submit(plus(D3, 300)); // approved as proposed
    await approve(plain.id, plus(D3, 360));

    const day = await loadInsights(supervisor, plus(D3, 3600), { since: day3, until: new Date(day3.getTime() + 86_400_000) });
    expect(day.runs).toEqual({ total: 3, decided: 2, pending: 1, expired: 0 });
    expect(day.editRate).toEqual({ decided: 2, edited: 1, rate: 1 / 2 });
    expect({ count: day.edits.count, onDecidedRuns: day.edits.onDecidedRuns }).toEqual({ count: 3, onDecidedRuns: 2 });

    // Only the waiting run in the period: a 0 % edit rate sits beside 0 edits on decided runs, not beside its stored edit.
    const first = await loadInsights(supervisor, plus(D3, 3600), { since: day3, until: plus(D3, 90) });
    expect(first.editRate).toEqual({ decided: 0, edited: 0, rate: 0 });
    expect({ count: first.edits.count, onDecidedRuns: first.edits.onDecidedRuns }).toEqual({ count: 1, onDecidedRuns: 0 });

    // Once it is decided, its edit counts in both.
    await approve(waiting.id, plus(D3, 3700));
    const later = await loadInsights(supervisor, plus(D3, 3800), { since: day3, until: new Date(day3.getTime() + 86_400_000) });
    expect(later.editRate).toEqual({ decided: 3, edited: 2, rate: 2 / 3 });
    expect(later.edits.onDecidedRuns).toBe(3);
  });
});
