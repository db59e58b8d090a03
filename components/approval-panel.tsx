"use client";

import { CharacterCount } from "./character-count";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useCallback, useEffect, useRef, useState } from "react";
import { startAuthentication, type PublicKeyCredentialRequestOptionsJSON } from "@simplewebauthn/browser";
import { ApiError, apiFetch, newIdempotencyKey } from "@/lib/client/api";
import { checkGrant, type Grant } from "@/lib/people/grants";
import { formatMoney } from "@/lib/money/format-money";
import type { ConcurrentRun, RunStepView } from "@/lib/api/schemas";
import { statusLabel } from "@/lib/text/format";
import { getToolMeta } from "@/lib/tools/builtin-meta";
import { moneyOf } from "@/lib/tools/tool-meta";
import type { ValidationIssue } from "@/lib/validation/types";
import { focusHeading, trapTab, useShortcut } from "./keyboard-shortcuts";
import { useOpenNext } from "./use-open-next";
import { toast } from "./toaster";
import { DecisionBar } from "./decision-bar";
import { ParkControls } from "./park-controls";
import { moneyOutByCurrency, OTHER_ACCOUNT_CODES, UNTRUSTED_AUTHORITY_CODE } from "@/lib/queue/risk";
import type { Money } from "@/lib/money/format-money";
import { withVisibleMarkers } from "@/lib/text/hidden-characters";
import { approveAllText } from "@/lib/text/approve-all-text";
import type { AccountSnapshot } from "@/lib/desk/snapshot";
import { StaleWarning } from "./sync-age";
import { useHydrated } from "./use-hydrated";

/** Why this person may not approve `step`, or null (docs/design.md §1.7; grants with ceilings). */
export function approveBlock(grants: Grant[], step: Pick<RunStepView, "tool" | "args">): string | null {
  const amount = moneyOf(getToolMeta(step.tool), step.args);
  const denial = checkGrant(grants, "approve", step.tool, amount);
  if (!denial) return null;
  if (denial.code === "no_grant") return `needs a grant to approve ${step.tool}`;
  return `needs ${step.tool} approval grant above ${formatMoney(denial.limit)}`;
}

/** True when `step` has its full set of active approvals (four eyes: "2 of 2"). */
export function stepComplete(step: Pick<RunStepView, "approval" | "approvals">): boolean {
  // Claimed (being written) or consumed (written) under its approval: decided, whatever happens next.
  if (step.approval?.state === "claimed" || step.approval?.state === "consumed") return true;
  return step.approval?.state === "active" && (step.approvals?.given ?? 1) >= (step.approvals?.required ?? 1);
}

/**
 * Why `viewerId` may not be (another) approver of `step` under four eyes, or null:
 * they already approved it, or they authored it and the governing rule excludes authors.
 */
export function fourEyesBlock(step: Pick<RunStepView, "approvals" | "author" | "provenance">, viewerId: string | undefined): string | null {
  if (!viewerId || !step.approvals) return null;
  if (step.approvals.approverIds.includes(viewerId)) return "you already approved this step; it needs another person";
  const authors = new Set<string>();
  if (step.author.kind === "user") authors.add(step.author.userId);
  for (const p of Object.values(step.provenance ?? {})) if (p.kind === "operator") authors.add(p.userId);
  if (!step.approvals.authorMayApprove && authors.has(viewerId)) return "you authored this step; the gate policy needs other people to approve it";
  return null;
}

/** "1 of 2 approvals · needs one more approver other than Sam Senior", or null for a one-approver step. */
export function approvalProgressText(step: Pick<RunStepView, "approvals">, users: Record<string, string>): string | null {
  const a = step.approvals;
  if (!a || a.required < 2) return null;
  const names = a.approverIds.map((id) => users[id] ?? id);
  const missing = Math.max(0, a.required - a.given);
  const head = `${Math.min(a.given, a.required)} of ${a.required} approvals`;
  if (missing === 0) return `${head} · ${names.join(" and ")}`;
  const who = missing === 1 ? "one more approver" : `${missing} more approvers`;
  return names.length ? `${head} · needs ${who} other than ${names.join(" and ")}` : `${head} · needs ${who}${a.authorMayApprove ? "" : " (not its author)"}`;
}

