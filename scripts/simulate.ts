/**
 * `npm run simulate` — plays the agent and its executor against a running console, through the
 * agent API only (the client package, packages/client/src/client.ts), and prints one line per event.
 *
 *   npm run simulate -- [--url http://localhost:3000] [--key pd_demo_agent_key]
 *                       [--fault task-edit|lost-outcome|duplicate-claim|wrong-digest|late-write|out-of-order|all]…
 *                       [--wait-seconds N] [--once] [--interval-seconds N]
 *
 * Each pass submits fresh runs (idempotency key per pass) for seeded demo tickets and executes
 * what is approved, step by step: claim (with the digest computed here from the arguments it is
 * about to write, and the bound task revision) → write → report the outcome. The write is the
 * console's demo-only `POST /api/v1/demo/effects`, which applies the approved step to the demo
 * account data (refund lowers an invoice's open balance, …) at most once per claim.
 *
 * Scenarios: `auto-note` (always; every step auto-approved by policy, so no person is needed);
 * one per `--fault`:
 *   task-edit        the task is revised between two writes → stopped_stale_task, run stopped;
 *                    then a new plan for the new revision finishes the work;
 *   lost-outcome     the executor loses the write's answer and reports `unknown` → the step is
 *                    never re-claimable; the run waits for a supervisor to reconcile;
 *   duplicate-claim  the step is claimed twice at once → one token, one already_claimed, and the
 *                    write happens once;
 *   wrong-digest     a claim for arguments other than the approved ones → digest_mismatch;
 *   late-write       the executor keeps a claim token while the task is revised, then tries to
 *                    write with it → the fence refuses (claim_fenced), nothing is written, and its
 *                    late report is flagged for a supervisor;
 *   out-of-order     step 2 is claimed before step 1 succeeded → prerequisite_pending naming
 *                    step 1; in plan order the run then completes;
 * and, with `--wait-seconds N` > 0, `refund-review`: a small refund that needs a person. The
 * simulator never approves anything (approvals are for people); it waits up to N seconds for an
 * operator's decision in the console, then executes or reports the rejection.
 *
 * `--once`: one pass, exit 0 only if every expected outcome and refusal was observed (CI).
 * Without it, passes repeat every `--interval-seconds` (default 30) until interrupted.
 */
import path from "node:path";
import { createAgentClient, type AgentClient, type ApiError, type Run, type StepInput } from "@plandesk/client";
import { digest } from "../lib/plan/digest";

export type Fault = "task-edit" | "lost-outcome" | "duplicate-claim" | "wrong-digest" | "late-write" | "out-of-order";
export const FAULTS: readonly Fault[] = ["task-edit", "lost-outcome", "duplicate-claim", "wrong-digest", "late-write", "out-of-order"];

export interface SimOptions {
  url: string;
  /** The agent's API key. */
  key: string;
  /** The ticketing integration's key (the task-edit fault revises the task with it). */
  integrationKey: string;
  once: boolean;
  faults: Fault[];
  waitSeconds: number;
  intervalSeconds: number;
  /** Poll interval while waiting for a decision, in ms (default 1000). */
  pollMs?: number;
}

/** One thing the pass expected to see, and whether it did. */
export interface Expectation {
  scenario: string;
  what: string;
  ok: boolean;
  detail?: string;
}

const USAGE = `Usage: npm run simulate -- [--url URL] [--key KEY] [--integration-key KEY] [--fault NAME|all]… [--wait-seconds N] [--once] [--interval-seconds N]
Faults: ${FAULTS.join(", ")}, or all.`;

/**
 * Parses command-line arguments (`process.argv.slice(2)`). Defaults: url http://localhost:3000
 * (or PLANDESK_URL), key pd_demo_agent_key (or PLANDESK_AGENT_KEY), integration key
 * pd_demo_integration_key (or PLANDESK_INTEGRATION_KEY; the task-edit fault plays the ticketing
 * system with it), no faults, wait 0 s,
 * interval 30 s. `--fault` repeats or takes a comma list. Throws `Error` with the usage on
 * anything unknown; `--auto-approve-as` is refused on purpose (approvals are for people).
 */
