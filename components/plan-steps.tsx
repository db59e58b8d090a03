import type { DeskSnapshot } from "@/lib/desk/snapshot";
import type { RunStepView } from "@/lib/server/runs";
import { getTool } from "@/lib/tools/catalog";
import type { ValidationIssue } from "@/lib/validation/types";
import { ArgValue } from "./arg-value";
import { EffectBadge, GateBadge } from "./badges";

/** Read-only plan: each step's tool, typed arguments, gate, author and its validation issues. */
export function PlanSteps({
  steps,
  desk,
  issues,
  users,
}: {
  steps: RunStepView[];
  desk: DeskSnapshot;
  issues: ValidationIssue[];
  users: Record<string, string>;
}) {
  return (
    <ol className="space-y-4" aria-label="Plan steps">
      {steps.map((s) => {
        const tool = getTool(s.tool);
        const stepIssues = issues.filter((i) => i.stepId === s.id);
        return (
          <li key={s.id} className="rounded-lg border border-slate-200 bg-white p-4 shadow-sm" aria-labelledby={`step-${s.id}-title`}>
            <div className="flex flex-wrap items-center gap-2">
              <span className="rounded-full bg-slate-900 px-2 py-0.5 text-xs font-semibold text-white">Step {s.position}</span>
              <h3 id={`step-${s.id}-title`} className="font-semibold">
                {tool?.label ?? s.tool} <code className="ml-1 text-xs font-normal text-slate-500">{s.tool}</code>
              </h3>
              {tool && <EffectBadge effect={tool.effect} />}
              <GateBadge gate={s.gate} />
              {s.approval && (
                <span className="rounded bg-slate-100 px-1.5 py-0.5 text-xs text-slate-800">approval {s.approval.state}</span>
              )}
              <span className="ml-auto text-xs text-slate-600">
                {s.author.kind === "model" ? "Proposed by the agent" : `Added or changed by ${users[s.author.userId] ?? s.author.userId}`}
              </span>
            </div>
            <dl className="mt-3 grid grid-cols-1 gap-x-6 gap-y-2 sm:grid-cols-[10rem_1fr]">
              {(tool?.fields ?? Object.keys(s.args).map((name) => ({ name, label: name, kind: "text" as const }))).map((f) => (
                <div key={f.name} className="contents">
                  <dt className="text-sm text-slate-600">{f.label}</dt>
                  <dd className="text-sm">
                    <ArgValue field={f} value={s.args[f.name]} desk={desk} />
                  </dd>
                </div>
              ))}
            </dl>
            {stepIssues.length > 0 && (
              <ul className="mt-3 space-y-1">
                {stepIssues.map((i, n) => (
                  <li
                    key={n}
                    className={`rounded-md px-3 py-1.5 text-sm ${i.severity === "error" ? "bg-red-50 text-red-900" : "bg-amber-50 text-amber-950"}`}
                  >
                    <span className="font-medium">{i.severity === "error" ? "Error" : "Warning"}:</span> {i.message}
                    {i.needsAcknowledgement && <span className="ml-1 text-xs">(the approver must acknowledge this)</span>}
                  </li>
                ))}
              </ul>
            )}
            <p className="mt-2 font-mono text-[11px] text-slate-500" title="SHA-256 of the canonical JSON of {tool, args}">
              digest {s.digest.slice(0, 16)}…
            </p>
          </li>
        );
      })}
    </ol>
  );
}
