import { beforeAll, describe, expect, it } from "vitest";
import { prisma } from "../db/db";
import { approveSteps } from "../approvals/approve-steps";
import { diffCorpus } from "../audit/diff-corpus";
import { listQueue } from "../runs/list-queue";
import { deskScope, loadViewer, type Viewer } from "../auth/viewer";
import { PERSON_REFUND_REASONS, prepareTestDatabase, refused, TEST_NOW } from "../../../testing/test-support";
import { assignRun, takeRun } from "./assign-run";
import { getRunOwnership } from "./get-run-ownership";
import { listNotifications, markNotificationsRead } from "./notifications";
import { requestApproval } from "./request-approval";
import { acceptSuggestion, declineSuggestion, suggestStep } from "./suggest-step";

let operator: Viewer;
let senior: Viewer;
let supervisor: Viewer;

const runOf = async (ticketId: string) => (await prisma.run.findFirstOrThrow({ where: { ticketId, idempotencyKey: { startsWith: "seed:" } } })).id;
const refund = { invoiceId: "in_74119", amount: { minor: 148900, currency: "USD" }, reason: "Goodwill for the missed window" };

beforeAll(async () => {
  await prepareTestDatabase();
  operator = (await loadViewer("usr_operator"))!;
  senior = (await loadViewer("usr_senior"))!;
  supervisor = (await loadViewer("usr_supervisor"))!;
});

describe("ownership: take and reassign (issue #16)", () => {
  it("two operators take the same run at once: exactly one wins, the other gets 409 already_assigned naming the owner", async () => {
    const runId = await runOf("74992");
    const results = await Promise.allSettled([takeRun(operator, runId, TEST_NOW), takeRun(senior, runId, TEST_NOW)]);
    const won = results.filter((r) => r.status === "fulfilled");
    const lost = results.filter((r): r is PromiseRejectedResult => r.status === "rejected");
    expect(won).toHaveLength(1);
    expect(lost).toHaveLength(1);
    const err = lost[0].reason as { code: string; status: number; message: string; details: { assigneeName: string } };
    expect(err.code).toBe("already_assigned");
    expect(err.status).toBe(409);
    const owner = (won[0] as PromiseFulfilledResult<{ assigneeName: string }>).value.assigneeName;
    expect(err.details.assigneeName).toBe(owner);
    expect(err.message).toContain(owner);
    const events = await prisma.auditEvent.findMany({ where: { runId, type: "run_assigned" } });
    expect(events).toHaveLength(1);
  });

  it("taking your own run again changes nothing; a supervisor reassigns it (audited, the new assignee is notified)", async () => {
    const runId = await runOf("74993");
    await takeRun(operator, runId, TEST_NOW);
    await takeRun(operator, runId, TEST_NOW);
    expect(await prisma.auditEvent.count({ where: { runId, type: "run_assigned" } })).toBe(1);
    expect((await refused(takeRun(senior, runId, TEST_NOW))).code).toBe("already_assigned");
    const a = await assignRun(supervisor, runId, "usr_senior", TEST_NOW);
    expect(a.assigneeName).toBe("Sam Senior");
    const ev = await prisma.auditEvent.findFirstOrThrow({ where: { runId, type: "run_assigned" }, orderBy: { seq: "desc" } });
    expect(ev.data).toMatchObject({ assigneeId: "usr_senior", previousAssigneeId: "usr_operator", how: "reassign", byUserId: "usr_supervisor" });
    expect((await listNotifications(senior)).notifications.some((n) => n.kind === "assigned" && n.runId === runId)).toBe(true);
    expect((await refused(assignRun(supervisor, runId, "usr_admin", TEST_NOW))).code).toBe("validation_failed");
  });
});