/** What `POST /api/runs/{runId}/signature-challenges` answers that the card uses (lib/server/signatures/signature-challenge.ts). */
interface SignatureChallenge {
  nonce: string;
  covers: string;
  options: PublicKeyCredentialRequestOptionsJSON;
}

/**
 * The authenticator did not sign (the person cancelled, the time ran out, no passkey of theirs is
 * on this device): a refusal of the browser, shown in the panel like the server's, code
 * `signature_cancelled`. Nothing was sent for approval.
 */
export class SigningCancelled extends Error {
  readonly code = "signature_cancelled";
}

/**
 * Signs the approval of `signed` (steps whose gate rule requires the approver's signature) of run
 * `runId` at `planVersion`: asks the server for a single-use challenge, hands its words to
 * `onCovers` (the card shows them before the authenticator asks), then asks the authenticator with
 * @simplewebauthn/browser `startAuthentication` (user verification required by the options).
 * Returns the approval body's `signature` {nonce, response}. Errors: the challenge's `ApiError`
 * (e.g. 403 `signature_required` without a passkey, 409 `stale_plan_version`); `SigningCancelled`.
 */
export async function signApproval(runId: string, planVersion: number, signed: string[], onCovers: (covers: string) => void) {
  const c = await apiFetch<SignatureChallenge>(`/api/runs/${runId}/signature-challenges`, { method: "POST", body: { planVersion, stepIds: signed } });
  onCovers(c.covers);
  try {
    const response = await startAuthentication({ optionsJSON: c.options });
    return { nonce: c.nonce, response };
  } catch (e) {
    throw new SigningCancelled(
      `Your passkey did not sign (${e instanceof Error ? e.message : String(e)}). Nothing was approved; approve again to sign.`,
    );
  }
}

/** The signature refusals by code, with the words the panel puts before the server's message. */
const SIGNATURE_REFUSALS = new Map<string, string>([
  ["signature_required", "Signature required"],
  ["signature_mismatch", "Signature does not match"],
  ["signature_replayed", "Signature already used"],
  ["signature_cancelled", "Not signed"],
]);

/** The most characters a rejection reason may hold (lib/api/bodies.ts `rejectBody`). */
export const REJECT_REASON_MAX = 2000;


/**
 * Approve and reject controls for the current plan version. Buttons a person cannot use stay
 * visible, disabled, with the reason. Warnings that need acknowledgement are checkboxes next to
 * the step they concern; another plan for the task being executed (`concurrentRuns`) is said at
 * the top of the card with its own checkbox, and approving needs it ticked (the server refuses
 * `concurrent_run_unacknowledged` otherwise). Each click carries a fresh idempotency key, so a
 * double click approves once.
 */
