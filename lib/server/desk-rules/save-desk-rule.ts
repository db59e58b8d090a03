import { nanoid } from "nanoid";
import { DomainError, parseOrBadRequest } from "../../errors/domain-error";
import { deskRuleCreateSchema, deskRuleSaveSchema, MAX_DESK_RULES, type DeskRuleParams } from "../../desk-rules/rules";
import { Prisma } from "../../generated/prisma/client";
import { appendAudit } from "../audit-log/append-audit";
import { prisma } from "../db/db";
import { patternHash } from "../../audit/insights";
import { toJsonColumn } from "../db/json-column";
import { requireRole } from "../auth/require-role";
import type { Viewer } from "../auth/viewer";
import { currentCatalog } from "../tools/imported-tools";
import { inTransaction, ok, type Tx } from "../db/transaction";
import type { DeskRuleView } from "../../desk-rules/view";
import { DESK_RULE_SELECT, toDeskRuleView } from "./desk-rule-view";

/** Who may make and change desk rules: supervisors (who read the edits) and admins. */
export const DESK_RULE_ROLES = ["supervisor", "admin"] as const;

/** The tools a rule names that the current catalog does not have: 422 `validation_failed` {issues: [{path, code: "unknown_tool", message}]}. */
async function requireKnownTools(rule: DeskRuleParams): Promise<void> {
  const catalog = await currentCatalog();
  const named: [string, string][] = [["rule.tool", rule.tool]];
  if (rule.kind === "step_requires_prior") named.push(["rule.priorTool", rule.priorTool]);
  const issues = named.filter(([, t]) => !catalog.get(t)).map(([path, t]) => ({ path, code: "unknown_tool", message: `There is no tool called ${t} in the catalog.` }));
  if (issues.length) throw new DomainError("validation_failed", issues.map((i) => i.message).join(" "), { issues });
}

const views = async (tx: Tx | typeof prisma, id: string): Promise<DeskRuleView> => {
  const row = await tx.deskRule.findUniqueOrThrow({ where: { id }, select: DESK_RULE_SELECT });
  const user = await tx.user.findUnique({ where: { id: row.createdById }, select: { name: true } });
  return toDeskRuleView(row, user ? { [row.createdById]: user.name } : {});
};

/** The audited shape of one version (what before/after hold). */
const audited = (r: { version: number; severity: string; description: string; rule: unknown; enabled: boolean }) => ({ version: r.version, severity: r.severity, description: r.description, rule: r.rule, enabled: r.enabled });

/**
 * Makes a desk rule (docs/design.md "Did the edit help?"), version 1, usually from a recurring edit
 * on /insights (`source`, whose key the rule's "still happens" count follows). Audited
 * `admin_change {what: "desk_rule.create", target: {kind: "desk_rule", id}, before: null, after,
 * note}`. From the next validation on, the validator applies it on that desk (stage `desk_rule`).
 * Errors: 403 `forbidden` unless supervisor or admin (audited); 400 `bad_request` {issues};
 * 422 `unknown_desk`; 422 `validation_failed` {issues} for a tool the catalog does not have or a
 * desk already holding MAX_DESK_RULES rules.
 */
