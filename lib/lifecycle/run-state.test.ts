import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  canTransition,
  isBeingExecuted,
  isTerminal,
  nextActions,
  RUN_STATES,
  runFacts,
  TERMINAL_STATES,
  TRANSITIONS,
  transitionsFrom,
  type RunFacts,
  type RunState,
} from "./run-state";

/**
 * docs/api.md's statuses, extended (never renamed) by `superseded` (one task, one live plan) and
 * `needs_decision` (an approved run whose next step cannot be claimed waits for a person).
 */
const API_STATUSES = ["pending_review", "approved", "rejected", "expired", "executing", "completed", "stopped", "failed", "superseded", "needs_decision"];

/** Facts that can hold for a run in `status` (e.g. only an executing run has open claims). */
const factsArb = fc.record(
  {
    deadlinePassed: fc.boolean(),
    escalated: fc.boolean(),
    taskStale: fc.boolean(),
    unclaimedSteps: fc.nat(5),
    openClaims: fc.nat(3),
    staleClaims: fc.nat(2),
    unknownSteps: fc.nat(3),
  },
  { requiredKeys: [] },
);

describe("the run state machine", () => {
  it("covers exactly the statuses of docs/api.md", () => {
    expect([...RUN_STATES].sort()).toEqual([...API_STATUSES].sort());
  });

  it("lists only known statuses in transitions, each with a trigger", () => {
    for (const t of TRANSITIONS) {
      if (t.from !== null) expect(RUN_STATES).toContain(t.from);
      expect(RUN_STATES).toContain(t.to);
      expect(t.trigger.length).toBeGreaterThan(10);
    }
  });

  it("terminal statuses are exactly the ones the run never leaves", () => {
    expect([...TERMINAL_STATES].sort()).toEqual(["completed", "expired", "failed", "rejected", "stopped", "superseded"]);
    for (const s of TERMINAL_STATES) expect(transitionsFrom(s).filter((t) => t.to !== s)).toEqual([]);
  });

  it("every non-terminal status has a way out, and a terminal status is reachable from it", () => {
    for (const s of RUN_STATES.filter((x) => !isTerminal(x))) {
      expect(transitionsFrom(s).some((t) => t.to !== s)).toBe(true);
      const seen = new Set<RunState>([s]);
      const queue: RunState[] = [s];
      while (queue.length) for (const t of transitionsFrom(queue.shift()!)) if (!seen.has(t.to)) (seen.add(t.to), queue.push(t.to));
      expect([...seen].some(isTerminal)).toBe(true);
    }
  });

  it("every waiting status has a deadline: the system expires it when nobody moves", () => {
    for (const s of RUN_STATES.filter((x) => !isTerminal(x))) {
      expect(transitionsFrom(s).some((t) => t.by === "system" && t.to === "expired")).toBe(true);
    }
  });

  it("every status is reachable from submission", () => {
    const seen = new Set<RunState>();
    const queue: RunState[] = TRANSITIONS.filter((t) => t.from === null).map((t) => t.to);
    queue.forEach((s) => seen.add(s));
    while (queue.length) for (const t of transitionsFrom(queue.shift()!)) if (!seen.has(t.to)) (seen.add(t.to), queue.push(t.to));
    expect([...seen].sort()).toEqual([...RUN_STATES].sort());
  });

  it("canTransition allows the documented moves and nothing out of a final state", () => {
    expect(canTransition(null, "approved")).toBe(true);
    expect(canTransition("pending_review", "approved")).toBe(true);
    expect(canTransition("approved", "executing")).toBe(true);
    expect(canTransition("executing", "completed")).toBe(true);
    expect(canTransition("executing", "stopped")).toBe(true);
    expect(canTransition("pending_review", "executing")).toBe(false); // never without approval
    expect(canTransition("expired", "approved")).toBe(false); // an expired run cannot be approved
    expect(canTransition("completed", "executing")).toBe(false);
    expect(canTransition("stopped", "executing")).toBe(false);
    expect(canTransition("rejected", "pending_review")).toBe(false);
    expect(canTransition(null, "executing")).toBe(false);
  });
});