describe("queue views and filters in SQL (issue #16)", () => {
  const ids = async (f: Parameters<typeof listQueue>[0], who: Viewer) => (await listQueue({ scope: deskScope(who), viewer: who, status: "pending_review", ...f }, TEST_NOW)).runs.map((r) => r.ticketId);

  it("mine, unassigned, beyond my limit", async () => {
    const mineSenior = await ids({ view: "mine" }, senior);
    expect(mineSenior).toContain("74993");
    expect(await ids({ view: "unassigned" }, operator)).not.toContain("74993");
    const beyond = await ids({ view: "beyond_my_limit" }, operator);
    expect(beyond).toEqual(expect.arrayContaining(["74992", "74993"])); // $1,060 and $4,199 refunds, operator limit $500
    expect(await ids({ view: "beyond_my_limit" }, supervisor)).not.toContain("74992");
  });

  it("tool and amount filters, and the approvals still missing per row", async () => {
    const page = await listQueue({ scope: deskScope(operator), viewer: operator, status: "pending_review", tool: "issue_refund", minAmountMinor: 100_000, maxAmountMinor: 200_000 }, TEST_NOW);
    const tickets = page.runs.map((r) => r.ticketId);
    expect(tickets).toContain("74992");
    expect(tickets).not.toContain("74993"); // $4,199 is above the range
    const row = page.runs.find((r) => r.ticketId === "74992")!;
    expect(row.approvalsMissing).toBe(row.gatedCount);
    expect(row.beyondMyLimit).toBe(true);
    expect(row.assigneeName).toBeTruthy();
  });
});

describe("routing by authority (issue #16)", () => {
  it("names the people who can approve the $1,060 refund and flags it beyond the operator", async () => {
    const o = await getRunOwnership(operator, await runOf("74992"), TEST_NOW);
    const step = o.deciders.find((d) => d.tool === "issue_refund")!;
    expect(step.sentence).toBe(`Sam Senior or Sofia Supervisor can approve step ${step.position} (issue_refund $1,060.00)`);
    expect(o.beyondMyLimit).toBe(true);
  });

  it("Request approval hands the run to a named person with a note: stored, notified, audited", async () => {
    const runId = await runOf("74992");
    const r = await requestApproval(operator, runId, { toUserId: "usr_senior", note: "Over my $500 limit." }, TEST_NOW);
    const ev = await prisma.auditEvent.findFirstOrThrow({ where: { runId, type: "approval_requested" } });
    expect(ev.data).toEqual({ runId, requestId: r.id, stepId: null, toUserId: "usr_senior", toRole: null, note: "Over my $500 limit.", byUserId: "usr_operator" });
    const inbox = await listNotifications(senior);
    expect(inbox.notifications.some((n) => n.kind === "approval_requested" && n.text.includes("Over my $500 limit."))).toBe(true);
    expect(await ids2("requested", senior)).toContain("74992");
    const { unread } = await markNotificationsRead(senior, "all");
    expect(unread).toBe(0);
    expect((await refused(requestApproval(operator, runId, { note: "x" }, TEST_NOW))).code).toBe("bad_request");
    // The senior's decision answers the hand-off: resolved, and no longer "requested of me".
    const run = await prisma.run.findUniqueOrThrow({ where: { id: runId }, select: { planVersion: true } });
    await approveSteps(senior, runId, { planVersion: run.planVersion, stepIds: "all", idempotencyKey: `a-${runId}`, acknowledgedWarnings: [] }, TEST_NOW);
    expect((await prisma.approvalRequest.findUniqueOrThrow({ where: { id: r.id } })).resolvedAt).not.toBeNull();
    expect(await ids2("requested", senior)).not.toContain("74992");
  });
});

async function ids2(view: "requested", who: Viewer) {
  return (await listQueue({ scope: deskScope(who), viewer: who, view }, TEST_NOW)).runs.map((r) => r.ticketId);
}

