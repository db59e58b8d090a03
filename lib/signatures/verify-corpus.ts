import { z } from "zod";
import type { SignatureExport } from "./verify-export";

/**
 * The part of one diff-corpus line (`GET /api/audit/diffs.jsonl`, lib/server/audit/diff-corpus.ts)
 * that an offline check reads: the run, the plans before and after the edit (their versions and
 * steps) and the signed approvals of either plan, each with its stored signature record (the
 * approver's credential id and COSE public key, the assertion). Unknown fields are kept and ignored.
 */
export const corpusLineSchema = z.looseObject({
  runId: z.string(),
  before: z.looseObject({ version: z.number().int(), steps: z.array(z.looseObject({ id: z.string(), tool: z.string(), args: z.unknown() })) }),
  after: z.looseObject({ version: z.number().int(), steps: z.array(z.looseObject({ id: z.string(), tool: z.string(), args: z.unknown() })) }),
  signedApprovals: z
    .array(
      z.looseObject({
        stepId: z.string(),
        planVersion: z.number().int(),
        digest: z.string(),
        approverId: z.string(),
        approverName: z.string().nullable().optional(),
        signature: z.unknown(),
      }),
    )
    .optional(),
});
export type CorpusLine = z.infer<typeof corpusLineSchema>;

/**
 * One corpus line as a run's signature export (lib/signatures/verify-export.ts), so the same
 * offline check applies: each signed approval becomes an `approved` event by its approver carrying
 * its signature, and the line's `before` and `after` plans become the plan versions each digest is
 * recomputed from (a changed amount or digest is caught).
 */
export function corpusLineExport(line: CorpusLine): SignatureExport {
  return {
    run: { id: line.runId },
    events: (line.signedApprovals ?? []).map((a) => ({
      type: "approved",
      actor: { kind: "user", id: a.approverId, ...(a.approverName ? { name: a.approverName } : {}) },
      data: { stepId: a.stepId, planVersion: a.planVersion, digest: a.digest, signature: a.signature },
    })),
    planVersions: [line.before, line.after].map((p) => ({ version: p.version, steps: p.steps.map((s) => ({ id: s.id, tool: s.tool, args: s.args })) })),
  };
}

/**
 * Reads `text` as a diff corpus (JSON Lines: one object per line, blank lines skipped) and returns
 * each line parsed, or the 1-based number of the first line that is not JSON or not a corpus line.
 */
export function parseCorpus(text: string): { lines: CorpusLine[] } | { badLine: number; message: string } {
  const lines: CorpusLine[] = [];
  const raw = text.split("\n");
  for (let i = 0; i < raw.length; i++) {
    if (!raw[i].trim()) continue;
    let value: unknown;
    try {
      value = JSON.parse(raw[i]);
    } catch (e) {
      return { badLine: i + 1, message: e instanceof Error ? e.message : String(e) };
    }
    const parsed = corpusLineSchema.safeParse(value);
    if (!parsed.success) return { badLine: i + 1, message: parsed.error.issues[0]?.message ?? "not a corpus line" };
    lines.push(parsed.data);
  }
  return { lines };
}
