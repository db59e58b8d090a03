import { DomainError } from "../../errors/domain-error";
import { deskRuleParamsSchema, describeRule, type DeskRuleSeverity } from "../../desk-rules/rules";
import type { Prisma } from "../../generated/prisma/client";
import { prisma } from "../db/db";
import { readJsonColumn } from "../db/json-column";
import { requireRole } from "../auth/require-role";
import type { Viewer } from "../auth/viewer";
import type { DeskRuleView } from "../../desk-rules/view";
import { DESK_RULE_SELECT, toDeskRuleView } from "./desk-rule-view";
import { DESK_RULE_ROLES } from "./save-desk-rule";
import { currentCatalog } from "../tools/imported-tools";

/**
 * How often the edit a rule was made from still happens (docs/design.md "Did the edit help?"):
 * since the rule's creation, the edits showing its pattern on its desk and the runs they touched,
 * beside the runs submitted on the desk since, and the same edits in an equally long span before
 * the rule. Counts over `plan_edit_pattern (keyHash, desk, createdAt)` and `run (desk,
 * createdAt)`; distinct runs counted up to MAX_COUNTED.
 */
export interface RuleEffect {
  since: string;
  edits: number;
  runs: number;
  runsSubmitted: number;
  editsBefore: number;
}

/** Distinct runs are counted up to this many (a larger count shows as this number). */
export const MAX_COUNTED = 10_000;

/** The effect of one rule made from an edit at `now` (null for a rule written by hand). */
export async function ruleEffect(rule: { desk: string; sourceHash: string | null; createdAt: Date }, now = new Date()): Promise<RuleEffect | null> {
  if (!rule.sourceHash) return null;
  const since: Prisma.PlanEditPatternWhereInput = { keyHash: rule.sourceHash, desk: rule.desk, createdAt: { gte: rule.createdAt } };
  const span = Math.max(0, now.getTime() - rule.createdAt.getTime());
  const [edits, runs, runsSubmitted, editsBefore] = await Promise.all([
    prisma.planEditPattern.count({ where: since }),
    prisma.planEditPattern.groupBy({ by: ["runId"], where: since, take: MAX_COUNTED, orderBy: { runId: "asc" } }),
    prisma.run.count({ where: { desk: rule.desk, createdAt: { gte: rule.createdAt } } }),
    prisma.planEditPattern.count({ where: { keyHash: rule.sourceHash, desk: rule.desk, createdAt: { gte: new Date(rule.createdAt.getTime() - span), lt: rule.createdAt } } }),
  ]);
  return { since: rule.createdAt.toISOString(), edits, runs: runs.length, runsSubmitted, editsBefore };
}

/** A listed rule: its view and, for a rule made from an edit, how often that edit still happens. */
export type ListedDeskRule = DeskRuleView & { effect: RuleEffect | null };

const names = async (ids: string[]) =>
  Object.fromEntries((ids.length ? await prisma.user.findMany({ where: { id: { in: [...new Set(ids)] } }, select: { id: true, name: true } }) : []).map((u) => [u.id, u.name]));

/**
 * The desk rules, one desk's (`desk`) or every desk's, newest first, at most `limit` (1–200,
 * default 100) after `cursor` (the last id of the previous page), each with its effect. Supervisors
 * and admins. Errors: 403 `forbidden` (audited).
 */
export async function listDeskRules(viewer: Pick<Viewer, "id" | "role">, opts: { desk?: string; onlyFromEdits?: boolean; cursor?: string; limit?: number } = {}, now = new Date()): Promise<{ rules: ListedDeskRule[]; nextCursor: string | null }> {
  await requireRole(viewer, DESK_RULE_ROLES, "desk_rule.list");
  const limit = Math.min(200, Math.max(1, opts.limit ?? 100));
  const rows = await prisma.deskRule.findMany({
    where: { ...(opts.desk ? { desk: opts.desk } : {}), ...(opts.onlyFromEdits ? { sourceHash: { not: null } } : {}), ...(opts.cursor ? { id: { lt: opts.cursor } } : {}) },
    orderBy: { id: "desc" },
    take: limit + 1,
    select: { ...DESK_RULE_SELECT, sourceHash: true },
  });
  const page = rows.slice(0, limit);
  const who = await names(page.map((r) => r.createdById));
  const rules: ListedDeskRule[] = [];
  for (const r of page) rules.push({ ...toDeskRuleView(r, who), effect: await ruleEffect(r, now) });
  return { rules, nextCursor: rows.length > limit ? page.at(-1)!.id : null };
}

/** One version of a rule as its history shows it. */
export interface DeskRuleVersionView {
  version: number;
  severity: DeskRuleSeverity;
  description: string;
  inWords: string;
  enabled: boolean;
  note: string;
  createdBy: { id: string; name: string };
  createdAt: string;
}

/**
 * One rule with its newest 50 versions (newest first) and its effect. Supervisors and admins.
 * Errors: 403 `forbidden` (audited); 404 `not_found`.
 */
export async function getDeskRule(viewer: Pick<Viewer, "id" | "role">, ruleId: string, now = new Date()): Promise<{ rule: ListedDeskRule; versions: DeskRuleVersionView[] }> {
  await requireRole(viewer, DESK_RULE_ROLES, "desk_rule.read");
  const row = await prisma.deskRule.findUnique({ where: { id: ruleId }, select: { ...DESK_RULE_SELECT, sourceHash: true } });
  if (!row) throw new DomainError("not_found", "There is no such desk rule.");
  const versions = await prisma.deskRuleVersion.findMany({ where: { ruleId }, orderBy: { version: "desc" }, take: 50 });
  const who = await names([row.createdById, ...versions.map((v) => v.createdById)]);
  return {
    rule: { ...toDeskRuleView(row, who), effect: await ruleEffect(row, now) },
    versions: versions.map((v) => ({
      version: v.version,
      severity: v.severity as DeskRuleSeverity,
      description: v.description,
      inWords: describeRule(readJsonColumn(deskRuleParamsSchema, v.params, "desk rule")),
      enabled: v.enabled,
      note: v.note,
      createdBy: { id: v.createdById, name: who[v.createdById] ?? v.createdById },
      createdAt: v.createdAt.toISOString(),
    })),
  };
}

/** What the rule form offers: the desks (id order, at most 200) and the current catalog's tool names. Supervisors and admins. */
export async function deskRuleFormOptions(viewer: Pick<Viewer, "id" | "role">): Promise<{ desks: { id: string; name: string }[]; tools: string[] }> {
  await requireRole(viewer, DESK_RULE_ROLES, "desk_rule.form");
  const desks = await prisma.desk.findMany({ orderBy: { id: "asc" }, take: 200, select: { id: true, name: true } });
  return { desks, tools: [...(await currentCatalog()).names()] };
}
