"use client";

import { DeadlineBadge, deadlineTextClass } from "./deadline-badge";
import { Instant } from "./instant";
import { formatExpiry } from "@/lib/deadline/expiry-words";
import { deadlineUrgency } from "@/lib/deadline/urgency";
import { useServerExpiry } from "./use-server-expiry";

/**
 * A waiting run's deadline in the run page's header, kept true in the browser: "expires in 5 h 2
 * min", then at `expiresAt` on the server's clock (`serverNow`, the server's time when it rendered
 * the page; lib/deadline/expiry-words.ts) "expired just now" and the "expired" badge, the same
 * instant the decision buttons disable, without waiting for a refetch or the sweep
 * (docs/design.md §10). Instants are ISO-8601 UTC.
 */
export function RunExpiry({ run, serverNow }: { run: { status: string; expiresAt: string; escalateAt: string }; serverNow: string }) {
  const { now } = useServerExpiry(run.expiresAt, serverNow);
  const urgency = deadlineUrgency(run, now);
  return (
    <>
      <span className={deadlineTextClass(urgency.tone)} data-testid="run-expiry">
        {formatExpiry(run.expiresAt, now)}
      </span>{" "}
      (<Instant iso={run.expiresAt} />)
      <DeadlineBadge urgency={urgency} />
    </>
  );
}
