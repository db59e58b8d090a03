import { DomainError } from "../../errors/domain-error";
import type { Prisma } from "../../generated/prisma/client";
import type { OutcomeLabel, OutcomeLabelView } from "../../outcomes/outcome";
import type { OutcomeLabelBody } from "../../outcomes/schema";
import { outcomeRecordSchema } from "../../outcomes/schema";
import { appendAudit } from "../audit-log/append-audit";
import { prisma } from "../db/db";
import { readJsonColumn } from "../db/json-column";
import { encodeCursor, pageSize } from "../db/pagination";
import { requireRole } from "../auth/require-role";
import { deskScope, type Viewer } from "../auth/viewer";
import { inTransaction, LostRace, ok } from "../db/transaction";
import type { OutcomeRecord } from "../../outcomes/outcome";

/*
 * Reading outcome records and the supervisors' judgement of edited runs (docs/design.md
 * "Did the edit help?"; "People and machines": labels are the supervisor's). Reads are by primary key or by the
 * review index `run_outcome (edited, labelled, moneyDifferenceMinor, runId)`.
 */

export type { OutcomeLabelView };

/** One run's outcome as the API shows it (lib/outcomes/schema.ts `runOutcomeRecordSchema`). */
export interface RunOutcomeView {
  runId: string;
  ticketId: string;
  record: OutcomeRecord;
  label: OutcomeLabelView | null;
  computedAt: string;
}

type OutcomeRow = Prisma.RunOutcomeGetPayload<{ include: { run: { select: { ticketId: true } } } }>;

async function labelOf(row: Pick<OutcomeRow, "label" | "labelReason" | "labelledById" | "labelledAt">, names?: Map<string, string>): Promise<OutcomeLabelView | null> {
  if (!row.label || !row.labelledById || !row.labelledAt) return null;
  const name = names?.get(row.labelledById) ?? (await prisma.user.findUnique({ where: { id: row.labelledById }, select: { name: true } }))?.name ?? row.labelledById;
  return { label: row.label as OutcomeLabel, reason: row.labelReason ?? "", by: { id: row.labelledById, name }, at: row.labelledAt.toISOString() };
}

const viewOf = async (row: OutcomeRow, names?: Map<string, string>): Promise<RunOutcomeView> => ({
  runId: row.runId,
  ticketId: row.run.ticketId,
  record: readJsonColumn(outcomeRecordSchema, row.record, "outcome record") as OutcomeRecord,
  label: await labelOf(row, names),
  computedAt: row.computedAt.toISOString(),
});

/**
 * The outcome of run `runId` for `viewer` (operators: their desk's runs only), or null when the
 * run has not ended with a written step. Errors: 404 `not_found` (no such run on the viewer's desk).
 */
export async function getRunOutcome(viewer: Pick<Viewer, "role" | "desk">, runId: string): Promise<RunOutcomeView | null> {
  const run = await prisma.run.findFirst({ where: { id: runId, ...deskScope(viewer) }, select: { id: true } });
  if (!run) throw new DomainError("not_found", `Run ${runId} was not found.`);
  const row = await prisma.runOutcome.findUnique({ where: { runId }, include: { run: { select: { ticketId: true } } } });
  return row ? viewOf(row) : null;
}

/**
 * A supervisor labels edited, executed run `runId` better / same / worse with a reason
 * (`PUT /api/runs/{runId}/outcome-label`). The label is the supervisor's: the computed suggestion
 * is recorded beside it in the audit, never in its place. Labelling again replaces the label.
 * Audited `outcome_labelled {before, after, suggestion}` (before: null the first time); the same
 * label and reason again changes nothing and writes no event. Errors: 403 `forbidden` unless
 * supervisor (audited `denied`); 404 `not_found`; 409 `not_labelable` (the run did not execute a
 * written step, or was not edited).
 */
