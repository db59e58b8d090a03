import { computeInsights, type InsightDiff, type Insights } from "../../insights";
import { prisma } from "../db";
import { effectiveStatus, type RunStatus } from "../../run-state";
import { requireRole, type Viewer } from "../session";

/**
 * Refuses anyone but a supervisor: 403 `forbidden`, audited as `denied` by session.ts
 * `requireRole` (DESIGN.md "People": audit and telemetry are the supervisor's; §11: denials are
 * events). `action` names what was tried, e.g. "export_diff_corpus".
 */
export async function assertSupervisor(viewer: Pick<Viewer, "id" | "role">, action: string): Promise<void> {
  await requireRole(viewer, ["supervisor"], action);
}

/** What `/insights` shows: the computed numbers plus names for editor ids. */
export interface InsightsPage extends Insights {
  users: Record<string, string>;
  generatedAt: string;
}

/**
 * Loads the runs submitted in `opts.since`…`opts.until` (UTC, default: all time; effective
 * status at `now`) and every stored edit of them, and computes the edit telemetry
 * (lib/insights.ts). Supervisors only. Errors: 403 `forbidden` (audited).
 */
export async function loadInsights(
  viewer: Pick<Viewer, "id" | "role">,
  now = new Date(),
  opts: { threshold?: number; since?: Date; until?: Date } = {},
): Promise<InsightsPage> {
  await assertSupervisor(viewer, "read_insights");
  const createdAt = { ...(opts.since ? { gte: opts.since } : {}), ...(opts.until ? { lt: opts.until } : {}) };
  const runWhere = opts.since || opts.until ? { createdAt } : {};
  const [runs, edits, users] = await Promise.all([
    prisma.run.findMany({ where: runWhere, select: { id: true, createdAt: true, status: true, expiresAt: true } }),
    prisma.planEdit.findMany({
      where: opts.since || opts.until ? { run: runWhere } : {},
      select: { runId: true, fromVersion: true, toVersion: true, editorId: true, createdAt: true, diff: true },
      orderBy: { createdAt: "asc" },
    }),
    prisma.user.findMany({ select: { id: true, name: true } }),
  ]);
  const insights = computeInsights(
    runs.map((r) => ({ id: r.id, createdAt: r.createdAt, status: effectiveStatus(r.status as RunStatus, r.expiresAt, now) })),
    edits.map((e) => ({ ...e, diff: e.diff as unknown as InsightDiff })),
    { threshold: opts.threshold },
  );
  return { ...insights, users: Object.fromEntries(users.map((u) => [u.id, u.name])), generatedAt: now.toISOString() };
}
