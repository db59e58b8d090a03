/**
 * The run state machine (pure; no I/O): every run status of docs/api.md, every allowed transition
 * with its trigger and who causes it, and — for each status — who decides next and what they
 * can do. Used by the UI to say whose move it is, and by tests to prove that every waiting
 * state has an owner, a deadline and a way out (docs/design.md §10).
 *
 * Sources: docs/api.md (`status`), docs/design.md §5 (approval), §6 (edit), §8 (task revision),
 * §9 (claim, write, report; `unknown` waits for a person), §10 (nobody answers).
 * `needs_decision` (docs/design.md §10, "nobody waits forever"): an approved run whose next step
 * cannot be claimed for a reason no executor can fix waits for a person's new decision.
 */

/** Run statuses of docs/api.md, in lifecycle order. The one list of statuses (API, UI, server). */
export const RUN_STATES = ["pending_review", "approved", "needs_decision", "executing", "completed", "failed", "stopped", "rejected", "expired", "superseded"] as const;
export type RunState = (typeof RUN_STATES)[number];
/** Alias: docs/api.md calls the field `status`. */
export const RUN_STATUSES = RUN_STATES;
export type RunStatus = RunState;

/** Who moves a run: people by role, the agent, its executor, or the console itself (deadlines, checks). */
export type Mover = "agent" | "executor" | "operator" | "supervisor" | "system";

/** Whose move it is now. `nobody (final)`: the run is over; only a new run can continue the work. */
export type Owner = "operator" | "supervisor" | "agent" | "executor" | "nobody (final)";

/**
 * One event that may change a run's status: the states it may start from (`null` = the run does
 * not exist yet: submission creates it), the state it leads to, who causes it and why.
 * The server's lifecycle module (lib/server/lifecycle/run-lifecycle.ts) applies an event as ONE
 * conditional update `WHERE status IN (from)`, so this table is both the UI's explanation and
 * the server's rule. Source: docs/api.md (`status`), docs/design.md §5–§10.
 */
export interface RunEventRule {
  from: readonly (RunState | null)[];
  to: RunState;
  by: readonly Mover[];
  trigger: string;
}

/** Every event of a run's life. A status change not produced by one of these never happens. */
export const RUN_EVENTS = {
  submit_for_review: { from: [null], to: "pending_review", by: ["agent"], trigger: "Plan submitted; at least one step needs a person's approval." },
  submit_auto_approved: { from: [null], to: "approved", by: ["agent"], trigger: "Plan submitted; the gate policy auto-approved every step." },
  approvals_incomplete: {
    from: ["pending_review", "approved", "needs_decision"],
    to: "pending_review",
    by: ["operator", "supervisor"],
    trigger: "Some steps of the current plan version still need an approval (only some approved so far, or an edit withdrew approvals).",
  },
  approvals_complete: {
    from: ["pending_review", "approved", "needs_decision"],
    to: "approved",
    by: ["operator", "supervisor"],
    trigger: "Every step of the current plan version has an active approval (or was already claimed under one); from needs_decision: approved again against live data.",
  },
  edit: {
    from: ["pending_review", "approved", "needs_decision"],
    to: "pending_review",
    by: ["operator", "supervisor"],
    trigger: "Plan edited (a new plan version): changed and added steps need approval again.",
  },
  reject: {
    from: ["pending_review", "approved", "needs_decision"],
    to: "rejected",
    by: ["operator", "supervisor"],
    trigger: "Rejected with a reason for the agent: before any step was claimed, or when a run that needs a new decision is not to go on.",
  },
  expire: {
    from: ["pending_review", "approved", "needs_decision"],
    to: "expired",
    by: ["system"],
    trigger: "The deadline (expiresAt) passed without a decision, before the first claim, or before anyone made the new decision a run needed; supervisors were alerted at escalateAt.",
  },
  supersede: {
    from: ["pending_review", "approved"],
    to: "superseded",
    by: ["agent"],
    trigger: "The agent submitted a newer plan for the same task (one task, one live plan); approvals are withdrawn.",
  },
  claim: { from: ["approved", "executing"], to: "executing", by: ["executor"], trigger: "A step was claimed right before its write." },
  needs_decision: {
    from: ["approved", "executing"],
    to: "needs_decision",
    by: ["system"],
    trigger:
      "The executor's claim was refused for a reason no executor can fix — live validation failed at dispatch (validation_failed), the approver lost the authority (approval_revoked), a prerequisite failed (prerequisite_failed) — with no other claim open: a person must edit, approve again or reject.",
  },
  stop_stale_task: {
    from: ["pending_review", "approved", "needs_decision", "executing"],
    to: "stopped",
    by: ["system"],
    trigger:
      "The task was revised since submission (stopped_stale_task): a run still waiting (pending_review, approved) stops at once — nothing can approve it any more; an executing run stops at its next claim.",
  },
  stop_condition_met: {
    from: ["executing"],
    to: "stopped",
    by: ["executor"],
    trigger: "The executor found a step's stop condition met and wrote nothing (stopReason stop_condition_met); later steps never run.",
  },
  stop_target_changed: {
    from: ["executing"],
    to: "stopped",
    by: ["executor"],
    trigger:
      "The fence found a record the step writes at another source version than its approval saw (target_changed, stopReason target_changed): nothing of that step is written and later steps never run; a person decides again on a new plan.",
  },
  complete: {
    from: ["executing"],
    to: "completed",
    by: ["executor", "supervisor"],
    trigger: "Every step succeeded (as reported by the executor, or as reconciled by a supervisor).",
  },
  fail: { from: ["executing"], to: "failed", by: ["executor", "supervisor"], trigger: "A step was reported (or reconciled as) failed." },
  expire_unclaimed: {
    from: ["executing"],
    to: "expired",
    by: ["system"],
    trigger: "The deadline passed with steps never claimed and no claim or unknown outcome open: the executor went silent (seen at its next claim or outcome, or by the deadline sweep).",
  },
} as const satisfies Record<string, RunEventRule>;

