"use client";

import { useEffect, useState } from "react";
import type { AccountSnapshot, RecordSync } from "@/lib/desk/snapshot";
import { argumentTargets, describeSync, staleRecordMessage, staleTarget } from "@/lib/records/record-age";
import { getToolMeta } from "@/lib/tools/builtin-meta";

/** The browser's clock once mounted (null on the server and in the first render, so markups match), renewed every minute. */
function useMountedNow(fixed?: string): Date | null {
  const [now, setNow] = useState<Date | null>(fixed ? new Date(fixed) : null);
  useEffect(() => {
    if (fixed) return;
    const tick = () => setNow(new Date());
    const first = setTimeout(tick, 0);
    const every = setInterval(tick, 60_000);
    return () => {
      clearTimeout(first);
      clearInterval(every);
    };
  }, [fixed]);
  return now;
}

/**
 * How old the local copy of a record is, in words (lib/records/record-age.ts `describeSync`):
 * "balance as of 14:02 UTC, synced 2 min ago". Nothing for a record never synced. The age is
 * relative to `serverNow` when the page gives it; otherwise it shows once mounted (the server's
 * markup and the browser's first render are empty alike, so they match), on the browser's clock,
 * renewed every minute. `prefix` (e.g. " · ") is shown with the words only.
 */
export function SyncAge({ sync, what, serverNow, prefix = "", className = "text-xs text-slate-600" }: { sync: RecordSync | undefined; what?: string; serverNow?: string; prefix?: string; className?: string }) {
  const now = useMountedNow(serverNow);
  if (!sync?.syncedAt) return null;
  const text = now && describeSync(sync, now, what);
  if (!text) return null;
  return (
    <span className={className} data-testid="sync-age">
      {prefix}
      {text}
    </span>
  );
}

/**
 * Before a person presses approve: the warning that the approval would be refused
 * `stale_account_data` — a record the step's arguments name (lib/records/record-age.ts
 * `argumentTargets`) synced longer ago than the step's bound (`maxRecordAgeMinutes` of the
 * governing rule; undefined: no bound, nothing shown), or never — in the refusal's own words.
 */
export function StaleWarning({ step, desk }: { step: { id: string; tool: string; args: Record<string, unknown>; maxRecordAgeMinutes?: number }; desk: AccountSnapshot | undefined }) {
  const now = useMountedNow();
  if (!desk || step.maxRecordAgeMinutes === undefined || !now) return null;
  const fields = getToolMeta(step.tool)?.fields ?? [];
  const stale = staleTarget(argumentTargets(fields, step.args), desk, step.maxRecordAgeMinutes, now);
  if (!stale) return null;
  return (
    <p role="note" className="mt-1 rounded bg-amber-50 px-2 py-1 text-xs text-amber-950" data-testid={`stale-${step.id}`}>
      Stale account data: {staleRecordMessage(stale, step.tool, "approve")}
    </p>
  );
}
