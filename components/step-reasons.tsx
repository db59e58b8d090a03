import type { AccountSnapshot } from "@/lib/desk/snapshot";
import { findRecord, type RecordKind } from "@/lib/desk/lookup";
import type { StepReasons as Reasons } from "@/lib/plan/schema";

const KINDS: readonly RecordKind[] = ["invoice", "shipment", "ticket", "account"];

/** True when an evidence reference resolves in account data (same rule as the validator's `unverified_evidence`). */
function evidenceFound(desk: AccountSnapshot, recordType: string, recordId: string): boolean {
  const kind = KINDS.find((k) => k === recordType);
  return kind !== undefined && findRecord(desk, kind, recordId) !== undefined;
}

/**
 * What the agent said about a step (issue #15): its rationale, the records it relies on (each
 * marked "not found" when account data does not have it), its risk and its stop condition.
 * Renders nothing when the step carries none of them. The title is shown by the step heading.
 */
export function StepReasons({ reasons, desk, stepId }: { reasons: Reasons; desk: AccountSnapshot; stepId: string }) {
  const { rationale, evidence, risk, stopCondition } = reasons;
  if (!rationale && !evidence?.length && !risk && !stopCondition) return null;
  return (
    <dl className="mt-3 grid grid-cols-1 gap-x-6 gap-y-1 rounded-md bg-slate-50 px-3 py-2 text-sm sm:grid-cols-[10rem_1fr]" aria-label="Why the agent proposes this step" data-testid={`step-reasons-${stepId}`}>
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
                <li key={i}>
                  {e.recordType} <code className="font-mono">{e.recordId}</code>
                  {e.note && <span className="text-slate-600"> ({e.note})</span>}
                  {!evidenceFound(desk, e.recordType, e.recordId) && <span className="text-amber-800"> · not found in account data</span>}
                </li>
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
  );
}