/** The name of a run event, e.g. "approvals_complete". */
export type RunEvent = keyof typeof RUN_EVENTS;

/** The states `event` may start from (never `null`: creation is not an update). */
export function fromStates(event: RunEvent): RunState[] {
  return (RUN_EVENTS[event].from as readonly (RunState | null)[]).filter((s): s is RunState => s !== null);
}

/** The state `event` leads to. */
export function toState(event: RunEvent): RunState {
  return RUN_EVENTS[event].to;
}

/** One allowed change of status. `from: null` is the submission that creates the run. */
export interface Transition {
  event: RunEvent;
  from: RunState | null;
  to: RunState;
  by: Mover;
  trigger: string;
}

/** Every allowed transition, one per (event, from-state, mover), derived from RUN_EVENTS. */
export const TRANSITIONS: readonly Transition[] = (Object.keys(RUN_EVENTS) as RunEvent[]).flatMap((event) => {
  const rule: RunEventRule = RUN_EVENTS[event];
  return rule.from.flatMap((from) => rule.by.map((by) => ({ event, from, to: rule.to, by, trigger: rule.trigger })));
});

/** Statuses no transition leaves: the run is over (work continues, if at all, in a new run). */
export const TERMINAL_STATES: readonly RunState[] = RUN_STATES.filter((s) => !TRANSITIONS.some((t) => t.from === s && t.to !== s));

/** True when `status` is terminal (no transition leaves it). */
export function isTerminal(status: RunState): boolean {
  return TERMINAL_STATES.includes(status);
}

/** True when the machine allows `from → to` (`from: null` = submission). */
export function canTransition(from: RunState | null, to: RunState): boolean {
  return TRANSITIONS.some((t) => t.from === from && t.to === to);
}

/** The transitions leaving `status` (self-transitions included). */
export function transitionsFrom(status: RunState): Transition[] {
  return TRANSITIONS.filter((t) => t.from === status);
}