describe("suggest a step", () => {
  it("an operator without refund authorship suggests the refund; the senior accepts it as their own edit through the validator", async () => {
    const runId = await runOf("74991");
    const s = await suggestStep(operator, runId, { planVersion: 1, tool: "issue_refund", args: refund, note: "Goodwill" }, TEST_NOW);
    expect(s.state).toBe("open");
    // the operator may not accept it: it would be their edit, and they may not author refunds
    expect((await refused(acceptSuggestion(operator, runId, s.id, TEST_NOW))).code).toBe("authorship_denied");
    // … and the panel says so before she tries; the senior may
    const other = await suggestStep(operator, runId, { planVersion: 1, tool: "add_ticket_note", args: { ticketId: "74991", note: "Refund suggested." } }, TEST_NOW);
    const shown = async (who: Viewer, id: string) => (await getRunOwnership(who, runId, TEST_NOW)).suggestions.find((x) => x.id === id)!;
    expect(await shown(operator, s.id)).toMatchObject({ stale: false, acceptBlocked: "needs a grant to author issue_refund steps" });
    expect(await shown(senior, s.id)).toMatchObject({ stale: false, acceptBlocked: null });
    // accepting makes the step the senior's own: without the reasons the gate policy requires of a
    // refund it is refused like any edit, the fields named, and nothing is saved (the suggestion stays open)
    const bare = await refused(acceptSuggestion(senior, runId, s.id, TEST_NOW));
    expect(bare.code).toBe("validation_failed");
    const paths = (bare.details.issues as { path?: string; severity: string }[]).filter((i) => i.severity === "error").map((i) => i.path?.replace(/^steps\.\d+\./, ""));
    expect(paths.sort()).toEqual(["evidence", "risk", "stopCondition", "title"]);
    expect(await shown(senior, s.id)).toMatchObject({ state: "open" });
    expect((await prisma.run.findUniqueOrThrow({ where: { id: runId } })).planVersion).toBe(1);
    const { suggestion, edit } = await acceptSuggestion(senior, runId, s.id, TEST_NOW, PERSON_REFUND_REASONS);
    // the other suggestion was made on version 1: it is shown out of date, and accepting it is refused as such
    expect(await shown(senior, other.id)).toMatchObject({ state: "open", stale: true });
    expect((await refused(acceptSuggestion(senior, runId, other.id, TEST_NOW))).code).toBe("stale_plan_version");
    expect(await shown(senior, s.id)).toMatchObject({ state: "accepted", stale: false, acceptBlocked: null });
    expect(suggestion.state).toBe("accepted");
    expect(edit.planVersion.version).toBe(2);
    const added = edit.planVersion.steps.find((x) => x.tool === "issue_refund")!;
    expect(added.author).toEqual({ kind: "user", userId: "usr_senior" });
    expect(added).toMatchObject(PERSON_REFUND_REASONS);
    expect(edit.diff.added.map((x) => x.tool)).toEqual(["issue_refund"]);
    const types = (await prisma.auditEvent.findMany({ where: { runId }, orderBy: { seq: "asc" } })).map((e) => e.type);
    expect(types).toEqual(expect.arrayContaining(["step_suggested", "edited", "suggestion_accepted"]));
    expect((await refused(acceptSuggestion(senior, runId, s.id, TEST_NOW))).code).toBe("suggestion_closed");
    // the diff corpus names the suggestion behind the edit
    const lines = [];
    for await (const l of diffCorpus(supervisor, TEST_NOW)) lines.push(l);
    expect(lines.find((l) => l.runId === runId && l.toVersion === 2)?.suggestion).toEqual({ id: s.id, suggestedBy: "usr_operator", note: "Goodwill" });
  });

  it("a suggestion on an older plan version is refused as stale; a declined one records the reason", async () => {
    const runId = await runOf("74991");
    expect((await refused(suggestStep(operator, runId, { planVersion: 1, tool: "issue_refund", args: refund }, TEST_NOW))).code).toBe("stale_plan_version");
    const s = await suggestStep(operator, runId, { planVersion: 2, tool: "issue_refund", args: { ...refund, amount: { minor: 1000, currency: "USD" } } }, TEST_NOW);
    const bad = await refused(suggestStep(operator, runId, { planVersion: 2, tool: "issue_refund", args: { invoiceId: "in_74119" } }, TEST_NOW));
    expect(bad.code).toBe("validation_failed");
    const d = await declineSuggestion(senior, runId, s.id, "Already refunded above.", TEST_NOW);
    expect(d).toMatchObject({ state: "declined", reason: "Already refunded above.", decidedById: "usr_senior" });
    expect((await refused(declineSuggestion(senior, runId, s.id, "again", TEST_NOW))).code).toBe("suggestion_closed");
    const ev = await prisma.auditEvent.findFirstOrThrow({ where: { runId, type: "suggestion_declined" } });
    expect(ev.data).toMatchObject({ suggestionId: s.id, reason: "Already refunded above.", suggestedBy: "usr_operator" });
  });
});
