import { deskRuleParamsSchema, deskRuleSourceSchema, describeRule } from "../../desk-rules/rules";
import type { DeskRuleView } from "../../desk-rules/view";
import { readJsonColumn } from "../db/json-column";

/** The columns a view reads. */
export const DESK_RULE_SELECT = {
  id: true,
  desk: true,
  version: true,
  severity: true,
  description: true,
  params: true,
  enabled: true,
  source: true,
  createdById: true,
  createdAt: true,
  updatedAt: true,
} as const;

/** A stored row as a view; `names` maps user ids to display names. */
export function toDeskRuleView(
  r: { id: string; desk: string; version: number; severity: string; description: string; params: unknown; enabled: boolean; source: unknown; createdById: string; createdAt: Date; updatedAt: Date },
  names: Record<string, string>,
): DeskRuleView {
  const rule = readJsonColumn(deskRuleParamsSchema, r.params, "desk rule");
  return {
    id: r.id,
    desk: r.desk,
    version: r.version,
    severity: r.severity as DeskRuleView["severity"],
    description: r.description,
    rule,
    inWords: describeRule(rule),
    enabled: r.enabled,
    source: r.source == null ? null : readJsonColumn(deskRuleSourceSchema, r.source, "desk rule source"),
    createdBy: { id: r.createdById, name: names[r.createdById] ?? r.createdById },
    createdAt: r.createdAt.toISOString(),
    updatedAt: r.updatedAt.toISOString(),
  };
}