/**
 * What is known about a run besides its status, all optional (absent = 0 / false):
 * - `deadlinePassed`: now ≥ expiresAt; `escalated`: now ≥ escalateAt (supervisors alerted);
 * - `taskStale`: the live task revision differs from the bound one;
 * - `unclaimedSteps`: steps of the approved plan version never claimed;
 * - `openClaims`: claimed and not yet reported (executor still writing);
 * - `staleClaims`: of those, claimed longer ago than the stale-claim limit (the executor may be gone);
 * - `unknownSteps`: reported `unknown` and not yet reconciled;
 * - `claimedSteps`: steps of the plan already claimed (written or being written);
 * - `decisionReason`: why a `needs_decision` run needs a new decision, in words a person acts on.
 */
export interface RunFacts {
  deadlinePassed?: boolean;
  escalated?: boolean;
  taskStale?: boolean;
  unclaimedSteps?: number;
  openClaims?: number;
  staleClaims?: number;
  unknownSteps?: number;
  claimedSteps?: number;
  decisionReason?: string;
  /** Why a `stopped` run stopped (`run.stopReason.code`): `stopped_stale_task`, `stop_condition_met`, `target_changed`. */
  stopCode?: string;
  /** The step the stop happened at (`run.stopReason.stepId`), and what the executor or the tool said (`detail`), when known. */
  stopStepId?: string;
  stopDetail?: string;
}

export type ActionId = "approve" | "edit" | "reject" | "claim_step" | "report_outcome" | "reconcile" | "submit_new_plan" | "wait_for_decision";

/** One choice a party has now. `enabled: false` comes with `reason`, said so a person can act on it. */
export interface NextAction {
  by: Exclude<Owner, "nobody (final)">;
  id: ActionId;
  label: string;
  enabled: boolean;
  reason?: string;
}

/** Whose move it is, until when, and the choices. */
export interface NextActions {
  /** The status the answer is for: a waiting run past its deadline is `expired` whatever is stored. */
  status: RunState;
  terminal: boolean;
  owner: Owner;
  /** One sentence for the run page header. */
  headline: string;
  /** The deadline that bounds the wait: the run's `expiresAt`, or none. */
  deadline: "expiresAt" | null;
  actions: NextAction[];
}

const reconcile = (n: number): NextAction => ({
  by: "supervisor",
  id: "reconcile",
  label: `Reconcile ${n} step${n === 1 ? "" : "s"} with an unknown outcome`,
  enabled: true,
});

/**
 * Who decides next and what they can do, for a run in `status` with `facts` (docs/design.md §10:
 * every waiting state has an owner, a deadline and a way out). Pure; the caller gathers facts.
 * - `pending_review` → operator (supervisor once escalated): approve, edit, reject; approve and
 *   edit are disabled when the task changed (reject so the agent can plan again).
 * - `approved` → executor: claim the next step (when the task changed, that claim stops the run);
 *   operator may still edit (re-approval) or reject.
 * - `executing` → supervisor when a step's outcome is unknown or a claim went unreported past the
 *   stale-claim limit (reconcile); else executor: report the open claim, or claim the next step.
 *   Past the deadline with nothing open it is `expired`.
 * - `needs_decision` → operator (supervisor once escalated): the approved plan cannot run as
 *   approved (`facts.decisionReason` says why); approve again (re-validated against live data),
 *   edit (not once a step was claimed: what was written stays written) or reject. Never the executor.
 * - `stopped` → agent: submit a new plan for the task as it is now.
 * - `expired`, `rejected`, `failed`, `completed` → nobody (final); the agent may submit a new plan
 *   (not after `completed`). Any unknown outcome still open puts a supervisor in charge first.
 */