export function parseArgs(argv: string[], env: Record<string, string | undefined> = process.env): SimOptions {
  const opts: SimOptions = {
    url: env.PLANDESK_URL ?? "http://localhost:3000",
    key: env.PLANDESK_AGENT_KEY ?? "pd_demo_agent_key",
    integrationKey: env.PLANDESK_INTEGRATION_KEY ?? "pd_demo_integration_key",
    once: false,
    faults: [],
    waitSeconds: 0,
    intervalSeconds: 30,
  };
  const num = (name: string, v: string | undefined) => {
    const n = Number(v);
    if (v === undefined || !Number.isFinite(n) || n < 0) throw new Error(`${name} needs a number of seconds ≥ 0.\n${USAGE}`);
    return n;
  };
  for (let i = 0; i < argv.length; i++) {
    const [flag, inline] = argv[i].includes("=") ? [argv[i].slice(0, argv[i].indexOf("=")), argv[i].slice(argv[i].indexOf("=") + 1)] : [argv[i], undefined];
    const value = () => inline ?? argv[++i];
    switch (flag) {
      case "--url":
        opts.url = value();
        break;
      case "--key":
        opts.key = value();
        break;
      case "--integration-key":
        opts.integrationKey = value();
        break;
      case "--once":
        opts.once = true;
        break;
      case "--wait-seconds":
        opts.waitSeconds = num(flag, value());
        break;
      case "--interval-seconds":
        opts.intervalSeconds = num(flag, value());
        break;
      case "--fault":
        for (const f of (value() ?? "").split(",").filter(Boolean)) {
          if (f === "all") opts.faults.push(...FAULTS);
          else if ((FAULTS as readonly string[]).includes(f)) opts.faults.push(f as Fault);
          else throw new Error(`Unknown fault "${f}".\n${USAGE}`);
        }
        break;
      case "--auto-approve-as":
        throw new Error("The simulator does not approve: approvals are for people. Approve in the console (or with the approval API as a signed-in person).");
      case "--help":
      case "-h":
        throw new Error(USAGE);
      default:
        throw new Error(`Unknown argument "${argv[i]}".\n${USAGE}`);
    }
  }
  if (!opts.url || !opts.key) throw new Error(USAGE);
  opts.faults = [...new Set(opts.faults)];
  return opts;
}

type Log = (line: string) => void;

/** Scenario context: the client, the log, and the pass's expectations. */
class Pass {
  readonly expectations: Expectation[] = [];
  constructor(
    readonly client: AgentClient,
    readonly opts: SimOptions,
    readonly tag: string,
    private readonly out: Log,
  ) {}

  log(scenario: string, message: string): void {
    const t = new Date().toISOString().slice(11, 23);
    this.out(`${t}  ${scenario.padEnd(15)}  ${message}`);
  }

  expect(scenario: string, what: string, ok: boolean, detail?: string): boolean {
    this.expectations.push({ scenario, what, ok, detail });
    this.log(scenario, `${ok ? "✔" : "✘"} expected: ${what}${detail ? ` — ${detail}` : ""}`);
    return ok;
  }
}

const short = (token: string) => `${token.slice(0, 6)}…`;
const describeError = (e: ApiError<string>) => {
  const extra = ["boundRevision", "liveRevision", "executedStepIds", "blockedStepId", "stepStatus", "status"]
    .filter((k) => e[k] !== undefined)
    .map((k) => `${k}=${JSON.stringify(e[k])}`);
  return `${e.code}${extra.length ? ` (${extra.join(" ")})` : ""}: ${e.message}`;
};

