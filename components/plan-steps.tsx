import type { AccountSnapshot } from "@/lib/desk/snapshot";
import type { RunStepView } from "@/lib/server/plans/run-view";
import { builtinMetaCatalog, type ToolMetaCatalog } from "@/lib/tools/meta-catalog";
import type { ValidationIssue } from "@/lib/validation/types";
import { ArgValue } from "./arg-value";
import { EffectBadge, GateBadge } from "./badges";
import { authorLabel } from "@/lib/audit/describe";
import { ProvenanceBadge } from "./provenance-badge";
import { StepReasons } from "./step-reasons";
import type { ReadStep } from "@/lib/reads/schema";
import { valueAt, verifyProvenance } from "@/lib/validation/provenance-check";
import { argIsUntrusted, copiedSpans, untrustedArgs, UNTRUSTED_AUTHORITY_CODE, UNTRUSTED_TEXT_CODE } from "@/lib/queue/risk";

/** Warnings about untrusted text: shown in the risk callout's red, never the pale amber of a missing rationale. */
const UNTRUSTED_CODES: readonly string[] = [UNTRUSTED_TEXT_CODE, UNTRUSTED_AUTHORITY_CODE];
import { AfterThisStep } from "./step-effects";
import type { StepEffect } from "@/lib/effects/schema";
import { withVisibleMarkers } from "@/lib/text/hidden-characters";

/**
 * "approved by Sam Senior" (· claimed / consumed) for a person's approval, "approval invalidated"
 * etc. for one that no longer consents; null for a policy approval that consents (the gate badge
 * already says "Auto-approved by policy").
 */
function approvalLabel(a: NonNullable<RunStepView["approval"]>, users: Record<string, string>): string | null {
  const consented = a.state === "active" || a.state === "claimed" || a.state === "consumed";
  if (!consented) return `approval ${a.state}`;
  if (!a.approverId) return null;
  const by = `approved by ${users[a.approverId] ?? a.approverId}`;
  return a.state === "active" ? by : `${by} · ${a.state}`;
}

/**
 * Read-only plan: each step's tool, typed arguments, gate, author ("Proposed by the agent",
 * "Added by <name>", "Changed by <name>"), the origin of every argument — checked against live
 * account data and the task text: "checked", "unverified" or the mismatch — with the text it
 * copied word for word from untrusted task text marked, and its validation issues. Origins come from the stored step only; an approval never relabels them.
 */
