import { jsonLine } from "../../text/json-line";
import type { PlanDiff } from "../../diff/plan-diff";
import type { Plan } from "../../plan/schema";
import { prisma } from "../db/db";
import { assertSupervisor } from "./insights";
import { effectiveStatus, type RunStatus } from "../../lifecycle/run-state";
import type { Viewer } from "../auth/viewer";
import { readJsonColumn } from "../db/json-column";
import { planSchema } from "../../plan/schema";
import { planDiffSchema } from "../../diff/plan-diff";
import type { Prisma } from "../../generated/prisma/client";
import { outcomeRecordSchema } from "../../outcomes/schema";
import type { OutcomeLabel, OutcomeLabelView, OutcomeRecord, OutcomeSignal } from "../../outcomes/outcome";
import type { SignedApproval } from "../../signatures/schema";

/**
 * A signed approval as a corpus line carries it: the step, plan version and digest approved, the
 * approver, the approval's state now (`active`, `claimed`, `invalidated`, …) and the stored
 * signature record (lib/signatures/schema.ts: payload, relying party, credential id, COSE public key,
 * authenticator data, client data JSON and signature, base64url) — everything `npm run
 * verify-approvals -- --file <corpus>` needs to re-check it offline against the line's `before` or
 * `after` plan.
 */
export interface CorpusSignedApproval {
  stepId: string;
  planVersion: number;
  digest: string;
  approverId: string;
  approverName: string | null;
  state: string;
  signature: SignedApproval;
}

/** One evaluation case of the diff corpus: an operator edit and how its run ended. */
export interface DiffCorpusLine {
  runId: string;
  fromVersion: number;
  toVersion: number;
  editorId: string;
  before: Plan;
  after: Plan;
  diff: PlanDiff;
  /** The run's final status (`completed`, `failed`, `stopped`, `rejected`, `expired`), or null while it can still change. */
  outcome: string | null;
  /** present when the edit accepted a suggested step — who suggested it and the suggestion's id. */
  suggestion?: { id: string; suggestedBy: string; note: string };
  /** The run's outcome record (lib/outcomes/outcome.ts) once it executed a written step, else null. */
  outcomeRecord: OutcomeRecord | null;
  /** A supervisor's label of the run (better / same / worse, the reason, who, when), else null. */
  label: OutcomeLabelView | null;
  /**
   * Present when people signed approvals of the plan before or after the edit (`fromVersion`,
   * `toVersion`): each with the approver's public key and assertion, in the order they were given.
   */
  signedApprovals?: CorpusSignedApproval[];
  /**
   * Whether the edit was discarded ("discard my edits"). Discarded edits are left out of the corpus
   * unless asked for (`?discarded=include`), as they are left out of insights and recurring edits.
   */
  discarded: boolean;
}

/**
 * Filters of the corpus (`?label=`, `?signal=`): `label` better / same / worse, or `none` (no
 * label yet, including runs without an outcome); `signal` one of lib/outcomes/outcome.ts
 * `OUTCOME_SIGNALS`, or `none` (an outcome record with no signal at all).
 */
export interface CorpusFilter {
  label?: OutcomeLabel | "none";
  signal?: OutcomeSignal | "none";
  /** Also discarded edits (each line says `discarded: true`); by default they are left out, as everywhere in insights. */
  includeDiscarded?: boolean;
}

const SIGNAL_COLUMN: Record<OutcomeSignal, keyof Prisma.RunOutcomeWhereInput> = {
  reopened: "reopened",
  chargeback: "chargeback",
  over_compensation: "overCompensation",
  beyond_cap: "beyondCap",
  resolved: "resolved",
  customer_replied: "customerReplied",
  commitment_sent: "commitmentSent",
};

/** The `where` of the edits whose run matches `filter` (through the run's outcome row, by primary key). */
function filterWhere(filter: CorpusFilter): Prisma.PlanEditWhereInput {
  // The one definition: a discarded edit is in no count and no corpus line unless asked for.
  const and: Prisma.PlanEditWhereInput[] = filter.includeDiscarded ? [] : [{ discardedAt: null }];
  if (filter.label === "none") and.push({ OR: [{ run: { outcomeRecord: { is: null } } }, { run: { outcomeRecord: { is: { labelled: false } } } }] });
  else if (filter.label) and.push({ run: { outcomeRecord: { is: { label: filter.label } } } });
  if (filter.signal === "none") and.push({ run: { outcomeRecord: { is: Object.fromEntries(Object.values(SIGNAL_COLUMN).map((c) => [c, false])) } } });
  else if (filter.signal) and.push({ run: { outcomeRecord: { is: { [SIGNAL_COLUMN[filter.signal]]: true } } } });
  return and.length ? { AND: and } : {};
}

