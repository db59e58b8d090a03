import type { AccountSnapshot } from "@/lib/desk/snapshot";
import { describeRecord } from "@/lib/desk/lookup";
import { fieldLabel, getReadTool, showObserved } from "@/lib/reads/catalog";
import type { ReadStep } from "@/lib/reads/schema";
import type { ValidationIssue } from "@/lib/validation/types";

/** "invoice in_74121" for a read step (its tool and record), or the tool name when it is not one Plandesk knows. */
function readTarget(r: ReadStep): string {
  const tool = getReadTool(r.tool);
  return tool ? describeRecord(tool.kind, tool.recordId(r.args)) : r.tool;
}

/**
 * What the agent read before proposing its writes, collapsed above the plan's steps: "The agent
 * read: invoice in_74121, shipment sh_5521". Opened, each read shows its status (a failed read is
 * marked: it is no evidence), what the agent says it saw, and — re-read from account data for this
 * page — where the record is different now (the `read_outdated` issues). Read steps need no approval
 * and are never claimed or executed. Renders nothing when the plan carries no reads.
 */
export function ReadSteps({ reads, issues, desk }: { reads: readonly ReadStep[]; issues: readonly ValidationIssue[]; desk: AccountSnapshot }) {
  if (reads.length === 0) return null;
  const moved = reads.filter((r) => issues.some((i) => i.stepId === r.id && i.code === "read_outdated")).length;
  const failed = reads.filter((r) => r.status === "failed").length;
  return (
    <details className="rounded-lg border border-slate-200 bg-slate-50 px-4 py-2 text-sm" data-testid="agent-reads" aria-label="What the agent read">
      <summary className="cursor-pointer select-none">
        <span className="font-medium">The agent read:</span> {reads.map(readTarget).join(", ")}
        {failed > 0 && <span className="ml-2 rounded bg-red-100 px-1.5 text-xs font-medium text-red-900">{failed} failed</span>}
        {moved > 0 && <span className="ml-2 rounded bg-amber-100 px-1.5 text-xs font-medium text-amber-950">{moved} changed since</span>}
        <span className="ml-2 text-xs text-slate-600">(reads need no approval and are never executed)</span>
      </summary>
      <ul className="mt-2 space-y-2">
        {reads.map((r) => {
          const tool = getReadTool(r.tool);
          const mine = issues.filter((i) => i.stepId === r.id && (i.code === "read_outdated" || i.code === "read_other_account"));
          const currency = tool ? tool.observe(desk, tool.recordId(r.args))?.currency : undefined;
          return (
            <li key={r.id} data-testid={`read-${r.id}`} data-status={r.status} className="rounded-md bg-white px-3 py-2 ring-1 ring-slate-200">
              <div className="flex flex-wrap items-center gap-2">
                <code className="text-xs text-slate-500">{r.id}</code>
                <span className="font-medium">{r.title ?? `${tool?.label ?? r.tool} · ${readTarget(r)}`}</span>
                {r.status === "failed" ? (
                  <span className="rounded bg-red-100 px-1.5 text-xs font-medium text-red-900">read failed{r.error ? `: ${r.error}` : ""} — not evidence</span>
                ) : (
                  <span className="rounded bg-emerald-50 px-1.5 text-xs text-emerald-900">read ok</span>
                )}
              </div>
              {r.observed && Object.keys(r.observed).length > 0 && (
                <p className="mt-1 text-xs text-slate-700">
                  The agent saw:{" "}
                  {Object.entries(r.observed)
                    .map(([k, v]) => `${fieldLabel(k)} ${showObserved(k, v, r.observed?.currency ?? currency)}`)
                    .join("; ")}
                </p>
              )}
              {mine.map((i, n) => (
                <p key={n} className="mt-1 rounded bg-amber-50 px-2 py-1 text-xs text-amber-950">
                  {i.message}
                </p>
              ))}
            </li>
          );
        })}
      </ul>
    </details>
  );
}
