"use client";

import { useSyncExternalStore } from "react";
import { formatUtcSeconds } from "@/lib/audit/describe";
import { noSubscription } from "./use-hydrated";
import { formatInstant, formatInstantIn } from "@/lib/text/format";

const browserTimeZone = () => Intl.DateTimeFormat().resolvedOptions().timeZone;

/**
 * An instant as people read it: UTC first (what the audit and the API use), then, once the page
 * runs in the browser and the browser's time zone is not UTC, the same instant in that zone
 * ("3 Dec 2026, 14:05 UTC · 3 Dec 2026, 15:05 CET"). The server renders UTC only, so server and
 * client markup agree; `seconds` shows seconds (the audit trail). ("the operator's time
 * zone next to UTC where time matters").
 */
export function Instant({ iso, seconds = false }: { iso: string; seconds?: boolean }) {
  const timeZone = useSyncExternalStore(noSubscription, browserTimeZone, () => "UTC");
  const local = formatInstantIn(iso, timeZone);
  return (
    <time dateTime={iso}>
      {seconds ? formatUtcSeconds(iso) : formatInstant(iso)}
      {local && <span className="whitespace-nowrap text-slate-600" data-testid="local-time"> · {local}</span>}
    </time>
  );
}
