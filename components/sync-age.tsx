"use client";

import { useEffect, useState } from "react";
import type { RecordSync } from "@/lib/desk/snapshot";
import { describeSync } from "@/lib/records/record-age";

/**
 * How old the local copy of a record is, in words (lib/records/record-age.ts `describeSync`):
 * "balance as of 14:02 UTC, synced 2 min ago". Nothing for a record never synced. The age is
 * relative to `serverNow` when the page gives it; otherwise it shows once mounted (the server's
 * markup and the browser's first render are empty alike, so they match), on the browser's clock,
 * renewed every minute. `prefix` (e.g. " · ") is shown with the words only.
 */
export function SyncAge({ sync, what, serverNow, prefix = "", className = "text-xs text-slate-500" }: { sync: RecordSync | undefined; what?: string; serverNow?: string; prefix?: string; className?: string }) {
  const [now, setNow] = useState<Date | null>(serverNow ? new Date(serverNow) : null);
  useEffect(() => {
    if (serverNow) return;
    const tick = () => setNow(new Date());
    const first = setTimeout(tick, 0);
    const every = setInterval(tick, 60_000);
    return () => {
      clearTimeout(first);
      clearInterval(every);
    };
  }, [serverNow]);
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
