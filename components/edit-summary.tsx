import type { EditSummary } from "@/lib/diff/edit-summary";
import { displayValue, fieldLabel } from "@/lib/diff/field-display";
import { withVisibleMarkers } from "@/lib/text/hidden-characters";
import { formatInstant } from "@/lib/text/format";
import type { ToolMetaCatalog } from "@/lib/tools/meta-catalog";

/** Longest value shown in the summary; the step card and the audit trail show the whole text. */
const MAX_SHOWN = 80;

/** How many of the latest edits are shown open; earlier ones fold under "N earlier edits". */
const OPEN_EDITS = 3;

const short = (text: string) => withVisibleMarkers(text.length > MAX_SHOWN ? `${text.slice(0, MAX_SHOWN - 1)}…` : text);

const CHANGE_LABEL = { added: "added", removed: "removed", moved: "moved", changed: "changed" } as const;

/**
 * What people changed since the agent's plan (docs/design.md §7 Semantic diff), at the top of the
 * run page so a second reviewer reads a colleague's edit before the steps: per edit who saved it,
 * when and which versions, and per touched step what changed — added, removed, moved (from → to)
 * or each argument before → after — with a link to the step's card when the step is still in the
 * plan. The latest three edits are open, earlier ones fold above them. Renders nothing when nobody
 * edited the plan.
 */
export function EditSummaryPanel({
  edits,
  users,
  viewerId,
  catalog,
  currentStepIds,
}: {
  edits: readonly EditSummary[];
  /** Display names by user id. */
  users: Record<string, string>;
  /** The signed-in person: their own edits read "you". */
  viewerId: string;
  catalog: ToolMetaCatalog;
  /** Ids of the steps of the current plan version: only these are linked. */
  currentStepIds: ReadonlySet<string>;
}) {
  if (edits.length === 0) return null;
  const who = (id: string) => (id === viewerId ? "you" : (users[id] ?? id));
  // the latest edits open; older ones one click away, so the steps stay near the first screen
  const recent = edits.slice(-OPEN_EDITS);
  const earlier = edits.slice(0, -OPEN_EDITS);
  const renderEdit = (e: EditSummary) => (
    <li key={e.version} data-testid="edit-summary-edit">
      <p>
        <span className="font-medium">Edited by {who(e.editorId)}</span> · {formatInstant(e.at)} · version {e.fromVersion} → {e.version}
      </p>
      {e.steps.length === 0 ? (
        <p className="text-fuchsia-900">No step changed.</p>
      ) : (
        <ul className="mt-0.5 space-y-0.5 pl-3">
          {e.steps.map((s) => {
            const tool = catalog.get(s.tool);
            const name = `Step ${s.position ?? s.from} ${tool?.label ?? s.tool}`;
            return (
              <li key={`${s.stepId}:${s.changes.join()}`} data-testid="edit-summary-step">
                {s.position !== null && currentStepIds.has(s.stepId) ? (
                  <a href={`#step-${s.stepId}-title`} className="font-medium text-blue-800 underline">
                    {name}
                  </a>
                ) : (
                  <span className="font-medium">{name}</span>
                )}{" "}
                <span className="rounded bg-fuchsia-700 px-1 text-xs font-semibold uppercase text-white">{s.changes.map((c) => CHANGE_LABEL[c]).join(", ")}</span>
                {s.changes.includes("moved") && s.from !== null && s.position !== null && (
                  <span>
                    {" "}
                    from position {s.from} to {s.position}
                  </span>
                )}
                {s.fields.map((f) => (
                  <span key={f.path} className="block pl-2">
                    {fieldLabel(f.segments, tool?.fields ?? [])}: <del className="text-slate-700">{short(displayValue(f.before))}</del>
                    {" → "}
                    <ins className="font-medium no-underline">{short(displayValue(f.after, f.before))}</ins>
                  </span>
                ))}
              </li>
            );
          })}
        </ul>
      )}
    </li>
  );
  return (
    <section aria-labelledby="edit-summary-h" data-testid="edit-summary" className="rounded-lg border-2 border-fuchsia-600 bg-fuchsia-50 p-3 text-sm text-fuchsia-950">
      <h2 id="edit-summary-h" className="font-semibold">
        Changed since the agent&apos;s plan: {edits.length} {edits.length === 1 ? "edit" : "edits"}
      </h2>
      {earlier.length > 0 && (
        <details className="mt-1">
          <summary className="cursor-pointer font-medium">
            {earlier.length} earlier {earlier.length === 1 ? "edit" : "edits"}
          </summary>
          <ol className="mt-1 space-y-2">{earlier.map(renderEdit)}</ol>
        </details>
      )}
      <ol className="mt-1 space-y-2">{recent.map(renderEdit)}</ol>
    </section>
  );
}