/** Fetches the task, submits `steps` for it with a per-pass idempotency key, logs and returns the run. */
async function submit(p: Pass, scenario: string, ticketId: string, steps: StepInput[], keySuffix = ""): Promise<Run | null> {
  const task = await p.client.getTask(`task_${ticketId}`);
  if (!task.ok) {
    p.expect(scenario, `task of ticket ${ticketId} readable`, false, describeError(task.error));
    return null;
  }
  const res = await p.client.submitRun(task.task.id, { taskRevision: task.task.revision, steps }, { idempotencyKey: `sim:${p.tag}:${scenario}${keySuffix}` });
  if (!res.ok) {
    p.expect(scenario, `plan for ticket ${ticketId} accepted`, false, describeError(res.error));
    return null;
  }
  p.log(scenario, `submitted ${res.run.id} for ticket ${ticketId} (task rev ${res.run.boundTaskRevision}, ${res.run.steps.length} steps) → ${res.run.status}`);
  return res.run;
}

/** The digest of what the executor is about to write, computed here (not copied from the console). */
const localDigest = (step: { tool: string; args: Record<string, unknown> }) => digest({ tool: step.tool, args: step.args });

interface ExecOptions {
  /** Called before claiming each step (after the previous one was reported). */
  beforeClaim?: (stepId: string, index: number) => Promise<void>;
  /** The status to report for a step (default: from the write's result). */
  report?: (stepId: string) => "succeeded" | "failed" | "unknown" | undefined;
}

/**
 * Executes a run as an executor does, step by step in plan order: claim → write → report.
 * Stops at the first refused claim and returns it. Steps already claimed are skipped.
 */
async function execute(p: Pass, scenario: string, run: Run, o: ExecOptions = {}): Promise<{ refusal: ApiError<string> | null; stepId?: string }> {
  for (const [i, step] of run.steps.entries()) {
    if (step.execution) continue;
    await o.beforeClaim?.(step.id, i);
    const d = localDigest(step);
    if (d !== step.digest) p.log(scenario, `note: local digest of ${step.id} differs from the console's (${d.slice(0, 8)} vs ${step.digest.slice(0, 8)})`);
    const claim = await p.client.claimStep(run.id, step.id, { digest: d, taskRevision: run.boundTaskRevision }, { idempotencyKey: `sim:${run.id}:${step.id}` });
    if (!claim.ok) {
      p.log(scenario, `claim of ${step.id} refused: ${describeError(claim.error)}`);
      return { refusal: claim.error, stepId: step.id };
    }
    p.log(scenario, `claimed ${step.id} (${step.tool}) token=${short(claim.claim.token)}`);
    const effect = await p.client.applyDemoEffect({ runId: run.id, stepId: step.id, token: claim.claim.token });
    let status: "succeeded" | "failed" | "unknown";
    let detail: string;
    // What the system of record answered: the written record's new source version, reported with the outcome.
    const targetVersions = effect.ok ? effect.effect.targetVersions : undefined;
    if (effect.ok) {
      status = "succeeded";
      detail = effect.effect.summary;
      const rec = effect.effect.record;
      p.log(scenario, `wrote ${step.id}: ${effect.effect.summary}${rec ? ` [${rec.type} ${rec.id}: ${JSON.stringify(rec.before)} → ${JSON.stringify(rec.after)}]` : ""}`);
    } else {
      status = effect.error.code === "effect_failed" ? "failed" : "unknown";
      detail = effect.error.message;
      p.log(scenario, `write of ${step.id} did not happen: ${describeError(effect.error)}`);
    }
    status = o.report?.(step.id) ?? status;
    const out = await p.client.reportOutcome(run.id, step.id, { token: claim.claim.token, status, detail: detail.slice(0, 4000), ...(status === "succeeded" && targetVersions ? { targetVersions } : {}) });
    if (!out.ok) {
      p.log(scenario, `outcome of ${step.id} refused: ${describeError(out.error)}`);
      return { refusal: out.error, stepId: step.id };
    }
    p.log(scenario, `reported ${step.id} ${status} → run ${out.run?.status ?? "?"}`);
    if (status !== "succeeded") return { refusal: null, stepId: step.id };
  }
  return { refusal: null };
}

async function runStatus(p: Pass, runId: string): Promise<Run | null> {
  const r = await p.client.getRun(runId);
  return r.ok ? r.run : null;
}

// ── scenarios ──────────────────────────────────────────────────────────────────

