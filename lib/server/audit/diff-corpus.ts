import type { PlanDiff } from "../../diff/plan-diff";
import type { Plan } from "../../plan/schema";
import { prisma } from "../db";
import { assertSupervisor } from "./insights";
import { effectiveStatus, type RunStatus } from "../../lifecycle/run-state";
import type { Viewer } from "../session";
import { readJsonColumn } from "../json-column";
import { planSchema } from "../../plan/schema";
import { planDiffSchema } from "../../diff/plan-diff";

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
}

/** Statuses after which nothing about a run changes any more. */
export const FINAL_STATUSES: RunStatus[] = ["completed", "failed", "stopped", "rejected", "expired"];

const PAGE = 200;

/**
 * The diff corpus (`GET /api/audit/diffs.jsonl`, docs/design.md §11): every stored edit, oldest first,
 * as one object per edit. Yields in pages of 200 rows so a large
 * corpus is streamed, not held in memory. Supervisors only; the check runs before the first
 * row. Errors: 403 `forbidden` (audited).
 */
export async function* diffCorpus(viewer: Pick<Viewer, "id" | "role">, now = new Date()): AsyncGenerator<DiffCorpusLine> {
  await assertSupervisor(viewer, "export_diff_corpus");
  yield* corpusRows(now);
}

/** Every stored edit as a corpus line, unchecked (callers authorise first); keyset pages over (createdAt, id). */
async function* corpusRows(now: Date): AsyncGenerator<DiffCorpusLine> {
  let after: { createdAt: Date; id: string } | null = null;
  for (;;) {
    const rows: Awaited<ReturnType<typeof page>> = await page(after);
    // the suggestions these edits accepted (one bounded query per page)
    const accepted = rows.length
      ? await prisma.stepSuggestion.findMany({ where: { state: "accepted", runId: { in: [...new Set(rows.map((r) => r.runId))] } }, select: { id: true, runId: true, acceptedVersion: true, byUserId: true, note: true } })
      : [];
    const bySuggestion = new Map(accepted.map((s) => [`${s.runId}:${s.acceptedVersion}`, s]));
    for (const e of rows) {
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
      };
    }
    if (rows.length < PAGE) return;
    const last = rows[rows.length - 1];
    after = { createdAt: last.createdAt, id: last.id };
  }
}

/** One page of edits after `after`, oldest first: an indexed range, never an offset. */
function page(after: { createdAt: Date; id: string } | null) {
  return prisma.planEdit.findMany({
    where: after ? { OR: [{ createdAt: { gt: after.createdAt } }, { createdAt: after.createdAt, id: { gt: after.id } }] } : {},
    orderBy: [{ createdAt: "asc" }, { id: "asc" }],
    take: PAGE,
    include: { run: { select: { status: true, expiresAt: true } } },
  });
}

/**
 * The corpus as an NDJSON byte stream (one JSON object and "\n" per edit). The authorisation
 * check happens before the stream is returned, so a refusal is an ordinary typed error.
 */
export async function diffCorpusStream(viewer: Pick<Viewer, "id" | "role">, now = new Date()): Promise<ReadableStream<Uint8Array>> {
  await assertSupervisor(viewer, "export_diff_corpus");
  const lines = corpusRows(now);
  const enc = new TextEncoder();
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      const next = await lines.next();
      if (next.done) controller.close();
      else controller.enqueue(enc.encode(`${JSON.stringify(next.value)}\n`));
    },
    async cancel() {
      await lines.return(undefined);
    },
  });
}