/** Statuses after which nothing about a run changes any more. */
export const FINAL_STATUSES: RunStatus[] = ["completed", "failed", "stopped", "rejected", "expired"];

const PAGE = 200;

/**
 * The diff corpus (`GET /api/audit/diffs.jsonl`, docs/design.md §11): every stored edit, oldest first,
 * as one object per edit, with its run's outcome record and label; discarded edits are left out
 * unless `filter.includeDiscarded`; `filter` keeps the edits whose run has that label or signal. Yields in pages of 200 rows so a large
 * corpus is streamed, not held in memory. Supervisors only; the check runs before the first
 * row. Errors: 403 `forbidden` (audited).
 */
export async function* diffCorpus(viewer: Pick<Viewer, "id" | "role">, now = new Date(), filter: CorpusFilter = {}): AsyncGenerator<DiffCorpusLine> {
  await assertSupervisor(viewer, "export_diff_corpus");
  yield* corpusRows(now, filter);
}

/** Every stored edit as a corpus line, unchecked (callers authorise first); keyset pages over (createdAt, id). */
async function* corpusRows(now: Date, filter: CorpusFilter = {}): AsyncGenerator<DiffCorpusLine> {
  let after: { createdAt: Date; id: string } | null = null;
  const where = filterWhere(filter);
  for (;;) {
    const rows: Awaited<ReturnType<typeof page>> = await page(after, where);
    // the suggestions these edits accepted (one bounded query per page)
    const accepted = rows.length
      ? await prisma.stepSuggestion.findMany({ where: { state: "accepted", runId: { in: [...new Set(rows.map((r) => r.runId))] } }, select: { id: true, runId: true, acceptedVersion: true, byUserId: true, note: true } })
      : [];
    const bySuggestion = new Map(accepted.map((s) => [`${s.runId}:${s.acceptedVersion}`, s]));
    // the outcome records and labels of these edits' runs (one query by primary key per page), and the labellers' names
    const outcomes = rows.length ? await prisma.runOutcome.findMany({ where: { runId: { in: [...new Set(rows.map((r) => r.runId))] } }, select: { runId: true, record: true, label: true, labelReason: true, labelledById: true, labelledAt: true } }) : [];
    const labellers = [...new Set(outcomes.map((o) => o.labelledById).filter((x): x is string => !!x))];
    const names = new Map((labellers.length ? await prisma.user.findMany({ where: { id: { in: labellers } }, select: { id: true, name: true } }) : []).map((u) => [u.id, u.name]));
    const byRun = new Map(outcomes.map((o) => [o.runId, o]));
    const signed = await signedApprovalsOf(rows);
    for (const e of rows) {
      const signedHere = [...(signed.get(`${e.runId}:${e.fromVersion}`) ?? []), ...(signed.get(`${e.runId}:${e.toVersion}`) ?? [])];
      const s = bySuggestion.get(`${e.runId}:${e.toVersion}`);
      const status = effectiveStatus(e.run.status as RunStatus, e.run.expiresAt, now);
      yield {
        runId: e.runId,
        fromVersion: e.fromVersion,
        toVersion: e.toVersion,
        editorId: e.editorId,
        before: readJsonColumn(planSchema, e.before, "plan"),
        after: readJsonColumn(planSchema, e.after, "plan"),
        diff: readJsonColumn(planDiffSchema, e.diff, "plan diff"),
        outcome: FINAL_STATUSES.includes(status) ? status : null,
        ...(s ? { suggestion: { id: s.id, suggestedBy: s.byUserId, note: s.note } } : {}),
        outcomeRecord: recordOf(byRun.get(e.runId)?.record),
        label: labelOf(byRun.get(e.runId), names),
        ...(signedHere.length ? { signedApprovals: signedHere } : {}),
        discarded: e.discardedAt !== null,
      };
    }
    if (rows.length < PAGE) return;
    const last = rows[rows.length - 1];
    after = { createdAt: last.createdAt, id: last.id };
  }
}