const note = (id: string, ticketId: string, text: string): StepInput => ({ id, tool: "add_ticket_note", args: { ticketId, note: text }, provenance: { note: { kind: "model" } } });
const escalate = (id: string, ticketId: string, team: string, text: string): StepInput => ({
  id,
  tool: "escalate_ticket",
  args: { ticketId, team, note: text },
  provenance: { team: { kind: "model" } },
});

/** Happy path: an all-internal plan is auto-approved; every step is claimed, written and reported. */
async function autoNote(p: Pass) {
  const s = "auto-note";
  const run = await submit(p, s, "75011", [
    note("s_note", "75011", "Customer uploaded the missing certificate; forwarding to customs."),
    escalate("s_escalate", "75011", "customs", "Certificate for sh_5630 is on file; please ask customs to release the hold."),
  ]);
  if (!run) return;
  p.expect(s, "an all-internal plan is approved by policy at submission", run.status === "approved", run.status);
  const { refusal } = await execute(p, s, run);
  p.expect(s, "every step claimed, written and reported", refusal === null, refusal ? refusal.code : undefined);
  const after = await runStatus(p, run.id);
  p.expect(s, "run completed", after?.status === "completed", after?.status);
}

/** The task is revised between two writes: the second claim is refused stopped_stale_task. */
async function taskEdit(p: Pass) {
  const s = "task-edit";
  const run = await submit(p, s, "75014", [
    note("s1", "75014", "Customer asks for a morning slot for sh_5690."),
    escalate("s2", "75014", "operations", "Please book a morning slot for sh_5690 in Oslo."),
    note("s3", "75014", "Morning slot requested from operations."),
  ]);
  if (!run) return;
  let liveRevision = run.boundTaskRevision;
  const { refusal, stepId } = await execute(p, s, run, {
    beforeClaim: async (_id, i) => {
      if (i !== 1) return;
      const revised = await p.client.reviseTask(run.taskId, { comment: "Customer now wants an afternoon slot instead." });
      if (revised.ok) {
        liveRevision = revised.task.revision;
        p.log(s, `ticketing integration revised ${run.taskId} → revision ${revised.task.revision}`);
      } else p.log(s, `revision refused: ${describeError(revised.error)}`);
    },
  });
  const ok =
    refusal?.code === "stopped_stale_task" &&
    refusal.boundRevision === run.boundTaskRevision &&
    refusal.liveRevision === liveRevision &&
    JSON.stringify(refusal.executedStepIds) === JSON.stringify(["s1"]) &&
    refusal.blockedStepId === "s2" &&
    stepId === "s2";
  p.expect(s, "second claim refused stopped_stale_task naming bound/live revision, executed [s1], blocked s2", ok, refusal ? describeError(refusal) : "no refusal");
  const after = await runStatus(p, run.id);
  p.expect(s, "run stopped; the first write stands", after?.status === "stopped" && after.steps[0].execution?.status === "succeeded", after?.status);

  // The way out of `stopped`: plan again for the task as it is now.
  const again = await submit(
    p,
    s,
    "75014",
    [
      escalate("s2", "75014", "operations", "Please book an afternoon slot for sh_5690 in Oslo (changed on the ticket)."),
      note("s3", "75014", "Afternoon slot requested from operations."),
    ],
    ":replan",
  );
  if (!again) return;
  p.expect(s, "the new plan is bound to the live revision", again.boundTaskRevision === liveRevision, `bound ${again.boundTaskRevision}, live ${liveRevision}`);
  const second = await execute(p, s, again);
  const done = await runStatus(p, again.id);
  p.expect(s, "the new plan completes", second.refusal === null && done?.status === "completed", done?.status);
}