export function ApprovalPanel({
  runId,
  planVersion,
  steps,
  issues,
  grants,
  blockedReason,
  canReject = true,
  approveAllLabel,
  viewerId,
  users = {},
  decideAgain = null,
  desk,
  concurrentRuns = [],
}: {
  runId: string;
  planVersion: number;
  steps: RunStepView[];
  issues: ValidationIssue[];
  grants: Grant[];
  blockedReason: string | null;
  /** Reject stays possible when only approval is blocked (e.g. the task changed). */
  canReject?: boolean;
  approveAllLabel?: string;
  /** The signed-in person (four eyes: a second approval must be someone else's). */
  viewerId?: string;
  /** Names of people by user id (who approved so far). */
  users?: Record<string, string>;
  /**
   * A run that needs a new decision: the blocked step (`run.decisionReason.stepId`). While its
   * approvals stand, approving it again is this person's decision on it (checked against live data).
   */
  decideAgain?: string | null;
  /** The account records the page has (with their sync): a step whose target is older than its bound is flagged before approving. */
  desk?: AccountSnapshot;
  /** Other runs of this task being executed now (run details' `concurrentRuns`): approving needs them acknowledged. */
  concurrentRuns?: ConcurrentRun[];
}) {
  const qc = useQueryClient();
  const [acks, setAcks] = useState<Record<string, boolean>>({});
  const [reason, setReason] = useState("");
  const [showReject, setShowReject] = useState(false);
  const again = decideAgain ? steps.find((s) => s.id === decideAgain && stepComplete(s) && s.approval?.state === "active") : undefined;
  const pending = again ? [again] : steps.filter((s) => !stepComplete(s) && !fourEyesBlock(s, viewerId));
  const allLabel = approveAllLabel ?? approveAllText(pending, steps.length, !!again);
  const ackIssues = issues.filter((i) => i.needsAcknowledgement && i.stepId && pending.some((s) => s.id === i.stepId));
  // A customer's words behind money or a commitment are acknowledged first, at the top of the decision
  // in the risk callout's red; the step's other warnings stay with the step.
  const topAcks = ackIssues.filter((i) => i.code === UNTRUSTED_AUTHORITY_CODE);
  const ackKey = (i: ValidationIssue) => `${i.code}:${i.stepId}:${i.message}`;
  /** Warnings a decision approving `approving` must acknowledge: a promise whose backing step is approved in the same decision needs none. */
  const unacknowledged = (approving: string[]) =>
    ackIssues.filter((i) => {
      if (!approving.includes(i.stepId!) || acks[ackKey(i)]) return false;
      const backedBy = i.details?.backedBy;
      return !(Array.isArray(backedBy) && backedBy.some((b) => approving.includes(b as string)));
    });

  /** Another plan for the task being executed, acknowledged per run id (a run that starts executing later needs its own tick). */
  const runAckKey = (r: ConcurrentRun) => `run:${r.id}`;
  const unackedRuns = concurrentRuns.filter((r) => !acks[runAckKey(r)]);

  // What the passkey signs, in words (the challenge's `covers`), shown on the card from the moment the
  // challenge arrives until the decision succeeds; kept after a refusal so the person sees what was signed.
  const [covers, setCovers] = useState<string | null>(null);
  const approve = useMutation({
    mutationFn: async ({ stepIds, key, alsoAcknowledged = [], alsoAcknowledgedRuns = [] }: { stepIds: string[] | "all"; key: string; alsoAcknowledged?: ValidationIssue[]; alsoAcknowledgedRuns?: ConcurrentRun[]; thenNext?: boolean }) => {
      const acknowledgedConcurrentRuns = concurrentRuns.filter((r) => acks[runAckKey(r)] || alsoAcknowledgedRuns.includes(r)).map((r) => r.id);
      // steps whose gate rule requires the approver's signature are signed first (nothing else changes for the others)
      const approving = stepIds === "all" ? pending : steps.filter((s) => stepIds.includes(s.id));
      const signed = approving.filter((s) => s.requireSignature).map((s) => s.id);
      const signature = signed.length ? await signApproval(runId, planVersion, signed, setCovers) : undefined;
      return apiFetch<{ added?: number; alreadyApproved?: string[]; approvedAgain?: string[] }>(`/api/runs/${runId}/approvals`, {
        method: "POST",
        body: {
          planVersion,
          stepIds,
          idempotencyKey: key,
          acknowledgedWarnings: ackIssues.filter((i) => acks[ackKey(i)] || alsoAcknowledged.includes(i)).map((i) => ({ code: i.code, stepId: i.stepId! })),
          ...(acknowledgedConcurrentRuns.length ? { acknowledgedConcurrentRuns } : {}),
          ...(signature ? { signature } : {}),
        },
      });
    },
    onSuccess: async (r, vars) => {
      const already = (r.alreadyApproved ?? []).map((id) => steps.find((s) => s.id === id)?.position).filter((p): p is number => p !== undefined);
      if (r.approvedAgain?.length) toast("Approved again: the executor may claim it now.");
      else if (r.added === 0)
        toast(already.length ? `Step ${already.join(", ")} ${already.length === 1 ? "was" : "were"} already approved; nothing was added.` : "Everything was already approved; nothing was added.");
      else toast("Approved.");
      setCovers(null);
      qc.invalidateQueries({ queryKey: ["queue"] });
      qc.invalidateQueries({ queryKey: ["ownership", runId] }); // "who acts next" names the deciders still needed
      await qc.invalidateQueries({ queryKey: ["run", runId] });
      if (vars.thenNext) await openNext();
      else focusHeading("decide-h", "review-h");
    },
    // a refusal is shown once, in the panel (role=alert); a toast only when there is nothing to show there
    onError: (e) => {
      if (!(e instanceof ApiError) && !(e instanceof SigningCancelled)) toast("The approval failed; nothing was approved.", "error");
      // another plan began executing since the page loaded: show it (with its checkbox) now
      else if (e.code === "concurrent_run_unacknowledged") void qc.invalidateQueries({ queryKey: ["run", runId] });
    },
  });
  const reject = useMutation({
    mutationFn: (_vars: { thenNext: boolean }) => apiFetch(`/api/runs/${runId}/rejections`, { method: "POST", body: { planVersion, reason } }),
    onSuccess: async (_data, vars) => {
      toast("Rejected; the agent will read your reason.");
      setShowReject(false);
      qc.invalidateQueries({ queryKey: ["queue"] });
      qc.invalidateQueries({ queryKey: ["ownership", runId] });
      await qc.invalidateQueries({ queryKey: ["run", runId] });
      if (vars.thenNext) await openNext();
      else focusHeading();
    },
    onError: (e) => {
      if (!(e instanceof ApiError)) toast("The rejection failed.", "error");
    },
  });
  const [reasonTouched, setReasonTouched] = useState(false);
  // plain words, checked before sending; the server's message clears as soon as the text changes
  const reasonProblem =
    reason.trim().length < 3 ? "Write a reason of at least 3 characters: the agent reads it to plan again." : reason.length > REJECT_REASON_MAX ? `The reason is ${reason.length.toLocaleString("en-US")} characters; shorten it to ${REJECT_REASON_MAX.toLocaleString("en-US")}.` : null;
  const serverReasonError =
    reject.error instanceof ApiError ? ((reject.error.details.issues as { message: string }[] | undefined)?.[0]?.message ?? reject.error.message) : null;
  const reasonMessage = (reasonTouched ? reasonProblem : null) ?? serverReasonError;

  const busy = approve.isPending || reject.isPending;
  /** Sends the rejection when the reason is fit to send (else shows why); `thenNext` opens the next waiting run after it. */
  const submitReject = (thenNext: boolean) => {
    setReasonTouched(true);
    if (reasonProblem || busy) return;
    reject.mutate({ thenNext });
  };
  // a press before hydration would do nothing: the buttons wait for it
  const hydrated = useHydrated();
  const stepBlock = (s: RunStepView) => blockedReason ?? fourEyesBlock(s, viewerId) ?? approveBlock(grants, s);
  const missingAck = (s: RunStepView) => unacknowledged([s.id]).length > 0 || unackedRuns.length > 0;
  const allBlock =
    blockedReason ??
    (pending.length === 0 ? (steps.every(stepComplete) ? "every step is already approved" : "the remaining approvals must come from other people") : null) ??
    pending.map((s) => approveBlock(grants, s)).find(Boolean) ??
    (unackedRuns.length ? "acknowledge the other plan being executed first" : null) ??
    (unacknowledged(pending.map((s) => s.id)).length ? "acknowledge the warnings above first" : null);

  // ── keyboard: a approves what the approve-all button approves, with the same
  // acknowledgements (asked for in a dialog that opens on Cancel, confirmed by Alt+A or Shift+Tab
  // then Enter); Shift+A then opens the next
  // waiting run; r opens the rejection with focus in the reason.
  const [confirming, setConfirming] = useState<{ thenNext: boolean; warnings: ValidationIssue[]; runs: ConcurrentRun[] } | null>(null);
  const confirmRef = useRef<HTMLDialogElement>(null);
  const cancelRef = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    if (confirming && confirmRef.current && !confirmRef.current.open) {
      confirmRef.current.showModal();
      cancelRef.current?.focus(); // the safe choice has the focus
    }
  }, [confirming]);
  const openNext = useOpenNext(runId);
  const approveOnScreen = (thenNext: boolean) => {
    if (busy) return;
    if (pending.length === 0 && !blockedReason) {
      if (thenNext) void openNext();
      else toast("Every step is already approved.");
      return;
    }
    const refusal = blockedReason ?? pending.map((s) => approveBlock(grants, s)).find(Boolean);
    if (refusal) {
      toast(`Not approved: ${refusal}.`, "error");
      return;
    }
    const warnings = unacknowledged(pending.map((s) => s.id));
    if (warnings.length > 0 || unackedRuns.length > 0) setConfirming({ thenNext, warnings, runs: unackedRuns });
    else approve.mutate({ stepIds: "all", key: newIdempotencyKey(), thenNext });
  };
  useShortcut("approve", () => approveOnScreen(false));
  useShortcut("approveNext", () => approveOnScreen(true));
  const [focusReason, setFocusReason] = useState(0);
  useShortcut("reject", () => {
    if (!canReject || busy) {
      toast(blockedReason ? `Cannot reject: ${blockedReason}` : "Cannot reject now.", "error");
      return;
    }
    setShowReject(true);
    setFocusReason((n) => n + 1);
  });
  const reasonRef = useCallback((el: HTMLTextAreaElement | null) => el?.focus(), []);

  return (
    <section aria-labelledby="decide-h" className="rounded-lg border border-slate-200 bg-white p-4">
      <h2 id="decide-h" tabIndex={-1} className="font-semibold">
        Decision
      </h2>
      {blockedReason && (
        <p className="mt-2 rounded-md bg-slate-100 px-3 py-2 text-sm text-slate-800" role="note">
          {blockedReason}
        </p>
      )}
      {concurrentRuns.length > 0 && (
        <ConcurrentRunsNotice
          runs={concurrentRuns}
          acknowledged={unackedRuns.length === 0}
          disabled={!hydrated}
          onAcknowledge={blockedReason ? undefined : (checked) => setAcks((a) => ({ ...a, ...Object.fromEntries(concurrentRuns.map((r) => [runAckKey(r), checked])) }))}
        />
      )}
      {topAcks.length > 0 && (
        <div data-testid="untrusted-acks" className="mt-2 space-y-2 rounded-md border-2 border-red-700 bg-red-50 p-2 text-red-950">
          <p className="text-sm font-semibold">Untrusted text stands behind {topAcks.length === 1 ? "a step" : `${topAcks.length} steps`}: confirm from the account data</p>
          {topAcks.map((i) => (
            <label key={ackKey(i)} className="flex items-start gap-2 text-xs">
              <input type="checkbox" checked={!!acks[ackKey(i)]} onChange={(e) => setAcks((a) => ({ ...a, [ackKey(i)]: e.target.checked }))} className="mt-0.5" />
              <span>
                <span className="font-semibold">Step {steps.find((s) => s.id === i.stepId)?.position}:</span> I acknowledge: {withVisibleMarkers(i.message)}
              </span>
            </label>
          ))}
        </div>
      )}
      {covers && (
        <p data-testid="signature-covers" className="mt-2 rounded-md border-2 border-indigo-700 bg-indigo-50 px-3 py-2 text-sm break-words text-indigo-950">
          {covers}
        </p>
      )}
      {(approve.error instanceof ApiError || approve.error instanceof SigningCancelled) && (
        <p role="alert" data-testid="approve-refusal" data-code={approve.error.code} className="mt-2 rounded-md border border-red-300 bg-red-50 px-3 py-2 text-sm text-red-900">
          {SIGNATURE_REFUSALS.has(approve.error.code) && <span className="font-semibold">{SIGNATURE_REFUSALS.get(approve.error.code)}: </span>}
          {approve.error.message}
        </p>
      )}
      <ul className="mt-3 space-y-3">
        {steps.map((s) => {
          const block = stepBlock(s);
          const approved = stepComplete(s);
          const progress = approvalProgressText(s, users);
          const stepAcks = ackIssues.filter((i) => i.stepId === s.id && i.code !== UNTRUSTED_AUTHORITY_CODE);
          const tool = getToolMeta(s.tool);
          return (
            <li key={s.id} className="border-t border-slate-100 pt-2 text-sm">
              <div className="flex flex-wrap items-center gap-2">
                <span className="font-medium">
                  Step {s.position} · {tool?.label ?? s.tool}
                </span>
                {approved ? (
                  <span className="rounded bg-emerald-100 px-1.5 py-0.5 text-xs text-emerald-900">{s.approval?.approverId ? "approved" : "auto-approved by policy"}</span>
                ) : allLabel === `Approve step ${s.position}` ? (
                  // one button per name: the decision bar's button already approves exactly this step
                  <span className="ml-auto text-xs text-slate-600">approve it in the decision bar</span>
                ) : (
                  <button
                    type="button"
                    disabled={!hydrated || !!block || busy || missingAck(s)}
                    title={block ?? (missingAck(s) ? "acknowledge the warning first" : undefined)}
                    aria-describedby={block ? `why-${s.id}` : undefined}
                    onClick={() => approve.mutate({ stepIds: [s.id], key: newIdempotencyKey() })}
                    className="ml-auto rounded-md border border-emerald-700 px-2.5 py-1 text-xs font-medium text-emerald-800 hover:bg-emerald-50 disabled:cursor-not-allowed disabled:border-slate-300 disabled:text-slate-500"
                  >
                    Approve step {s.position}
                  </button>
                )}
              </div>
              {!approved && <StaleWarning step={s} desk={desk} />}
              {!approved && s.requireSignature && (
                <p className="mt-1 text-xs text-indigo-900" data-testid={`requires-signature-${s.id}`}>
                  Signed approval: approving asks your passkey to sign this run, this plan version and this step exactly as shown.
                </p>
              )}
              {progress && (
                <p className="mt-1 text-xs text-slate-700" data-testid={`approval-progress-${s.id}`}>
                  {progress}
                </p>
              )}
              {!approved && block && !blockedReason && (
                <p id={`why-${s.id}`} className="mt-1 text-xs text-slate-600">
                  Disabled: {block}
                </p>
              )}
              {stepAcks.map((i) => (
                <label key={ackKey(i)} className="mt-1 flex items-start gap-2 rounded bg-amber-50 p-2 text-xs text-amber-950">
                  <input type="checkbox" checked={!!acks[ackKey(i)]} onChange={(e) => setAcks((a) => ({ ...a, [ackKey(i)]: e.target.checked }))} className="mt-0.5" />
                  <span>
                    I acknowledge: {withVisibleMarkers(i.message)}
                  </span>
                </label>
              ))}
            </li>
          );
        })}
      </ul>
      <DecisionBar summary={<DecisionSummary steps={steps} pending={pending} issues={issues} allBlock={allBlock} blockedReason={blockedReason} allLabel={allLabel} />}>
        <button
          type="button"
          disabled={!hydrated || !!allBlock || busy}
          data-testid="approve-all"
          aria-keyshortcuts="a Shift+A"
          onClick={() => approve.mutate({ stepIds: "all", key: newIdempotencyKey() })}
          className="rounded-md bg-emerald-700 px-3 py-2 text-sm font-medium text-white hover:bg-emerald-800 disabled:cursor-not-allowed disabled:bg-slate-300 disabled:text-slate-700"
        >
          {approve.isPending ? "Approving…" : allLabel}
        </button>
        <button
          type="button"
          disabled={!hydrated || !canReject || busy}
          onClick={() => {
            setShowReject((v) => !v);
            setFocusReason((n) => n + 1);
          }}
          aria-keyshortcuts="r"
          className="rounded-md border border-red-400 bg-white px-3 py-2 text-sm font-medium text-red-800 hover:bg-red-50 disabled:cursor-not-allowed disabled:opacity-50"
        >
          Reject…
        </button>
        <ParkControls runId={runId} disabled={!hydrated || busy || !!blockedReason} />
      </DecisionBar>
      <p className="mt-2 text-xs text-slate-600">
        Keys: <kbd className="font-mono">a</kbd> approve · <kbd className="font-mono">Shift+A</kbd> approve &amp; next · <kbd className="font-mono">r</kbd> reject · <kbd className="font-mono">h</kbd> hand off · <kbd className="font-mono">n</kbd> skip · <kbd className="font-mono">z</kbd> snooze ·{" "}
        <kbd className="font-mono">?</kbd> all shortcuts
      </p>
      {confirming && (
        <dialog
          ref={confirmRef}
          aria-labelledby="confirm-approve-h"
          onKeyDown={(e) => {
            // Alt+A confirms (a deliberate chord: a held or doubled `a` never does, nor one Enter)
            if (e.altKey && !e.ctrlKey && !e.metaKey && !e.repeat && e.code === "KeyA") {
              e.preventDefault();
              e.currentTarget.querySelector("form")?.requestSubmit();
              return;
            }
            trapTab(e);
          }}
          onClose={() => {
            setConfirming(null);
            focusHeading("decide-h");
          }}
          className="m-auto w-[min(34rem,calc(100vw-2rem))] rounded-lg border border-slate-200 bg-white p-5 text-slate-900 shadow-xl backdrop:bg-black/60"
        >
          <form
            method="dialog"
            onSubmit={(e) => {
              e.preventDefault();
              const c = confirming;
              setAcks((a) => ({ ...a, ...Object.fromEntries(c.warnings.map((i) => [ackKey(i), true])), ...Object.fromEntries(c.runs.map((r) => [runAckKey(r), true])) }));
              confirmRef.current?.close();
              approve.mutate({ stepIds: "all", key: newIdempotencyKey(), alsoAcknowledged: c.warnings, alsoAcknowledgedRuns: c.runs, thenNext: c.thenNext });
            }}
          >
            <h2 id="confirm-approve-h" className="text-lg font-semibold">
              {allLabel}
              {confirming.thenNext ? ", then the next run" : ""}?
            </h2>
            <p className="mt-2 text-sm">Approving means you acknowledge:</p>
            <ul className="mt-1 list-disc space-y-1 pl-5 text-sm text-amber-950">
              {confirming.runs.map((r) => (
                <li key={runAckKey(r)} className="rounded bg-amber-50 px-1">
                  Another plan for this task is being executed: run {r.id} ({statusLabel(r.status)}).
                </li>
              ))}
              {confirming.warnings.map((i) => (
                <li key={ackKey(i)} className="rounded bg-amber-50 px-1">
                  Step {steps.find((s) => s.id === i.stepId)?.position}: {withVisibleMarkers(i.message)}
                </li>
              ))}
            </ul>
            <p className="mt-3 text-xs text-slate-600">
              Keys: <kbd className="font-mono">Alt+A</kbd> acknowledges and approves · <kbd className="font-mono">Esc</kbd> cancels
            </p>
            <div className="mt-2 flex gap-2">
              <button type="submit" aria-keyshortcuts="Alt+A" className="rounded-md bg-emerald-700 px-3 py-2 text-sm font-medium text-white hover:bg-emerald-800">
                Acknowledge and approve
              </button>
              {/* opens focused on Cancel: one Enter never approves what the dialog warns about */}
              <button ref={cancelRef} type="button" autoFocus onClick={() => confirmRef.current?.close()} className="rounded-md border border-slate-300 px-3 py-2 text-sm">
                Cancel
              </button>
            </div>
          </form>
        </dialog>
      )}
      {showReject && (
        <form
          className="mt-3 space-y-2"
          noValidate
          onSubmit={(e) => {
            e.preventDefault();
            const submitter = (e.nativeEvent as SubmitEvent).submitter as HTMLButtonElement | null;
            submitReject(submitter?.value === "next");
          }}
        >
          <label htmlFor="reject-reason" className="block text-sm font-medium">
            Reason (the agent reads it)
          </label>
          <textarea
            key={focusReason}
            ref={focusReason > 0 ? reasonRef : undefined}
            id="reject-reason"
            rows={3}
            value={reason}
            onChange={(e) => {
              setReason(e.target.value);
              if (reject.error) reject.reset();
            }}
            onKeyDown={(e) => {
              // Ctrl+Enter (⌘+Enter): reject, then open the next waiting run
              if (e.key === "Enter" && (e.ctrlKey || e.metaKey) && !e.nativeEvent.isComposing) {
                e.preventDefault();
                submitReject(true);
              }
            }}
            aria-invalid={!!reasonMessage}
            aria-describedby={`reject-count reject-keys${reasonMessage ? " reject-error" : ""}`}
            className="w-full rounded-md border border-slate-300 px-2 py-1.5 text-sm aria-[invalid=true]:border-red-600"
          />
          <CharacterCount id="reject-count" length={reason.length} max={REJECT_REASON_MAX} />
          {reasonMessage && (
            <p id="reject-error" className="text-sm text-red-700">
              {reasonMessage}
            </p>
          )}
          <p id="reject-keys" className="text-xs text-slate-600">
            <kbd className="font-mono">Ctrl+Enter</kbd> rejects and opens the next waiting run.
          </p>
          <div className="flex flex-wrap gap-2">
            <button type="submit" value="this" disabled={busy} className="rounded-md bg-red-700 px-3 py-1.5 text-sm font-medium text-white disabled:opacity-60">
              {reject.isPending && !reject.variables?.thenNext ? "Rejecting…" : "Reject plan"}
            </button>
            <button type="submit" value="next" disabled={busy} className="rounded-md border border-red-700 bg-white px-3 py-1.5 text-sm font-medium text-red-800 hover:bg-red-50 disabled:opacity-60">
              {reject.isPending && reject.variables?.thenNext ? "Rejecting…" : "Reject & next"}
            </button>
          </div>
        </form>
      )}
    </section>
  );
}