describe("nextActions", () => {
  it("no state lacks an owner, and every owner but 'nobody' has an enabled choice (any facts)", () => {
    fc.assert(
      fc.property(fc.constantFrom(...RUN_STATES), factsArb, (status: RunState, facts: RunFacts) => {
        const n = nextActions(status, facts);
        expect(n.owner).toBeTruthy();
        if (n.owner === "nobody (final)") {
          expect(n.terminal).toBe(true);
        } else {
          expect(n.actions.some((a) => a.by === n.owner && a.enabled)).toBe(true);
        }
        if (!n.terminal) expect(n.owner).not.toBe("nobody (final)");
        for (const a of n.actions) if (!a.enabled) expect(a.reason).toBeTruthy();
        expect(n.headline.length).toBeGreaterThan(10);
      }),
      { numRuns: 500 },
    );
  });

  it("pending_review: the operator approves, edits or rejects; supervisors are the escalation target", () => {
    const n = nextActions("pending_review");
    expect(n.owner).toBe("operator");
    expect(n.deadline).toBe("expiresAt");
    expect(n.actions.filter((a) => a.by === "operator").map((a) => a.id)).toEqual(["approve", "edit", "reject"]);
    expect(n.actions.filter((a) => a.by === "supervisor").map((a) => a.id)).toEqual(["approve", "edit", "reject"]);
    expect(nextActions("pending_review", { escalated: true }).owner).toBe("supervisor");
  });

  it("pending_review with a changed task: approve is disabled with a reason, reject stays", () => {
    const n = nextActions("pending_review", { taskStale: true });
    const approve = n.actions.find((a) => a.by === "operator" && a.id === "approve")!;
    expect(approve.enabled).toBe(false);
    expect(approve.reason).toMatch(/task changed/);
    expect(n.actions.find((a) => a.by === "operator" && a.id === "reject")!.enabled).toBe(true);
  });

  it("a waiting run past its deadline is expired: final, and the agent may submit a new plan", () => {
    for (const s of ["pending_review", "approved"] as const) {
      const n = nextActions(s, { deadlinePassed: true });
      expect(n.status).toBe("expired");
      expect(n.owner).toBe("nobody (final)");
      expect(n.actions.map((a) => a.id)).toEqual(["submit_new_plan"]);
    }
  });

  it("approved → the executor claims; executing with an unknown step → a supervisor reconciles", () => {
    expect(nextActions("approved").owner).toBe("executor");
    expect(nextActions("executing", { unclaimedSteps: 2 }).actions[0].id).toBe("claim_step");
    expect(nextActions("executing", { openClaims: 1 }).actions[0].id).toBe("report_outcome");
    const unknown = nextActions("executing", { unknownSteps: 1, unclaimedSteps: 1 });
    expect(unknown.owner).toBe("supervisor");
    expect(unknown.actions[0]).toMatchObject({ by: "supervisor", id: "reconcile", enabled: true });
    expect(nextActions("executing", { staleClaims: 1 }).owner).toBe("supervisor");
  });

  it("needs_decision → a person (never the executor) approves again, edits or rejects; the reason heads the line", () => {
    const reason = "Needs a new decision: in_74203 has $100.00 open; the approved refund was $600.00.";
    const n = nextActions("needs_decision", { decisionReason: reason });
    expect(n).toMatchObject({ owner: "operator", terminal: false, deadline: "expiresAt" });
    expect(n.headline.startsWith(reason)).toBe(true);
    expect(n.actions.some((a) => a.by === "executor")).toBe(false);
    expect(n.actions.filter((a) => a.enabled).map((a) => a.id)).toEqual(["approve", "edit", "reject", "wait_for_decision"]);
    expect(nextActions("needs_decision", { escalated: true }).owner).toBe("supervisor");
    // Once a step was written, the plan is not edited any more: approve the rest again or reject.
    expect(nextActions("needs_decision", { claimedSteps: 1 }).actions.find((a) => a.id === "edit")).toMatchObject({ enabled: false });
    expect(nextActions("needs_decision", { deadlinePassed: true }).status).toBe("expired");
    expect(canTransition("approved", "needs_decision")).toBe(true);
    expect(canTransition("executing", "needs_decision")).toBe(true);
    expect(canTransition("pending_review", "needs_decision")).toBe(false);
  });

  it("stopped → the agent plans again for the new task revision", () => {
    const n = nextActions("stopped");
    expect(n.owner).toBe("agent");
    expect(n.actions).toEqual([expect.objectContaining({ by: "agent", id: "submit_new_plan", enabled: true })]);
  });

  it("a stopped run says why it stopped: the task changed, a stop condition met (with what the executor reported), or a record changed since approval", () => {
    const now = new Date("2026-04-01T12:00:00Z");
    const run = (stopReason: unknown) => ({ expiresAt: "2026-04-01T18:00:00Z", boundTaskRevision: 1, stopReason, steps: [] });
    const headline = (stopReason: unknown) => nextActions("stopped", runFacts(run(stopReason), { now })).headline;
    expect(headline({ code: "stopped_stale_task", liveRevision: 2 })).toMatch(/the task changed after approval/);
    expect(headline(null)).toMatch(/the task changed after approval/);
    const met = headline({ code: "stop_condition_met", stepId: "s2", stopCondition: "parcel collected", detail: "The parcel was already collected." });
    expect(met).toBe("Stopped — step s2's stop condition was met (the executor reported: “The parcel was already collected”), so nothing of it was written and later steps never ran. The agent may plan again for the task as it is now.");
    expect(met).not.toMatch(/task changed/);
    expect(headline({ code: "target_changed", stepId: "s1", record: "invoice:in_1", approvedVersion: 3, liveVersion: 4 })).toMatch(/^Stopped — a record step s1 writes changed since it was approved/);
  });

  it("rejected, expired and failed are final with a new plan for the agent; completed has nothing left", () => {
    for (const s of ["rejected", "expired", "failed"] as const) {
      const n = nextActions(s);
      expect(n.owner).toBe("nobody (final)");
      expect(n.actions.map((a) => a.id)).toEqual(["submit_new_plan"]);
    }
    expect(nextActions("completed")).toMatchObject({ owner: "nobody (final)", actions: [] });
    expect(nextActions("failed", { unknownSteps: 1 }).owner).toBe("supervisor");
  });
});