/** The executor loses the answer of a write and reports `unknown`: never re-claimed. */
async function lostOutcome(p: Pass) {
  const s = "lost-outcome";
  const run = await submit(p, s, "75015", [
    note("s1", "75015", "Customer questions the REEFER_PLUGIN fee on in_74201."),
    escalate("s2", "75015", "billing", "Please explain the reefer plug-in fee to the customer."),
  ]);
  if (!run) return;
  await execute(p, s, run, { report: (id) => (id === "s1" ? "unknown" : undefined) });
  const d = localDigest(run.steps[0]);
  const retry = await p.client.claimStep(run.id, "s1", { digest: d, taskRevision: run.boundTaskRevision }, { idempotencyKey: `sim:${run.id}:s1:retry` });
  p.expect(s, "an unknown step is not re-claimable (already_claimed)", !retry.ok && retry.error.code === "already_claimed", retry.ok ? "claim granted!" : describeError(retry.error));
  const after = await runStatus(p, run.id);
  const step = after?.steps.find((x) => x.id === "s1");
  p.expect(s, "the run waits for a supervisor (executing, step unknown)", after?.status === "executing" && step?.execution?.status === "unknown", `${after?.status}/${step?.execution?.status}`);
  p.log(s, `a supervisor must reconcile step s1 of ${run.id} in the console (POST /api/runs/${run.id}/steps/s1/reconcile)`);
}

/** The same step is claimed twice at once: one token, one already_claimed, one write. */
async function duplicateClaim(p: Pass) {
  const s = "duplicate-claim";
  const run = await submit(p, s, "75019", [note("s1", "75019", "Booking confirmation for sh_5640 received.")]);
  if (!run) return;
  const body = { digest: localDigest(run.steps[0]), taskRevision: run.boundTaskRevision };
  const [a, b] = await Promise.all([
    p.client.claimStep(run.id, "s1", body, { idempotencyKey: `sim:${run.id}:s1:a` }),
    p.client.claimStep(run.id, "s1", body, { idempotencyKey: `sim:${run.id}:s1:b` }),
  ]);
  const wins = [a, b].filter((r) => r.ok);
  const losses = [a, b].filter((r) => !r.ok);
  const lossCode = losses[0] && !losses[0].ok ? losses[0].error.code : undefined;
  p.expect(s, "exactly one of two concurrent claims wins; the other is already_claimed", wins.length === 1 && lossCode === "already_claimed", `${wins.length} won, loser: ${lossCode}`);
  const winner = wins[0];
  if (!winner || !winner.ok) return;
  const winnerKey = winner === a ? `sim:${run.id}:s1:a` : `sim:${run.id}:s1:b`;
  const replay = await p.client.claimStep(run.id, "s1", body, { idempotencyKey: winnerKey });
  p.expect(s, "the winner's retry (same key) gets the same token", replay.ok && replay.claim.token === winner.claim.token && replay.replayed, replay.ok ? `replayed=${replay.replayed}` : replay.error.code);
  p.log(s, `claimed s1 token=${short(winner.claim.token)}`);
  const w1 = await p.client.applyDemoEffect({ runId: run.id, stepId: "s1", token: winner.claim.token });
  const w2 = await p.client.applyDemoEffect({ runId: run.id, stepId: "s1", token: winner.claim.token });
  p.expect(s, "the write happens once (the repeat is a replay)", w1.ok && !w1.replayed && w2.ok && w2.replayed, `first call: ${w1.ok ? (w1.replayed ? "replayed" : "written") : w1.error.code}, repeat: ${w2.ok ? (w2.replayed ? "replayed" : "written AGAIN") : w2.error.code}`);
  const out = await p.client.reportOutcome(run.id, "s1", { token: winner.claim.token, status: "succeeded", ...(w1.ok && w1.effect.targetVersions ? { targetVersions: w1.effect.targetVersions } : {}) });
  p.log(s, `reported s1 succeeded → run ${out.ok ? out.run?.status : describeError(out.error)}`);
  p.expect(s, "run completed", out.ok && out.run?.status === "completed");
}