export async function createDeskRule(viewer: Pick<Viewer, "id" | "role">, raw: unknown, now = new Date()): Promise<DeskRuleView> {
  await requireRole(viewer, DESK_RULE_ROLES, "desk_rule.create");
  const draft = parseOrBadRequest(deskRuleCreateSchema, raw);
  if (!(await prisma.desk.findUnique({ where: { id: draft.desk }, select: { id: true } }))) {
    throw new DomainError("unknown_desk", `There is no desk called ${draft.desk}.`, { desk: draft.desk });
  }
  await requireKnownTools(draft.rule);
  const id = `dr_${nanoid(12)}`;
  await inTransaction(async (tx) => {
    const held = await tx.deskRule.count({ where: { desk: draft.desk } });
    if (held >= MAX_DESK_RULES) {
      throw new DomainError("validation_failed", `The desk already has ${held} rules, the most it holds; disable or change one instead.`, { issues: [{ path: "desk", code: "too_many_rules", message: `At most ${MAX_DESK_RULES} rules per desk.` }], limit: MAX_DESK_RULES });
    }
    const fields = { kind: draft.rule.kind, tool: draft.rule.tool, params: toJsonColumn(draft.rule), severity: draft.severity, description: draft.description, enabled: draft.enabled };
    await tx.deskRule.create({
      data: {
        id,
        desk: draft.desk,
        version: 1,
        ...fields,
        source: draft.source ? toJsonColumn(draft.source) : Prisma.DbNull,
        sourceHash: draft.source ? patternHash(draft.source.key) : null,
        createdById: viewer.id,
        createdAt: now,
        updatedAt: now,
      },
    });
    await tx.deskRuleVersion.create({ data: { id: `drv_${nanoid(12)}`, ruleId: id, version: 1, ...fields, note: draft.note, createdById: viewer.id, createdAt: now } });
    await appendAudit(tx, {
      type: "admin_change",
      actor: { kind: "user", id: viewer.id },
      data: { what: "desk_rule.create", target: { kind: "desk_rule", id }, desk: draft.desk, before: null, after: audited({ version: 1, ...draft }), source: draft.source, note: draft.note },
    });
    return ok(null);
  });
  return views(prisma, id);
}

/**
 * Saves a change of a desk rule as its next version (a disable is a save with `enabled: false`).
 * `baseVersion` is the version the editor read: the write is conditional on it, so of two saves
 * from one version exactly one wins. Audited `admin_change {what: "desk_rule.save", target:
 * {kind: "desk_rule", id}, before, after, note}`. Errors: 403 `forbidden` unless supervisor or
 * admin (audited); 404 `not_found`; 400 `bad_request`; 422 `validation_failed` (unknown tool);
 * 409 `stale_desk_rule` {version, savedBy} when someone saved after `baseVersion`.
 */
export async function saveDeskRule(viewer: Pick<Viewer, "id" | "role">, ruleId: string, raw: unknown, now = new Date()): Promise<DeskRuleView> {
  await requireRole(viewer, DESK_RULE_ROLES, "desk_rule.save");
  const draft = parseOrBadRequest(deskRuleSaveSchema, raw);
  const found = await prisma.deskRule.findUnique({ where: { id: ruleId }, select: { id: true } });
  if (!found) throw new DomainError("not_found", "There is no such desk rule.");
  await requireKnownTools(draft.rule);
  await inTransaction(async (tx) => {
    const before = await tx.deskRule.findUniqueOrThrow({ where: { id: ruleId }, select: { version: true, severity: true, description: true, params: true, enabled: true } });
    const next = draft.baseVersion + 1;
    const fields = { kind: draft.rule.kind, tool: draft.rule.tool, params: toJsonColumn(draft.rule), severity: draft.severity, description: draft.description, enabled: draft.enabled };
    const moved = await tx.deskRule.updateMany({ where: { id: ruleId, version: draft.baseVersion }, data: { ...fields, version: next, updatedAt: now } });
    if (moved.count !== 1) {
      const last = await tx.deskRuleVersion.findFirst({ where: { ruleId }, orderBy: { version: "desc" }, select: { version: true, createdById: true, createdAt: true } });
      const by = last ? await tx.user.findUnique({ where: { id: last.createdById }, select: { id: true, name: true } }) : null;
      throw new DomainError("stale_desk_rule", `Someone saved version ${before.version} of this rule after you opened version ${draft.baseVersion}; review it and try again.`, {
        version: before.version,
        savedBy: by,
        savedAt: last?.createdAt.toISOString() ?? null,
      });
    }
    await tx.deskRuleVersion.create({ data: { id: `drv_${nanoid(12)}`, ruleId, version: next, ...fields, note: draft.note, createdById: viewer.id, createdAt: now } });
    await appendAudit(tx, {
      type: "admin_change",
      actor: { kind: "user", id: viewer.id },
      data: {
        what: "desk_rule.save",
        target: { kind: "desk_rule", id: ruleId },
        before: audited({ version: before.version, severity: before.severity, description: before.description, rule: before.params, enabled: before.enabled }),
        after: audited({ version: next, ...draft }),
        note: draft.note,
      },
    });
    return ok(null);
  });
  return views(prisma, ruleId);
}