/**
 * The signed approvals of the plan versions before and after each edit of a page, keyed
 * `runId:planVersion`: one query over the approval index (run, plan version) for at most two
 * versions per edit, and one by primary key for the approvers' names.
 */
async function signedApprovalsOf(rows: readonly { runId: string; fromVersion: number; toVersion: number }[]): Promise<Map<string, CorpusSignedApproval[]>> {
  const out = new Map<string, CorpusSignedApproval[]>();
  if (!rows.length) return out;
  const pairs = new Map<string, { runId: string; planVersion: number }>();
  for (const r of rows) for (const planVersion of [r.fromVersion, r.toVersion]) pairs.set(`${r.runId}:${planVersion}`, { runId: r.runId, planVersion });
  const approvals = await prisma.approval.findMany({
    where: { OR: [...pairs.values()], approverId: { not: null } },
    select: { runId: true, planVersion: true, stepId: true, digest: true, approverId: true, state: true, signature: true, createdAt: true },
    orderBy: [{ createdAt: "asc" }, { id: "asc" }],
  });
  const withSignature = approvals.filter((a) => a.signature !== null && a.approverId !== null);
  const approverIds = [...new Set(withSignature.map((a) => a.approverId!))];
  const names = new Map((approverIds.length ? await prisma.user.findMany({ where: { id: { in: approverIds } }, select: { id: true, name: true } }) : []).map((u) => [u.id, u.name]));
  for (const a of withSignature) {
    const key = `${a.runId}:${a.planVersion}`;
    const list = out.get(key) ?? [];
    list.push({ stepId: a.stepId, planVersion: a.planVersion, digest: a.digest, approverId: a.approverId!, approverName: names.get(a.approverId!) ?? null, state: a.state, signature: a.signature as SignedApproval });
    out.set(key, list);
  }
  return out;
}

/** A stored outcome record as the corpus line carries it (fields added since it was stored read as their defaults), or null. */
function recordOf(json: unknown): OutcomeRecord | null {
  if (json == null) return null;
  const parsed = outcomeRecordSchema.safeParse(json);
  return (parsed.success ? parsed.data : json) as OutcomeRecord;
}

/** A stored label as the corpus line carries it, or null. */
function labelOf(o: { label: string | null; labelReason: string | null; labelledById: string | null; labelledAt: Date | null } | undefined, names: Map<string, string>): OutcomeLabelView | null {
  if (!o?.label || !o.labelledById || !o.labelledAt) return null;
  return { label: o.label as OutcomeLabel, reason: o.labelReason ?? "", by: { id: o.labelledById, name: names.get(o.labelledById) ?? o.labelledById }, at: o.labelledAt.toISOString() };
}

/** One page of edits after `after` matching `where`, oldest first: an indexed range, never an offset. */
function page(after: { createdAt: Date; id: string } | null, where: Prisma.PlanEditWhereInput = {}) {
  return prisma.planEdit.findMany({
    where: { AND: [after ? { OR: [{ createdAt: { gt: after.createdAt } }, { createdAt: after.createdAt, id: { gt: after.id } }] } : {}, where] },
    orderBy: [{ createdAt: "asc" }, { id: "asc" }],
    take: PAGE,
    include: { run: { select: { status: true, expiresAt: true } } },
  });
}

/**
 * The corpus as an NDJSON byte stream (one JSON object and "\n" per edit). The authorisation
 * check happens before the stream is returned, so a refusal is an ordinary typed error.
 */
export async function diffCorpusStream(viewer: Pick<Viewer, "id" | "role">, now = new Date(), filter: CorpusFilter = {}): Promise<ReadableStream<Uint8Array>> {
  await assertSupervisor(viewer, "export_diff_corpus");
  const lines = corpusRows(now, filter);
  const enc = new TextEncoder();
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      const next = await lines.next();
      if (next.done) controller.close();
      else controller.enqueue(enc.encode(`${jsonLine(next.value)}\n`));
    },
    async cancel() {
      await lines.return(undefined);
    },
  });
}
