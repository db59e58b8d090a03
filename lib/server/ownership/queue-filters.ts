import type { Prisma } from "../../generated/prisma/client";
import type { Grant } from "../../people/grants";
import { EXPIRING_STATES } from "../../lifecycle/run-state";
import { DB_PROVIDER, prisma } from "../db/db";
import { APPROVED_STATES } from "./get-run-ownership";
import { storedValidation } from "../plans/stored-plan";

import { NEAR_DEADLINE_MS, normalizeQueueSearch, type QueueFilterState } from "../../queue/queue-views";

/**
 * The queue's ownership filters, all optional. Money in minor units (one step's amount,
 * any currency); ages in hours since the run was submitted; `accountId` matches the account id
 * exactly or as a prefix, literally and case-sensitively on both databases (`literalPrefix`); `tool` = the current plan has a step of that tool (with `min/maxAmountMinor`:
 * the same step moves that much).
 */
export type QueueFilters = QueueFilterState;

/**
 * A string filter for "starts with `prefix`", taken literally (`%`, `_` and `\\` are characters, not
 * wildcards) and case-sensitively, the same on both databases. Prisma's `startsWith` becomes LIKE
 * without escaping: `%` would match everything, and SQLite's LIKE ignores ASCII case while
 * PostgreSQL's does not. So: on PostgreSQL, LIKE with the wildcards escaped (backslash is its
 * default escape character); on SQLite (no default escape, BINARY collation), the range
 * [prefix, prefix + U+10FFFF), which is exactly the strings starting with `prefix`. Both use the
 * column's index.
 */
export function literalPrefix(prefix: string): Prisma.StringFilter {
  if (DB_PROVIDER === "postgresql") return { startsWith: prefix.replace(/[\\%_]/g, (c) => `\\${c}`) };
  return { gte: prefix, lt: `${prefix}\u{10FFFF}` };
}

/** Who is looking: their id, role and grants decide "mine", "beyond my limit" and "requested of me". */
export type QueueViewer = { id: string; role: string; grants: readonly Grant[] };

/**
 * The SQL condition for a step beyond `grants`' approve authority: gated, and either a tool the
 * person may not approve at all, or money above their ceiling for it (or in another currency).
 * Mirrors `checkGrant` (lib/people/grants.ts) so the queue and the approval service agree.
 */
export function stepBeyondGrants(grants: readonly Grant[]): Prisma.RunStepWhereInput {
  const approvable = grants.filter((g) => g.canApprove);
  const over: Prisma.RunStepWhereInput[] = approvable
    .filter((g) => g.approveLimit)
    .map((g) => ({ tool: g.tool, OR: [{ amountMinor: { gt: g.approveLimit!.minor } }, { amountCurrency: { not: g.approveLimit!.currency } }] }));
  return { gated: true, OR: [{ tool: { notIn: approvable.map((g) => g.tool) } }, ...over] };
}

/**
 * The SQL `where` of the queue's views and filters for `viewer` at `now` (UTC): every condition an
 * indexed column or an EXISTS over `run_step` / `approval_request` — nothing is filtered in memory.
 * "near deadline" = waiting and expiring within NEAR_DEADLINE_MS; "requested" = an open hand-off to
 * the viewer or their role on a run still waiting.
 */
export function queueFilterWhere(f: QueueFilters, viewer: QueueViewer | undefined, now: Date): Prisma.RunWhereInput {
  const and: Prisma.RunWhereInput[] = [];
  const waiting: Prisma.RunWhereInput = { status: { in: [...EXPIRING_STATES] }, expiresAt: { gt: now } };
  switch (f.view ?? "all") {
    case "mine":
      and.push({ assigneeId: viewer?.id ?? "\u0000" });
      break;
    case "unassigned":
      and.push({ assigneeId: null });
      break;
    case "beyond_my_limit":
      and.push(waiting, { runSteps: { some: stepBeyondGrants(viewer?.grants ?? []) } });
      break;
    case "near_deadline":
      and.push({ status: { in: [...EXPIRING_STATES] }, expiresAt: { gt: now, lte: new Date(now.getTime() + NEAR_DEADLINE_MS) } });
      break;
    case "requested":
      and.push(waiting, { approvalRequests: { some: { resolvedAt: null, OR: [{ toUserId: viewer?.id ?? "\u0000" }, { toRole: viewer?.role ?? "\u0000" }] } } });
      break;
    default:
      break;
  }
  if (f.accountId) and.push({ accountId: literalPrefix(f.accountId) });
  const q = normalizeQueueSearch(f.q);
  if (q) {
    // Each branch an indexed column: the run id (primary key), the ticket number and account id
    // ((desk, ticketId) / (desk, accountId)), the account's name (customer_account(name)); each a
    // literal prefix (wildcards are text), one case rule on both databases.
    and.push({ OR: [{ id: q }, { ticketId: literalPrefix(q) }, { accountId: literalPrefix(q) }, { task: { ticket: { account: { name: literalPrefix(q) } } } }] });
  }
  if (f.tool || f.minAmountMinor != null || f.maxAmountMinor != null) {
    const amount: Prisma.IntNullableFilter = {};
    if (f.minAmountMinor != null) amount.gte = f.minAmountMinor;
    if (f.maxAmountMinor != null) amount.lte = f.maxAmountMinor;
    and.push({ runSteps: { some: { ...(f.tool ? { tool: f.tool } : {}), ...(Object.keys(amount).length ? { amountMinor: amount } : {}) } } });
  }
  const hour = 3_600_000;
  if (f.minAgeHours != null) and.push({ createdAt: { lte: new Date(now.getTime() - f.minAgeHours * hour) } });
  if (f.maxAgeHours != null) and.push({ createdAt: { gte: new Date(now.getTime() - f.maxAgeHours * hour) } });
  return and.length ? { AND: and } : {};
}