export function PlanSteps({
  steps,
  desk,
  issues,
  users,
  catalog = builtinMetaCatalog,
  effects,
  reads = [],
  taskText,
}: {
  /** The plan's read steps: evidence may name them. */
  reads?: readonly ReadStep[];
  /** The task's live text: quotes are checked against it (absent: quotes show "unverified"). */
  taskText?: string;
  /** The effects preview per step: an "After this step" panel under each step that has one. */
  effects?: StepEffect[];
  /** The run's catalog, for imported tools (default: built-in tools). */
  catalog?: ToolMetaCatalog;
  steps: RunStepView[];
  desk: AccountSnapshot;
  issues: ValidationIssue[];
  users: Record<string, string>;
}) {
  return (
    <ol className="space-y-4" aria-label="Plan steps">
      {steps.map((s) => {
        const tool = catalog.get(s.tool);
        const stepIssues = issues.filter((i) => i.stepId === s.id);
        const untrusted = untrustedArgs(issues, s.id);
        return (
          <li key={s.id} data-step-position={s.position} className="rounded-lg border border-slate-200 bg-white p-4 shadow-sm" aria-labelledby={`step-${s.id}-title`}>
            <div className="flex flex-wrap items-center gap-2">
              <span className="rounded-full bg-slate-900 px-2 py-0.5 text-xs font-semibold text-white">Step {s.position}</span>
              <h3 id={`step-${s.id}-title`} className="font-semibold">
                {s.title ? (
                  <>
                    {s.title} <span className="text-sm font-normal text-slate-600">· {tool?.label ?? s.tool}</span>
                  </>
                ) : (
                  (tool?.label ?? s.tool)
                )}{" "}
                <code className="ml-1 text-xs font-normal text-slate-500">{s.tool}</code>
              </h3>
              {tool && <EffectBadge effect={tool.effect} />}
              {/* a step a person approved says so once, never "Needs approval" next to "approved by …" */}
              {s.approval && s.approval.approverId && ["active", "claimed", "consumed"].includes(s.approval.state) ? null : <GateBadge gate={s.gate} />}
              {s.approval && approvalLabel(s.approval, users) && (
                <span className="rounded bg-emerald-50 px-1.5 py-0.5 text-xs text-emerald-900 ring-1 ring-emerald-200">{approvalLabel(s.approval, users)}</span>
              )}
              {s.execution && (
                <span
                  className={`rounded px-1.5 py-0.5 text-xs font-medium ${
                    s.execution.status === "succeeded" ? "bg-emerald-100 text-emerald-900" : s.execution.status === "failed" ? "bg-red-100 text-red-900" : "bg-slate-100 text-slate-800"
                  }`}
                >
                  executor: {s.execution.status}
                </span>
              )}
              <span
                data-testid="step-author"
                className={`ml-auto text-xs ${s.author.kind === "model" ? "text-slate-600" : "rounded bg-fuchsia-100 px-1.5 py-0.5 font-medium text-fuchsia-950"}`}
              >
                {authorLabel(s.author, s.provenance, users)}
              </span>
            </div>
            <dl className="mt-3 grid grid-cols-1 gap-x-6 gap-y-2 sm:grid-cols-[10rem_1fr]">
              {(tool?.fields ?? Object.keys(s.args).map((name) => ({ name, label: name, kind: "text" as const }))).map((f) => (
                <div key={f.name} className="contents">
                  <dt className="text-sm text-slate-600">{f.label}</dt>
                  <dd className="flex flex-wrap items-baseline gap-x-2 gap-y-1 text-sm">
                    <ArgValue field={f} value={s.args[f.name]} desk={desk} copied={argIsUntrusted(untrusted, f.name) ? copiedSpans(issues, s.id, f.name) : undefined} />
                    {(s.provenance?.[f.name] ||
                      (s.args[f.name] !== undefined && !Object.keys(s.provenance ?? {}).some((k) => k.startsWith(`${f.name}.`)))) && (
                      <ProvenanceBadge
                        provenance={s.provenance?.[f.name]}
                        users={users}
                        field={f}
                        desk={desk}
                        value={s.args[f.name]}
                        check={s.provenance?.[f.name] ? verifyProvenance(s.provenance[f.name], s.args[f.name], { desk, taskText }) : null}
                        untrusted={argIsUntrusted(untrusted, f.name)}
                      />
                    )}
                    {Object.entries(s.provenance ?? {})
                      .filter(([k]) => k.startsWith(`${f.name}.`))
                      .map(([k, p]) => (
                        <ProvenanceBadge
                          key={k}
                          provenance={p}
                          users={users}
                          subPath={k.slice(f.name.length + 1)}
                          check={verifyProvenance(p, valueAt(s.args, k), { desk, taskText })}
                          untrusted={argIsUntrusted(untrusted, k)}
                        />
                      ))}
                  </dd>
                </div>
              ))}
            </dl>
            <StepReasons reasons={s} desk={desk} stepId={s.id} required={s.requiredFields ?? []} reads={reads} />
            {effects && <AfterThisStep effect={effects.find((e) => e.stepId === s.id)} />}
            {stepIssues.length > 0 && (
              <ul className="mt-3 space-y-1">
                {stepIssues.map((i, n) => (
                  <li
                    key={n}
                    className={`rounded-md px-3 py-1.5 text-sm ${
                      i.severity === "error" ? "bg-red-50 text-red-900" : UNTRUSTED_CODES.includes(i.code) ? "border border-red-700 bg-red-50 text-red-950" : "bg-amber-50 text-amber-950"
                    }`}
                  >
                    <span className="font-medium">{i.severity === "error" ? "Error" : "Warning"}:</span> {withVisibleMarkers(i.message)}
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
