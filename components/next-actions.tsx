"use client";

import type { NextActions } from "@/lib/lifecycle/run-state";
import { NamedDeciders } from "./ownership-panel";

const OWNER: Record<string, string> = {
  operator: "An operator",
  supervisor: "A supervisor",
  agent: "The agent",
  executor: "The executor",
  "nobody (final)": "Nobody — this run is final",
};

/**
 * Who can act next on this run and what they can do (lib/lifecycle/run-state.ts): every waiting state has
 * an owner and a way out. One line ("Who acts next · An operator. Waiting for …"), expandable to
 * the named deciders per step and every choice; disabled choices say why. The deciders are
 * re-read after every decision (the ownership query is invalidated by the decision panel).
 */
export function NextActionsPanel({ next, runId }: { next: NextActions; runId?: string }) {
  return (
    <section aria-labelledby="next-h" className="rounded-lg border border-slate-200 bg-white px-4 py-2">
      <details>
        <summary className="cursor-pointer text-sm marker:text-slate-500">
          <h2 id="next-h" className="inline font-semibold">
            Who acts next
          </h2>
          <span className="ml-2" data-testid="next-line">
            <span className="font-medium">{OWNER[next.owner] ?? next.owner}.</span> {next.headline}
          </span>
        </summary>
        {runId && <NamedDeciders runId={runId} />}
        {next.actions.length > 0 && (
          <ul className="mt-2 space-y-1 pb-1 text-sm">
            {next.actions.map((a, i) => (
              <li key={i} className={a.enabled ? "" : "text-slate-500"}>
                <span className="rounded bg-slate-100 px-1.5 py-0.5 text-xs">{a.by}</span> {a.label}
                {!a.enabled && a.reason && <span className="text-xs"> — not now: {a.reason}</span>}
              </li>
            ))}
          </ul>
        )}
      </details>
    </section>
  );
}