/**
 * Another plan for this task being executed (run details' `concurrentRuns`): each run's id, linked,
 * and its status in words, in words and a border (never colour alone). In the decision card it has
 * the checkbox that acknowledges them (`onAcknowledge`); without `onAcknowledge` (a run that is not
 * waiting for a decision, or cannot be approved anyway) it only says so.
 */
export function ConcurrentRunsNotice({
  runs,
  acknowledged = false,
  onAcknowledge,
  disabled = false,
}: {
  runs: ConcurrentRun[];
  acknowledged?: boolean;
  onAcknowledge?: (checked: boolean) => void;
  /** The checkbox waits for hydration like the buttons it unlocks (a tick before it would be lost). */
  disabled?: boolean;
}) {
  return (
    <div role="note" aria-labelledby="concurrent-runs-h" className="mt-2 rounded-md border-2 border-amber-500 bg-amber-50 px-3 py-2 text-sm text-amber-950" data-testid="concurrent-runs">
      <p id="concurrent-runs-h" className="font-semibold">
        Another plan for this task is being executed:{" "}
        {runs.map((r, n) => (
          <span key={r.id}>
            {n > 0 && ", "}
            <a href={`/runs/${r.id}`} className="break-all text-blue-800 underline">
              run {r.id}
            </a>{" "}
            ({statusLabel(r.status)})
          </span>
        ))}
        .
      </p>
      {onAcknowledge && <p className="mt-1">Approving this plan lets both plans write for the same task. Look at what the other plan does before you approve.</p>}
      {onAcknowledge && (
        <label className="mt-2 flex items-start gap-2">
          <input type="checkbox" checked={acknowledged} disabled={disabled} onChange={(e) => onAcknowledge(e.target.checked)} className="mt-0.5" />
          <span>I acknowledge that another plan for this task is being executed, and approve this one as well.</span>
        </label>
      )}
    </div>
  );
}