export function nextActions(status: RunState, facts: RunFacts = {}): NextActions {
  const unknown = (facts.unknownSteps ?? 0) + (facts.staleClaims ?? 0);
  const outstanding = unknown + (facts.openClaims ?? 0);
  // Past the deadline a waiting run is expired, and so is an executing run with nothing still open
  // (the same rule the executor's next claim applies when it persists the expiry).
  const effective: RunState =
    facts.deadlinePassed && (status === "pending_review" || status === "approved" || status === "needs_decision" || (status === "executing" && outstanding === 0)) ? "expired" : status;
  const base = { status: effective, terminal: isTerminal(effective) };
  const newPlan = (reason: string): NextAction => ({ by: "agent", id: "submit_new_plan", label: "Submit a new plan", enabled: true, reason });

  switch (effective) {
    case "pending_review": {
      const stale = facts.taskStale
        ? "The task changed since this plan was made; reject it so the agent can plan for the current task."
        : undefined;
      const decider: "operator" | "supervisor" = facts.escalated ? "supervisor" : "operator";
      const decide = (by: "operator" | "supervisor"): NextAction[] => [
        { by, id: "approve", label: "Approve", enabled: !stale, reason: stale },
        { by, id: "edit", label: "Edit the plan", enabled: !stale, reason: stale },
        { by, id: "reject", label: "Reject with a reason", enabled: true },
      ];
      return {
        ...base,
        owner: decider,
        headline: facts.escalated
          ? "Waiting for review — escalated to supervisors; it expires if nobody decides."
          : "Waiting for an operator to approve, edit or reject.",
        deadline: "expiresAt",
        actions: [
          ...decide(decider),
          ...(decider === "operator" ? decide("supervisor").map((a) => ({ ...a, label: `${a.label} (escalation target)` })) : []),
          { by: "agent", id: "wait_for_decision", label: "Wait for the decision", enabled: true },
        ],
      };
    }
    case "approved":
      return {
        ...base,
        owner: "executor",
        headline: facts.taskStale
          ? "Approved, but the task changed: the next claim will stop the run."
          : "Approved — the executor claims each step right before writing it.",
        deadline: "expiresAt",
        actions: [
          {
            by: "executor",
            id: "claim_step",
            label: facts.taskStale ? "Claim the next step (refused with stopped_stale_task: the run stops)" : "Claim the next step",
            enabled: true,
          },
          { by: "operator", id: "edit", label: "Edit (needs approval again)", enabled: true },
          { by: "operator", id: "reject", label: "Reject before anything runs", enabled: true },
          ...(facts.taskStale ? [newPlan("The task changed after approval; plan for the current revision.")] : []),
        ],
      };
    case "executing": {
      const actions: NextAction[] = [];
      if (unknown > 0) actions.push(reconcile(unknown));
      if ((facts.openClaims ?? 0) > 0) actions.push({ by: "executor", id: "report_outcome", label: "Report the outcome of the claimed step", enabled: true });
      if ((facts.unclaimedSteps ?? 0) > 0 || actions.length === 0) {
        const blocked = facts.deadlinePassed ? "The run's deadline has passed; remaining steps are refused as expired." : undefined;
        const label = facts.taskStale ? "Claim the next step (refused with stopped_stale_task: the run stops)" : "Claim the next step";
        actions.push({ by: "executor", id: "claim_step", label, enabled: !blocked, reason: blocked });
      }
      const owner: Owner = unknown > 0 ? "supervisor" : "executor"; // past the deadline only open claims remain: report them
      return {
        ...base,
        owner,
        headline:
          unknown > 0
            ? "Executing — a step's outcome is unknown; a supervisor must find out what happened. It is never retried automatically."
            : (facts.openClaims ?? 0) > 0
              ? "Executing — waiting for the executor to report the step it claimed."
              : "Executing — the executor claims the next step.",
        deadline: unknown > 0 ? null : "expiresAt",
        actions,
      };
    }
    case "needs_decision": {
      const stale = facts.taskStale ? "The task changed since this plan was made; reject it so the agent can plan for the current task." : undefined;
      const written = (facts.claimedSteps ?? 0) > 0 ? "Steps of this run were already claimed; what was written stays written, so approve the rest again or reject it." : undefined;
      const by: "operator" | "supervisor" = facts.escalated ? "supervisor" : "operator";
      const why = facts.decisionReason ? facts.decisionReason.replace(/\.?$/, ".") : "Needs a new decision: the approved plan can no longer run as approved.";
      return {
        ...base,
        owner: by,
        headline: `${why} ${by === "supervisor" ? "Escalated to supervisors: approve" : "Approve"} it again, edit it or reject it; it expires if nobody decides.`,
        deadline: "expiresAt",
        actions: [
          { by, id: "approve", label: "Approve again (checked against live data)", enabled: !stale, reason: stale },
          { by, id: "edit", label: "Edit the plan (needs approval again)", enabled: !stale && !written, reason: stale ?? written },
          { by, id: "reject", label: "Reject with a reason", enabled: true },
          { by: "agent", id: "wait_for_decision", label: "Wait for the decision", enabled: true },
        ],
      };
    }
    case "stopped":
      return {
        ...base,
        owner: unknown > 0 ? "supervisor" : "agent",
        headline: stoppedHeadline(facts),
        deadline: null,
        actions: [...(unknown > 0 ? [reconcile(unknown)] : []), newPlan("Plan again for the current task revision; steps already executed stay executed.")],
      };
    case "completed":
      return {
        ...base,
        owner: unknown > 0 ? "supervisor" : "nobody (final)",
        headline: "Completed — every step succeeded.",
        deadline: null,
        actions: unknown > 0 ? [reconcile(unknown)] : [],
      };
    case "failed":
    case "rejected":
    case "expired":
    case "superseded": {
      const headline = {
        failed: "Failed — a step failed; nothing more runs in this plan.",
        rejected: "Rejected — the agent can read the reason and submit a new plan.",
        expired: "Expired — nobody decided in time; it can no longer be approved.",
        superseded: "Superseded — the agent submitted a newer plan for this task; decide on that one.",
      }[effective];
      const why = {
        failed: "Look at the failed step's detail before trying again.",
        rejected: "Address the rejection reason.",
        expired: "The old plan can no longer be approved or executed.",
        superseded: "The newer plan is the live one.",
      }[effective];
      return {
        ...base,
        owner: unknown > 0 ? "supervisor" : "nobody (final)",
        headline,
        deadline: null,
        actions: [...(unknown > 0 ? [reconcile(unknown)] : []), newPlan(why)],
      };
    }
  }
}

