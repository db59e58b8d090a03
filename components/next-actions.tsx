"use client";

import type { NextActions } from "@/lib/run-state";
import { NamedDeciders } from "./ownership-panel";

const OWNER: Record<string, string> = {
  operator: "An operator",
  supervisor: "A supervisor",
  agent: "The agent",
  executor: "The executor",
  "nobody (final)": "Nobody — this run is final",
};

/**
 * Who can act next on this run and what they can do (lib/run-state.ts): every waiting state has
 * an owner and a way out (DESIGN.md §10). Disabled choices say why.
 */
export function NextActionsPanel({ next, runId }: { next: NextActions; runId?: string }) {
  return (
    <section aria-labelledby="next-h" className="rounded-lg border border-slate-200 bg-white p-4">
      <h2 id="next-h" className="font-semibold">
        Who acts next
      </h2>
      <p className="mt-1 text-sm">
        <span className="font-medium">{OWNER[next.owner] ?? next.owner}.</span> {next.headline}
      </p>
      {runId && <NamedDeciders runId={runId} />}
      {next.actions.length > 0 && (
        <ul className="mt-2 space-y-1 text-sm">
          {next.actions.map((a, i) => (
            <li key={i} className={a.enabled ? "" : "text-slate-500"}>
              <span className="rounded bg-slate-100 px-1.5 py-0.5 text-xs">{a.by}</span> {a.label}
              {!a.enabled && a.reason && <span className="text-xs"> — not now: {a.reason}</span>}
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