export async function labelRunOutcome(viewer: Pick<Viewer, "id" | "role" | "desk">, runId: string, body: OutcomeLabelBody, now = new Date()): Promise<RunOutcomeView> {
  await requireRole(viewer, ["supervisor"], "label_outcome", { runId });
  return inTransaction(async (tx) => {
    const run = await tx.run.findFirst({ where: { id: runId, ...deskScope(viewer) }, select: { id: true } });
    if (!run) throw new DomainError("not_found", `Run ${runId} was not found.`);
    const row = await tx.runOutcome.findUnique({ where: { runId } });
    if (!row) throw new DomainError("not_labelable", "This run has not executed a written step yet; only an executed, edited run is labelled.");
    if (!row.edited) throw new DomainError("not_labelable", "This run was executed as the agent proposed it; labels judge edits, and it has none.");
    const before = row.label ? { label: row.label, reason: row.labelReason ?? "" } : null;
    if (before?.label !== body.label || before.reason !== body.reason) {
      const res = await tx.runOutcome.updateMany({
        where: { runId, label: row.label, labelledAt: row.labelledAt },
        data: { label: body.label, labelReason: body.reason, labelledById: viewer.id, labelledAt: now, labelled: true },
      });
      if (res.count !== 1) throw new LostRace("outcome labelled concurrently");
      await appendAudit(tx, { runId, type: "outcome_labelled", actor: { kind: "user", id: viewer.id }, data: { before, after: { label: body.label, reason: body.reason }, suggestion: row.suggestion } });
    }
    const after = await tx.runOutcome.findUniqueOrThrow({ where: { runId }, include: { run: { select: { ticketId: true } } } });
    return ok(await viewOf(after));
  });
}

/** One row of the review queue. */
export interface OutcomeReviewItem {
  runId: string;
  ticketId: string;
  subject: string;
  editor: { id: string; name: string } | null;
  record: OutcomeRecord;
  label: OutcomeLabelView | null;
}

const encodeReviewCursor = (row: { labelled: boolean; moneyDifferenceMinor: number; runId: string }) => encodeCursor(`${row.labelled ? 1 : 0}:${row.moneyDifferenceMinor}`, row.runId);

function afterReviewCursor(cursor: string | undefined): Prisma.RunOutcomeWhereInput {
  if (!cursor) return {};
  const text = Buffer.from(cursor, "base64url").toString("utf8");
  const m = /^([01]):(\d{1,16})\|(.+)$/.exec(text);
  if (!m) throw new DomainError("bad_request", "This page cursor is not valid; start again from the first page.");
  const labelled = m[1] === "1";
  const d = Number(m[2]);
  const id = m[3];
  return {
    OR: [
      ...(labelled ? [] : [{ labelled: true }]),
      { labelled, moneyDifferenceMinor: { lt: d } },
      { labelled, moneyDifferenceMinor: d, runId: { gt: id } },
    ],
  };
}

/**
 * The review queue (`/outcomes/review`, `GET /api/outcomes/review`): edited runs that executed,
 * unlabelled first, then the largest money difference to the agent's plan first, then run id — a
 * keyset page of `limit` (1–200, default 25) over the review index. Supervisors only.
 * Errors: 403 `forbidden` (audited); 400 `bad_request` for a malformed cursor.
 */
export async function listOutcomeReview(viewer: Pick<Viewer, "id" | "role">, opts: { cursor?: string; limit?: number } = {}): Promise<{ items: OutcomeReviewItem[]; nextCursor: string | null }> {
  await requireRole(viewer, ["supervisor"], "review_outcomes");
  const limit = pageSize(opts.limit, 25);
  const rows = await prisma.runOutcome.findMany({
    where: { edited: true, ...afterReviewCursor(opts.cursor) },
    orderBy: [{ labelled: "asc" }, { moneyDifferenceMinor: "desc" }, { runId: "asc" }],
    take: limit + 1,
    include: { run: { select: { ticketId: true, task: { select: { ticket: { select: { subject: true } } } } } } },
  });
  const page = rows.slice(0, limit);
  const ids = [...new Set(page.flatMap((r) => [r.editorId, r.labelledById]).filter((x): x is string => !!x))];
  const users = ids.length ? await prisma.user.findMany({ where: { id: { in: ids } }, select: { id: true, name: true } }) : [];
  const names = new Map(users.map((u) => [u.id, u.name]));
  const items: OutcomeReviewItem[] = [];
  for (const r of page) {
    const v = await viewOf(r, names);
    items.push({ runId: r.runId, ticketId: r.run.ticketId, subject: r.run.task.ticket.subject, editor: r.editorId ? { id: r.editorId, name: names.get(r.editorId) ?? r.editorId } : null, record: v.record, label: v.label });
  }
  return { items, nextCursor: rows.length > limit ? encodeReviewCursor(page[page.length - 1]) : null };
}
