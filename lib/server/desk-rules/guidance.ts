import { deskRuleParamsSchema, describeRule, MAX_DESK_RULES, type DeskRuleSeverity } from "../../desk-rules/rules";
import { planDiffSchema } from "../../diff/plan-diff";
import { storedSteps } from "../plans/stored-plan";
import { prisma } from "../db/db";
import { readJsonColumn } from "../db/json-column";
import { agentDesk, type AgentCaller } from "../auth/viewer";

/** Worked examples per rule (the newest edits that showed its pattern). */
export const EXAMPLES_PER_RULE = 2;
/** The `prompt` text is cut to this many characters. */
export const MAX_PROMPT_CHARS = 8000;

/** One worked example: the step as the agent proposed it and as a person left it (`null`: no such step on that side). */
export interface GuidanceExample {
  tool: string;
  before: Record<string, unknown> | null;
  after: Record<string, unknown> | null;
  editedAt: string;
}

/** One rule of the desk as the agent reads it. */
export interface GuidanceRule {
  id: string;
  version: number;
  tool: string;
  kind: string;
  severity: DeskRuleSeverity;
  description: string;
  inWords: string;
  /** Whether Plandesk checks it (every kind but `guidance`): a plan that breaks it is warned or refused. */
  checked: boolean;
  examples: GuidanceExample[];
}

/**
 * What the agent should know before it plans, for its prompt (`GET /api/v1/guidance`, docs/design.md
 * "Did the edit help?"): the enabled rules of the agent's own desk in words, each with up to
 * EXAMPLES_PER_RULE worked examples from the diff corpus — the step before and after a person's
 * edit that showed the pattern the rule was made from (discarded edits never) — and `prompt`, the
 * rules as one text of at most MAX_PROMPT_CHARS characters. Another desk's rules and edits are
 * never read. Bounded: at most MAX_DESK_RULES rules, each example one indexed read.
 */
export async function guidanceFor(agent: Pick<AgentCaller, "desk">): Promise<{ desk: string; rules: GuidanceRule[]; prompt: string }> {
  const desk = agentDesk(agent);
  const rows = await prisma.deskRule.findMany({
    where: { desk, enabled: true },
    orderBy: [{ createdAt: "asc" }, { id: "asc" }],
    take: MAX_DESK_RULES,
    select: { id: true, version: true, tool: true, kind: true, severity: true, description: true, params: true, source: true, sourceHash: true },
  });
  const rules: GuidanceRule[] = [];
  for (const r of rows) {
    const rule = readJsonColumn(deskRuleParamsSchema, r.params, "desk rule");
    rules.push({
      id: r.id,
      version: r.version,
      tool: r.tool,
      kind: r.kind,
      severity: r.severity as DeskRuleSeverity,
      description: r.description,
      inWords: describeRule(rule),
      checked: rule.kind !== "guidance",
      // The examples show the edited step: the source's tool (a note added before a reply is the note).
      examples: r.sourceHash ? await examplesOf(desk, r.sourceHash, (r.source as { tool?: string } | null)?.tool ?? r.tool) : [],
    });
  }
  const lines = rules.map((r, i) => `${i + 1}. ${r.description} (${r.inWords}${r.checked ? `; Plandesk ${r.severity === "error" ? "refuses" : "warns about"} a plan that breaks it` : ""}).`);
  const text = lines.length ? `Rules of the ${desk} desk:\n${lines.join("\n")}` : `The ${desk} desk has no rules yet.`;
  return { desk, rules, prompt: text.length > MAX_PROMPT_CHARS ? `${text.slice(0, MAX_PROMPT_CHARS - 1)}…` : text };
}

/** The newest edits of `desk` showing the pattern: the step of `tool` before and after each. */
async function examplesOf(desk: string, keyHash: string, tool: string): Promise<GuidanceExample[]> {
  const hits = await prisma.planEditPattern.findMany({ where: { keyHash, desk }, orderBy: { createdAt: "desc" }, take: EXAMPLES_PER_RULE, select: { editId: true } });
  if (hits.length === 0) return [];
  const edits = await prisma.planEdit.findMany({ where: { id: { in: hits.map((h) => h.editId) }, discardedAt: null, run: { desk } }, orderBy: { createdAt: "desc" }, select: { before: true, after: true, diff: true, createdAt: true } });
  const out: GuidanceExample[] = [];
  for (const e of edits) {
    const diff = readJsonColumn(planDiffSchema, e.diff, "plan diff");
    const stepId = diff.changed.find((c) => c.tool === tool)?.stepId ?? diff.added.find((s) => s.tool === tool)?.id ?? diff.removed.find((s) => s.tool === tool)?.id;
    if (!stepId) continue;
    const argsIn = (plan: unknown) => storedSteps((plan as { steps?: unknown } | null)?.steps).find((s) => s.id === stepId)?.args ?? null;
    out.push({ tool, before: argsIn(e.before) as Record<string, unknown> | null, after: argsIn(e.after) as Record<string, unknown> | null, editedAt: e.createdAt.toISOString() });
  }
  return out;
}