describe("runFacts", () => {
  const now = new Date("2026-04-01T12:00:00Z");
  const run = {
    expiresAt: "2026-04-01T18:00:00Z",
    escalateAt: "2026-04-01T11:00:00Z",
    boundTaskRevision: 2,
    steps: [
      { execution: { status: "succeeded", claimedAt: "2026-04-01T11:50:00Z" } },
      { execution: { status: "unknown", claimedAt: "2026-04-01T11:51:00Z" } },
      { execution: { status: "unknown", claimedAt: "2026-04-01T11:51:00Z", resolution: "succeeded" } },
      { execution: { status: "claimed", claimedAt: "2026-04-01T11:30:00Z" } },
      { execution: { status: "claimed", claimedAt: "2026-04-01T11:59:00Z" } },
      { execution: null },
    ],
  };

  it("counts open claims, stale claims, unknown and unclaimed steps; reconciled steps are closed", () => {
    expect(runFacts(run, { now, liveRevision: 3 })).toEqual({
      deadlinePassed: false,
      escalated: true,
      taskStale: true,
      unclaimedSteps: 1,
      openClaims: 2,
      staleClaims: 1,
      unknownSteps: 1,
      claimedSteps: 5,
    });
    expect(nextActions("executing", runFacts(run, { now })).owner).toBe("supervisor");
  });

  it("an executing run past its deadline with nothing open reads as expired", () => {
    const done = { ...run, steps: [{ execution: { status: "succeeded", claimedAt: now } }, { execution: null }] };
    const facts = runFacts(done, { now: new Date("2026-04-02T00:00:00Z"), liveRevision: 2 });
    expect(facts).toMatchObject({ deadlinePassed: true, taskStale: false, openClaims: 0, unknownSteps: 0 });
    expect(nextActions("executing", facts)).toMatchObject({ status: "expired", owner: "nobody (final)" });
  });
});

describe("isBeingExecuted: another plan for the task is being executed", () => {
  it("executing always; needs_decision only once a step was claimed; waiting runs never", () => {
    expect(isBeingExecuted("executing")).toBe(true);
    expect(isBeingExecuted("needs_decision", { claimedSteps: 0 })).toBe(false);
    expect(isBeingExecuted("needs_decision", { claimedSteps: 1 })).toBe(true);
    for (const s of ["pending_review", "approved", "superseded"] as const) expect(isBeingExecuted(s)).toBe(false);
  });

  it("an ended run is being executed only while a claim or an unknown outcome is still open", () => {
    for (const s of TERMINAL_STATES) {
      expect(isBeingExecuted(s, { claimedSteps: 3 })).toBe(false);
      expect(isBeingExecuted(s, { claimedSteps: 3, openClaims: 1 })).toBe(true);
      expect(isBeingExecuted(s, { claimedSteps: 3, unknownSteps: 1 })).toBe(true);
    }
  });

  it("agrees with runFacts: a reconciled unknown outcome closes it", () => {
    const now = new Date("2026-04-01T12:00:00Z");
    const base = { expiresAt: "2026-04-01T18:00:00Z", boundTaskRevision: 1 };
    const unknown = { ...base, steps: [{ execution: { status: "unknown", claimedAt: "2026-04-01T11:00:00Z" } }] };
    const reconciled = { ...base, steps: [{ execution: { status: "unknown", claimedAt: "2026-04-01T11:00:00Z", resolution: "failed" } }] };
    expect(isBeingExecuted("stopped", runFacts(unknown, { now }))).toBe(true);
    expect(isBeingExecuted("stopped", runFacts(reconciled, { now }))).toBe(false);
  });
});