/** The parts of a run (docs/api.md `run`, as `toRunView` builds it) that `runFacts` reads. */
export interface RunLike {
  expiresAt: string | Date;
  escalateAt?: string | Date | null;
  boundTaskRevision: number;
  /** Why a `needs_decision` run waits (`run.decisionReason`), when known. */
  decisionReason?: { message?: unknown } | null;
  /** Why a `stopped` run stopped (`run.stopReason`), when known. */
  stopReason?: unknown;
  steps: { execution?: null | { status: string; claimedAt: string | Date; resolution?: string | null } }[];
}

/** The run page's sentence for a stopped run, by why it stopped (stopCode; a stale task when unknown). */
function stoppedHeadline(facts: RunFacts): string {
  const step = facts.stopStepId ? `step ${facts.stopStepId}` : "a step";
  const detail = facts.stopDetail ? ` (the executor reported: “${facts.stopDetail.replace(/\.$/, "")}”)` : "";
  switch (facts.stopCode) {
    case "stop_condition_met":
      return `Stopped — ${step}'s stop condition was met${detail}, so nothing of it was written and later steps never ran. The agent may plan again for the task as it is now.`;
    case "target_changed":
      return `Stopped — a record ${step} writes changed since it was approved, so the write was refused and later steps never ran. The agent must plan again on the current data.`;
    default:
      return "Stopped — the task changed after approval. The agent must plan again for the task as it is now.";
  }
}

/**
 * Gathers `RunFacts` from a run view at `now` (UTC), given the task's live revision and the
 * stale-claim limit in seconds (STALE_CLAIM_SECONDS of lib/server/claims/execution-view.ts; default 900). A step
 * whose execution carries a `resolution` counts as reconciled. Pure.
 */