/** A claim for other arguments than the approved ones is refused digest_mismatch; the right one proceeds. */
async function wrongDigest(p: Pass) {
  const s = "wrong-digest";
  const run = await submit(p, s, "75009", [note("s1", "75009", "Asked the carrier for the first delivery attempt's log.")]);
  if (!run) return;
  const tampered = { ...run.steps[0], args: { ...run.steps[0].args, note: "Packing list received; refund promised." } };
  const bad = await p.client.claimStep(run.id, "s1", { digest: localDigest(tampered), taskRevision: run.boundTaskRevision }, { idempotencyKey: `sim:${run.id}:s1:tampered` });
  p.expect(s, "a claim for other arguments is refused digest_mismatch", !bad.ok && bad.error.code === "digest_mismatch", bad.ok ? "claim granted!" : describeError(bad.error));
  const { refusal } = await execute(p, s, run);
  const after = await runStatus(p, run.id);
  p.expect(s, "the approved arguments are then claimed and written; run completed", refusal === null && after?.status === "completed", after?.status);
}

/** A claim token kept across a task revision: the fenced write writes nothing; the late report is flagged. */
async function lateWrite(p: Pass) {
  const s = "late-write";
  const run = await submit(p, s, "75016", [note("s1", "75016", "Customer says thanks; closing when done.")]);
  if (!run) return;
  const claim = await p.client.claimStep(run.id, "s1", { digest: localDigest(run.steps[0]), taskRevision: run.boundTaskRevision }, { idempotencyKey: `sim:${run.id}:s1` });
  if (!p.expect(s, "s1 claimed with a lease", claim.ok && !!claim.claim.leaseExpiresAt, claim.ok ? undefined : describeError(claim.error)) || !claim.ok) return;
  const revised = await p.client.reviseTask(run.taskId, { comment: "Customer asks to keep the ticket open another week." });
  p.log(s, revised.ok ? `ticketing integration revised ${run.taskId} → revision ${revised.task.revision} while s1 was claimed` : `revision refused: ${describeError(revised.error)}`);
  const write = await p.client.applyDemoEffect({ runId: run.id, stepId: "s1", token: claim.claim.token });
  p.expect(s, "the write with the kept token is fenced (claim_fenced, task_revised) and writes nothing", !write.ok && write.error.code === "claim_fenced" && write.error.reason === "task_revised", write.ok ? "WRITTEN" : describeError(write.error));
  const out = await p.client.reportOutcome(run.id, "s1", { token: claim.claim.token, status: "failed", detail: "not written: the fence refused" });
  p.expect(s, "the late report is recorded and flagged for a supervisor; the run stays stopped", out.ok && out.step.flag === "reported_after_stopped" && out.run.status === "stopped", out.ok ? `${out.step.flag}/${out.run.status}` : describeError(out.error));
}

/** Step 2 claimed before step 1 succeeded: refused prerequisite_pending; in order the run completes. */
async function outOfOrder(p: Pass) {
  const s = "out-of-order";
  const run = await submit(p, s, "75000", [
    note("s1", "75000", "The customer confirmed the duplicate invoice in_74311."),
    escalate("s2", "75000", "billing", "Please cancel the duplicate invoice in_74311."),
  ]);
  if (!run) return;
  const early = await p.client.claimStep(run.id, "s2", { digest: localDigest(run.steps[1]), taskRevision: run.boundTaskRevision }, { idempotencyKey: `sim:${run.id}:s2:early` });
  p.expect(s, "claiming s2 first is refused prerequisite_pending naming s1", !early.ok && early.error.code === "prerequisite_pending" && early.error.prerequisiteStepId === "s1", early.ok ? "claim granted!" : describeError(early.error));
  const { refusal } = await execute(p, s, run);
  const after = await runStatus(p, run.id);
  p.expect(s, "in plan order every step is written; run completed", refusal === null && after?.status === "completed", after?.status);
}