/**
 * The decision bar's summary: what the approve button would approve (steps, money out per
 * currency, steps reaching another account), or why it cannot.
 */
function DecisionSummary({
  steps,
  pending,
  issues,
  allBlock,
  blockedReason,
  allLabel,
}: {
  steps: RunStepView[];
  pending: RunStepView[];
  issues: ValidationIssue[];
  allBlock: string | null;
  blockedReason: string | null;
  allLabel: string;
}) {
  if (blockedReason) return <span className="text-slate-800">{blockedReason}</span>;
  if (pending.length === 0) return <span className="text-slate-800">{steps.every(stepComplete) ? "Every step is approved." : "The remaining approvals must come from other people."}</span>;
  const amounts: Money[] = [];
  for (const s of pending) {
    const m = moneyOf(getToolMeta(s.tool), s.args); // malformed arguments move no money here; the validator reports them
    if (m) amounts.push(m);
  }
  const out = moneyOutByCurrency(amounts);
  const other = pending.filter((s) => issues.some((i) => i.stepId === s.id && OTHER_ACCOUNT_CODES.includes(i.code))).length;
  return (
    <span>
      <span className="font-medium">
        {pending.length} of {steps.length} step{steps.length === 1 ? "" : "s"} to approve
      </span>
      {out.length > 0 && <> · {out.map((m) => formatMoney(m)).join(" + ")} out</>}
      {other > 0 && (
        <>
          {" "}
          · <span className="font-medium text-red-800">{other} to another customer</span>
        </>
      )}
      {allBlock && <span className="block text-xs text-slate-600">{allLabel}: {allBlock}</span>}
    </span>
  );
}
