import type { AccountSnapshot } from "@/lib/desk/snapshot";
import type { EvidenceRef, StepReasonKey, StepReasons as Reasons } from "@/lib/plan/schema";
import type { ReadStep } from "@/lib/reads/schema";
import { judgeEvidence } from "@/lib/validation/evidence";
import { completenessOf } from "@/lib/validation/completeness";

const FIELD_LABEL: Record<StepReasonKey, string> = { title: "title", rationale: "rationale", evidence: "evidence", risk: "risk", stopCondition: "stop condition" };

/** One evidence reference: the record or read step it names and, from our own data, whether it can carry the write. */
function EvidenceItem({ e, desk, reads }: { e: EvidenceRef; desk: AccountSnapshot; reads: readonly ReadStep[] }) {
  const use = judgeEvidence(e, reads, desk);
  const problem = use.usable ? null : use.why === "not_found" || use.why === "unknown_type" ? "not found in account data" : use.message;
  return (
    <li data-testid="evidence-ref" data-usable={use.usable ? "true" : "false"}>
      {"readStepId" in e ? (
        <>
          read step <code className="font-mono">{e.readStepId}</code>
        </>
      ) : (
        <>
          {e.recordType} <code className="font-mono">{e.recordId}</code>
        </>
      )}
      {e.note && <span className="text-slate-600"> ({e.note})</span>}
      {problem && <span className="text-amber-800"> · {problem}</span>}
    </li>
  );
}

/**
 * What the agent said about a step: how complete its reasons are ("4 of 5 filled", the fields the
 * gate policy requires marked), its rationale, what it relies on (records or read steps, each
 * judged against our own data: not found, another account, a failed read), its risk and its stop
 * condition. The title is shown by the step heading.
 */
export function StepReasons({
  reasons,
  desk,
  stepId,
  required = [],
  reads = [],
}: {
  reasons: Reasons;
  desk: AccountSnapshot;
  stepId: string;
  /** The fields the gate policy requires of this step. */
  required?: readonly StepReasonKey[];
  /** The plan's read steps (evidence may name them). */
  reads?: readonly ReadStep[];
}) {
  const { rationale, evidence, risk, stopCondition } = reasons;
  const c = completenessOf(reasons, required);
  return (
    <div className="mt-3 space-y-1">
      <p className="text-xs text-slate-600" data-testid={`step-completeness-${stepId}`}>
        <span className={c.missingRequired.length ? "font-medium text-red-800" : "font-medium"}>
          {c.filled} of {c.total} filled
        </span>
        {c.fields.some((f) => f.required) && (
          <span>
            {" "}
            · the gate policy requires {c.fields.filter((f) => f.required).map((f) => `${FIELD_LABEL[f.key]}${f.filled ? "" : " (missing)"}`).join(", ")}
          </span>
        )}
      </p>
      {(rationale || evidence?.length || risk || stopCondition) && (
        <dl className="grid grid-cols-1 gap-x-6 gap-y-1 rounded-md bg-slate-50 px-3 py-2 text-sm sm:grid-cols-[10rem_1fr]" aria-label="Why the agent proposes this step" data-testid={`step-reasons-${stepId}`}>
          {rationale && (
            <>
              <dt className="text-slate-600">Why</dt>
              <dd className="whitespace-pre-wrap">{rationale}</dd>
            </>
          )}
          {evidence && evidence.length > 0 && (
            <>
              <dt className="text-slate-600">Relies on</dt>
              <dd>
                <ul className="flex flex-wrap gap-x-3 gap-y-1">
                  {evidence.map((e, i) => (
                    <EvidenceItem key={i} e={e} desk={desk} reads={reads} />
                  ))}
                </ul>
              </dd>
            </>
          )}
          {risk && (
            <>
              <dt className="text-slate-600">Risk</dt>
              <dd className="whitespace-pre-wrap">{risk}</dd>
            </>
          )}
          {stopCondition && (
            <>
              <dt className="text-slate-600">Stop if</dt>
              <dd className="whitespace-pre-wrap">{stopCondition}</dd>
            </>
          )}
        </dl>
      )}
    </div>
  );
}
