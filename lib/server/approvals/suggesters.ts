import { digest } from "../../plan/digest";
import type { Step } from "../../plan/schema";
import { prisma } from "../db/db";

/** Suggestions of one run read at most (a run holds a plan of at most 20 steps). */
const MAX_SUGGESTIONS = 200;

/**
 * Who suggested each of `steps` of run `runId` (suggestions, four eyes): the
 * person whose suggestion (accepted, or being accepted; not declined) holds the step's exact tool
 * and arguments (same digest) counts as one of its authors, beside the person who accepted it (the
 * edit's author), so "the author may not approve" holds for both. One indexed query over the
 * run's suggestions (at most 200). Map stepId → [userId].
 */
export async function suggestersOf(runId: string, steps: readonly Pick<Step, "id" | "tool" | "args">[]): Promise<Map<string, string[]>> {
  if (steps.length === 0) return new Map();
  const rows = await prisma.stepSuggestion.findMany({
    where: { runId, state: { not: "declined" } },
    select: { byUserId: true, step: true },
    orderBy: { createdAt: "asc" },
    take: MAX_SUGGESTIONS,
  });
  const byDigest = new Map<string, Set<string>>();
  for (const r of rows) {
    const s = r.step as { tool?: unknown; args?: unknown } | null;
    if (!s || typeof s.tool !== "string") continue;
    const d = digest({ tool: s.tool, args: s.args as Step["args"] });
    byDigest.set(d, (byDigest.get(d) ?? new Set()).add(r.byUserId));
  }
  const out = new Map<string, string[]>();
  for (const step of steps) {
    const who = byDigest.get(digest(step));
    if (who) out.set(step.id, [...who]);
  }
  return out;
}
