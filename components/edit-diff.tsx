import type { AccountSnapshot } from "@/lib/desk/snapshot";
import type { PlanDiff } from "@/lib/diff/plan-diff";
import { REAPPROVAL_REASON_LABEL } from "@/lib/diff/reapproval-labels";
import { displayValue, fieldLabel, isProse, showWhitespace, whitespaceOnlyChange, wordDiff } from "@/lib/diff/field-display";
import { withVisibleMarkers } from "@/lib/text/hidden-characters";
import { getToolMeta } from "@/lib/tools/builtin-meta";
import type { FieldSpec } from "@/lib/tools/types";
import { StepArgList } from "./arg-value";
import { VisibleText } from "./visible-text";

/** A value of a field change for people: money formatted, absent as "(none)", dates in the one date presentation, other JSON as text. */
export function showValue(v: unknown, previous?: unknown): string {
  return displayValue(v, previous);
}

/**
 * Every changed field of one step (docs/design.md §7), labelled from the tool catalog: money with its
 * currency, dates with weekday and shift ("Mon 7 Dec 2026 (+4 days)"), prose with the changed
 * words highlighted (lib/diff/field-display.ts), hidden characters as visible markers on both
 * sides (a direction override is shown, never applied).
 */
export function FieldChanges({ fields, tool, specs }: { fields: PlanDiff["changed"][number]["fields"]; tool?: string; specs?: readonly FieldSpec[] }) {
  const labels = specs ?? (tool ? (getToolMeta(tool)?.fields ?? []) : []);
  return (
    <table className="mt-1 w-full table-fixed text-sm">
      <tbody>
        {fields.map((f) => (
          <tr key={f.path} className="align-top">
            <th scope="row" className="w-32 break-words pr-3 text-left align-top text-xs font-medium text-slate-600" title={f.path}>
              {fieldLabel(f.segments, labels)}
            </th>
            {whitespaceOnlyChange(f.before, f.after) ? (
              <td colSpan={3} className="break-all align-top" data-testid="whitespace-change">
                <span className="mr-2 rounded bg-amber-100 px-1 text-xs font-semibold text-amber-900">Only whitespace or hidden characters changed</span>
                <div className="font-mono text-xs">
                  <del className="text-slate-700 decoration-slate-400">
                    <span className="sr-only">before: </span>
                    {showWhitespace(f.before as string)}
                  </del>
                </div>
                <div className="font-mono text-xs font-medium">
                  <span className="sr-only">after: </span>
                  {showWhitespace(f.after as string)}
                </div>
              </td>
            ) : isProse(f.before, f.after) ? (
              <td colSpan={3} className="break-words">
                {wordDiff(f.before as string, f.after as string).map((p, i) =>
                  p.kind === "same" ? (
                    <VisibleText key={i} text={p.text} />
                  ) : p.kind === "removed" ? (
                    <del key={i} className="bg-red-100 text-red-900 decoration-red-400">
                      <span className="sr-only">removed: </span>
                      {p.text.trim() === "" ? showWhitespace(p.text) : <VisibleText text={p.text} />}
                    </del>
                  ) : (
                    <ins key={i} className="bg-emerald-100 font-medium text-emerald-900 no-underline">
                      <span className="sr-only">added: </span>
                      {p.text.trim() === "" ? showWhitespace(p.text) : <VisibleText text={p.text} />}
                    </ins>
                  ),
                )}
              </td>
            ) : (
              <>
                <td className="break-words pr-2 align-top text-slate-700 line-through decoration-slate-400">{withVisibleMarkers(showValue(f.before))}</td>
                <td aria-hidden="true" className="w-4 align-top">
                  →
                </td>
                <td className="break-words pl-2 align-top font-medium">
                  <span className="sr-only">changed to </span>
                  {/* wraps on a phone ("Mon 7 Dec 2026 (+4 days)" never cut off) */}
                  <span>{withVisibleMarkers(showValue(f.after, f.before))}</span>
                </td>
              </>
            )}
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/**
 * A stored edit's diff, read-only (docs/design.md §7): changed fields before → after, added and
 * removed steps set apart with their arguments, moves, annotations from account data, and the
 * steps that needed re-approval. Positions are 1-based in the post-edit plan (`diff.order`);
 * removed steps are named by tool.
 */
export function EditDiff({ diff, desk, editorName }: { diff: PlanDiff; desk: AccountSnapshot; editorName: string }) {
  const position = (id: string) => diff.order.indexOf(id) + 1;
  const notes = (id: string) => diff.annotations.filter((a) => a.stepId === id);
  const addedIds = new Set(diff.added.map((s) => s.id));
  // the reasons decideReapproval gave (lib/diff/reapproval.ts); older stored diffs have none
  const reasonOf = (id: string) => {
    const r = diff.reapproval?.find((x) => x.stepId === id)?.reasons[0];
    return r ? REAPPROVAL_REASON_LABEL[r] : addedIds.has(id) ? "added" : "changed";
  };
  return (
    <div className="space-y-2 text-sm" data-testid="edit-diff">
      <p className="font-medium">
        {editorName} made {diff.changeCount} {diff.changeCount === 1 ? "change" : "changes"}
      </p>
      <ul className="space-y-2">
        {diff.changed.map((c) => (
          <li key={c.stepId} className="rounded-md border border-sky-200 bg-sky-50/50 p-2">
            <p>
              step {c.position} <code>{c.tool}</code> <span className="ml-1 rounded bg-sky-100 px-1.5 py-0.5 text-xs text-sky-900">changed</span>
            </p>
            <FieldChanges fields={c.fields} tool={c.tool} />
            {notes(c.stepId).map((a, n) => (
              <p key={n} className={`mt-1 ${a.severity !== "info" ? "text-amber-900" : "text-slate-600"}`}>
                note: {a.message}
              </p>
            ))}
          </li>
        ))}
        {diff.added.map((s) => {
          return (
            <li key={s.id} className="rounded-md border-2 border-fuchsia-600 bg-fuchsia-50 p-2">
              <p className="font-semibold">
                + step {position(s.id)} <code>{s.tool}</code>
                <span className="ml-2 rounded bg-fuchsia-700 px-1.5 py-0.5 text-xs font-bold uppercase text-white">added</span>
              </p>
              <StepArgList tool={s.tool} args={s.args} desk={desk} />
              {notes(s.id).map((a, n) => (
                <p key={n} className={`mt-1 ${a.severity !== "info" ? "font-medium text-amber-900" : "text-slate-600"}`}>
                  note: {a.message}
                </p>
              ))}
            </li>
          );
        })}
        {diff.removed.map((s) => {
          return (
            <li key={s.id} className="rounded-md border border-dashed border-red-400 bg-red-50 p-2">
              <p className="font-semibold text-red-900">
                − <code>{s.tool}</code> <span className="ml-1 rounded bg-red-700 px-1.5 py-0.5 text-xs font-bold uppercase text-white">removed</span>
              </p>
              <StepArgList tool={s.tool} args={s.args} desk={desk} className="mt-1 grid grid-cols-[9rem_1fr] gap-y-1 text-red-950/80" valueClassName="line-through decoration-red-300" />
            </li>
          );
        })}
        {diff.moved.map((m) => (
          <li key={m.stepId} className="rounded-md border border-slate-200 p-2">
            <code>{m.tool}</code> moved from position {m.from} to {m.to}
          </li>
        ))}
      </ul>
      {diff.reapprovalRequired.length > 0 && (
        <p className="rounded bg-amber-100 px-2 py-1 text-amber-950">
          Re-approval required for{" "}
          {diff.reapprovalRequired.map((id) => `step ${position(id)} (${reasonOf(id)})`).join(", ")}
        </p>
      )}
    </div>
  );
}