/** A refund needs a person: submit, wait for the decision, execute it or report the rejection. */
async function refundReview(p: Pass) {
  const s = "refund-review";
  const run = await submit(p, s, "75018", [
    { id: "s_refund", tool: "issue_refund", args: { invoiceId: "in_74801", amount: { minor: 1000, currency: "USD" }, reason: "Goodwill for the storage fee question" },
      provenance: { invoiceId: { kind: "model" }, amount: { kind: "model" } },
      // What the gate policy requires of an irreversible step: a title, evidence, the risk and a stop condition.
      title: "Goodwill refund of 10.00",
      rationale: "The customer waited long for an answer about the storage fee",
      evidence: [{ recordType: "invoice", recordId: "in_74801" }],
      risk: "Money leaves the company; goodwill sets a precedent",
      stopCondition: "The invoice was paid or refunded meanwhile",
    },
    note("s_note", "75018", "Goodwill refund of 10.00 on in_74801 proposed; waiting for approval."),
  ]);
  if (!run) return;
  const deadline = Date.now() + p.opts.waitSeconds * 1000;
  let current: Run | null = run;
  p.log(s, `waiting up to ${p.opts.waitSeconds}s for a person to decide on ${run.id} (the simulator never approves)`);
  while (current && current.status === "pending_review" && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, p.opts.pollMs ?? 1000));
    current = await runStatus(p, run.id);
  }
  const decided = current !== null && current.status !== "pending_review";
  p.expect(s, `a person decided within ${p.opts.waitSeconds}s`, decided, current?.status);
  if (!current || !decided) return;
  if (current.status === "approved") {
    const { refusal } = await execute(p, s, current);
    const after = await runStatus(p, run.id);
    p.expect(s, "the approved refund is executed; run completed", refusal === null && after?.status === "completed", after?.status);
  } else {
    p.log(s, `decision: ${current.status}${current.rejectionReason ? ` — "${current.rejectionReason}"` : ""}`);
  }
}

/**
 * One pass of every selected scenario against `client`. Human-reviewed scenarios run only with
 * `opts.waitSeconds > 0` and are submitted first, so they wait in the queue meanwhile.
 * Returns the expectations and whether all were met.
 */
export async function simulatePass(client: AgentClient, opts: SimOptions, log: Log = console.log, tag = `${Date.now().toString(36)}`): Promise<{ ok: boolean; expectations: Expectation[] }> {
  const p = new Pass(client, opts, tag, log);
  const human = opts.waitSeconds > 0 ? refundReview(p) : Promise.resolve(p.log("refund-review", "skipped (needs a person; pass --wait-seconds N to wait for one)"));
  await autoNote(p);
  const byFault: Record<Fault, (p: Pass) => Promise<void>> = {
    "task-edit": taskEdit,
    "lost-outcome": lostOutcome,
    "duplicate-claim": duplicateClaim,
    "wrong-digest": wrongDigest,
    "late-write": lateWrite,
    "out-of-order": outOfOrder,
  };
  for (const f of opts.faults) await byFault[f](p);
  await human;
  const failed = p.expectations.filter((e) => !e.ok);
  log(
    failed.length === 0
      ? `simulate: all ${p.expectations.length} expected outcomes and refusals observed.`
      : `simulate: ${failed.length} of ${p.expectations.length} expectations NOT met:\n${failed.map((e) => `  - [${e.scenario}] ${e.what}${e.detail ? ` (${e.detail})` : ""}`).join("\n")}`,
  );
  return { ok: failed.length === 0 && p.expectations.length > 0, expectations: p.expectations };
}

async function main() {
  let opts: SimOptions;
  try {
    opts = parseArgs(process.argv.slice(2));
  } catch (e) {
    console.error((e as Error).message);
    process.exit(2);
  }
  const client = createAgentClient({ baseUrl: opts.url, apiKey: opts.key, integrationKey: opts.integrationKey });
  const ping = await client.listTasks({ ticketId: "75011" });
  if (!ping.ok) {
    console.error(`simulate: cannot use the console at ${opts.url}: ${ping.error.code}: ${ping.error.message}`);
    process.exit(1);
  }
  console.log(`simulate: console ${opts.url}, faults: ${opts.faults.join(", ") || "none"}, wait for people: ${opts.waitSeconds}s${opts.once ? ", one pass" : ""}`);
  for (;;) {
    const { ok } = await simulatePass(client, opts);
    if (opts.once) process.exit(ok ? 0 : 1);
    await new Promise((r) => setTimeout(r, opts.intervalSeconds * 1000));
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(__filename)) {
  main().catch((e) => {
    console.error(`simulate: ${e instanceof Error ? e.message : String(e)}`);
    process.exit(1);
  });
}
