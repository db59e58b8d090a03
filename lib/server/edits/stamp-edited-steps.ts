import { nanoid } from "nanoid";
import { digest } from "../../plan/digest";
import { keepReasons } from "../../plan/reasons";
import type { Plan, Provenance } from "../../plan/schema";

/**
 * Rebuilds the submitted steps the way the server trusts them: author and provenance come from
 * the server, never from the client. A step whose id and tool match a base step with the same
 * digest keeps the base step's author and provenance. A changed step is authored by `editorId`,
 * with `operator` provenance (who, when — `at`, UTC — and the previous value) on each changed
 * top-level argument; unchanged arguments keep their provenance. An added step — a new id, or an
 * existing id with another tool (a new operation, docs/design.md §1) — gets a fresh server id, so it
 * can never inherit an old step's approval or execution. Non-object entries pass through
 * untouched for the shape stage to report. Source: docs/design.md §3 (approval never relabels an origin).
 */
export function stampEditedSteps(raw: unknown[], base: Plan, editorId: string, at: Date): unknown[] {
  const byId = new Map(base.steps.map((s) => [s.id, s] as const));
  const when = at.toISOString();
  return raw.map((entry) => {
    if (typeof entry !== "object" || entry === null || Array.isArray(entry)) return entry;
    const s = entry as Record<string, unknown>;
    const args = (typeof s.args === "object" && s.args !== null && !Array.isArray(s.args) ? s.args : {}) as Record<string, unknown>;
    const prev = typeof s.id === "string" ? byId.get(s.id) : undefined;
    const operator = (previous?: unknown): Provenance =>
      previous === undefined ? { kind: "operator", userId: editorId, at: when } : { kind: "operator", userId: editorId, at: when, previous };
    if (!prev || prev.tool !== s.tool) {
      return {
        ...s,
        id: `st_${nanoid(10)}`,
        author: { kind: "user", userId: editorId },
        provenance: Object.fromEntries(Object.keys(args).map((k) => [k, operator()])),
      };
    }
    let same = false;
    try {
      same = digest({ tool: prev.tool, args }) === digest(prev);
    } catch {
      same = false; // non-JSON args: the shape stage reports them
    }
    if (same) return keepReasons({ ...s, author: prev.author, provenance: prev.provenance ?? {} }, prev);
    const provenance: Record<string, Provenance> = {};
    for (const k of Object.keys(args)) {
      let changed = true;
      try {
        changed = !Object.prototype.hasOwnProperty.call(prev.args, k) || digest({ tool: "", args: args[k] }) !== digest({ tool: "", args: prev.args[k] });
      } catch {
        changed = true;
      }
      const kept = prev.provenance && Object.prototype.hasOwnProperty.call(prev.provenance, k) ? prev.provenance[k] : undefined;
      if (changed) provenance[k] = operator(prev.args[k]);
      else if (kept) provenance[k] = kept;
    }
    return keepReasons({ ...s, author: { kind: "user", userId: editorId }, provenance }, prev);
  });
}