export function runFacts(run: RunLike, ctx: { now: Date; liveRevision?: number; staleClaimSeconds?: number }): RunFacts {
  const at = (v: string | Date) => new Date(v).getTime();
  const now = ctx.now.getTime();
  const staleMs = (ctx.staleClaimSeconds ?? 900) * 1000;
  const open = run.steps.map((s) => s.execution).filter((e): e is NonNullable<typeof e> => !!e && !e.resolution);
  const claims = open.filter((e) => e.status === "claimed");
  return {
    deadlinePassed: at(run.expiresAt) <= now,
    escalated: run.escalateAt ? at(run.escalateAt) <= now : false,
    taskStale: ctx.liveRevision !== undefined && ctx.liveRevision !== run.boundTaskRevision,
    unclaimedSteps: run.steps.filter((s) => !s.execution).length,
    openClaims: claims.length,
    staleClaims: claims.filter((e) => now - at(e.claimedAt) >= staleMs).length,
    unknownSteps: open.filter((e) => e.status === "unknown").length,
    claimedSteps: run.steps.filter((s) => !!s.execution).length,
    ...(typeof run.decisionReason?.message === "string" ? { decisionReason: run.decisionReason.message } : {}),
    ...stopFacts(run.stopReason),
  };
}

/** `stopCode`, `stopStepId`, `stopDetail` of a stored stopReason (`{code, stepId, detail}`); nothing for a missing or malformed one. */
function stopFacts(reason: unknown): Pick<RunFacts, "stopCode" | "stopStepId" | "stopDetail"> {
  if (!reason || typeof reason !== "object") return {};
  const r = reason as { code?: unknown; stepId?: unknown; detail?: unknown };
  return {
    ...(typeof r.code === "string" ? { stopCode: r.code } : {}),
    ...(typeof r.stepId === "string" ? { stopStepId: r.stepId } : {}),
    ...(typeof r.detail === "string" && r.detail.trim() ? { stopDetail: r.detail.trim().slice(0, 300) } : {}),
  };
}

/**
 * A waiting run past its deadline is `expired` whatever the stored status says, so a missed
 * sweep never lets an expired run through (docs/design.md §10). `expiresAt` and `now` are UTC.
 */
export function effectiveStatus(status: RunState, expiresAt: Date, now: Date): RunState {
  if (hasDeadline(status) && expiresAt.getTime() <= now.getTime()) return "expired";
  return status;
}

/** Statuses in which a run waits for a person's decision (approve, edit, reject). */
export const WAITING_STATES: readonly RunState[] = fromStates("edit");

/** Statuses that end at the run's deadline (`expiresAt`): a plan waiting for review or its first claim, or for a new decision. */
export const EXPIRING_STATES: readonly RunState[] = fromStates("expire");

/** True when a run in `status` is bounded by its deadline (EXPIRING_STATES: shown with a countdown, expired when it passes). */
export function hasDeadline(status: string): boolean {
  return (EXPIRING_STATES as readonly string[]).includes(status);
}

/**
 * Whether a run's plan is being executed — written in the system of record now or about to go on
 * being written — so that another plan for the same task is not approved unnoticed (docs/design.md
 * "The moment of the write": two plans for one task never both write unnoticed). The rule, from the
 * lifecycle above:
 * - status `executing`: a step was claimed and the run has not ended (`complete`, `fail`, a stop
 *   or `expire_unclaimed` end it); more steps may be claimed;
 * - status `needs_decision` with a step already claimed (`claimedSteps` > 0): partially executed;
 *   approving it again resumes its writes (before any claim it is a plan waiting for a decision);
 * - any status with a claim still open (`openClaims`: claimed, not reported, not reconciled) or an
 *   outcome `unknown` not yet reconciled (`unknownSteps`): the write may still land, e.g. a run
 *   that failed or stopped on one step while another step's claim was out.
 * Not being executed: `pending_review` and `approved` before their first claim (nothing was
 * written; an agent's newer plan supersedes them), and a run that ended with every claim reported
 * or reconciled. Pure; `lib/server/plans/concurrent-runs.ts` states the same rule in SQL.
 */
export function isBeingExecuted(status: RunState, facts: Pick<RunFacts, "claimedSteps" | "openClaims" | "unknownSteps"> = {}): boolean {
  if (status === "executing") return true;
  if (status === "needs_decision" && (facts.claimedSteps ?? 0) > 0) return true;
  return (facts.openClaims ?? 0) + (facts.unknownSteps ?? 0) > 0;
}