/** Per-row facts of one queue page: assignee name, approvals still missing, beyond the viewer's limit. */
export interface QueueRowOwnership {
  assigneeId: string | null;
  assigneeName: string | null;
  /** Gated steps of the current plan version without an active (or claimed, consumed) approval. */
  approvalsMissing: number;
  /** Approvals the current plan needs in all (one per gated step, two under a four-eyes rule). */
  approvalsNeeded: number;
  /** A gated step of the current plan needs more authority than the viewer's approve grants give. */
  beyondMyLimit: boolean;
}

/**
 * The ownership facts of one page of runs: bounded queries over the page's ids (its `run_step`
 * rows, their approvals, the steps beyond the viewer's grants, the assignees' names when any run
 * has one, the current plan versions' requirements), never the whole table.
 */
export async function queueRowOwnership(
  rows: readonly { id: string; planVersion: number; assigneeId: string | null }[],
  viewer: QueueViewer | undefined,
): Promise<Map<string, QueueRowOwnership>> {
  const ids = rows.map((r) => r.id);
  if (ids.length === 0) return new Map();
  const assigneeIds = [...new Set(rows.map((r) => r.assigneeId).filter((x): x is string => !!x))];
  const [steps, approvals, beyond, users, versions] = [
    await prisma.runStep.findMany({ where: { runId: { in: ids }, gated: true }, select: { runId: true, stepId: true, planVersion: true } }),
    await prisma.approval.findMany({ where: { runId: { in: ids }, state: { in: [...APPROVED_STATES] } }, select: { runId: true, stepId: true, planVersion: true } }),
    viewer ? await prisma.runStep.findMany({ where: { runId: { in: ids }, ...stepBeyondGrants(viewer.grants) }, select: { runId: true }, distinct: ["runId"] }) : [],
    // a page nobody has taken sends no statement for names
    assigneeIds.length ? await prisma.user.findMany({ where: { id: { in: assigneeIds } }, select: { id: true, name: true } }) : [],
    // What the gate policy asked of each step (four eyes): the page's current versions only. Two
    // lists, not an OR of one pair per row: Prisma passes a list as one parameter, so the query
    // keeps one shape (one compiled plan) whatever the page's length; a version another run of the
    // page is at is dropped below.
    await prisma.planVersion.findMany({ where: { runId: { in: ids }, version: { in: [...new Set(rows.map((r) => r.planVersion))] } }, select: { runId: true, version: true, validation: true } }),
  ];
  const key = (runId: string, version: number, stepId: string) => `${runId}\u0000${version}\u0000${stepId}`;
  const given = new Map<string, number>();
  for (const a of approvals) given.set(key(a.runId, a.planVersion, a.stepId), (given.get(key(a.runId, a.planVersion, a.stepId)) ?? 0) + 1);
  const version = new Map(rows.map((r) => [r.id, r.planVersion]));
  const required = new Map(versions.filter((v) => v.version === version.get(v.runId)).map((v) => [v.runId, storedValidation(v.validation).requirements ?? {}]));
  const missing = new Map<string, number>();
  const needed = new Map<string, number>();
  for (const s of steps) {
    if (s.planVersion !== version.get(s.runId)) continue;
    const need = Math.max(required.get(s.runId)?.[s.stepId]?.approvalsRequired ?? 1, 1);
    needed.set(s.runId, (needed.get(s.runId) ?? 0) + need);
    const short = need - (given.get(key(s.runId, s.planVersion, s.stepId)) ?? 0);
    if (short > 0) missing.set(s.runId, (missing.get(s.runId) ?? 0) + short);
  }
  const beyondIds = new Set(beyond.map((b) => b.runId));
  const names = new Map(users.map((u) => [u.id, u.name]));
  return new Map(
    rows.map((r) => [
      r.id,
      { assigneeId: r.assigneeId, assigneeName: r.assigneeId ? (names.get(r.assigneeId) ?? r.assigneeId) : null, approvalsMissing: missing.get(r.id) ?? 0, approvalsNeeded: needed.get(r.id) ?? 0, beyondMyLimit: beyondIds.has(r.id) },
    ]),
  );
}
