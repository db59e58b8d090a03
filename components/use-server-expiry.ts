"use client";

import { useEffect, useState } from "react";
import { isExpiredAt, serverOffsetMs } from "@/lib/deadline/expiry-words";

/**
 * Whether the run has expired, on the server's clock: true from the instant `expiresAt` passes
 * (browser time + the offset measured from `serverNow`, the server's time when it rendered the
 * page), not from the next refetch or sweep. Re-renders exactly at that instant (one timer) and
 * returns the server-clock "now" for words like "expired 3 min ago" (refreshed every 30 s).
 */
export function useServerExpiry(expiresAt: string, serverNow: string): { expired: boolean; now: Date } {
  const [offset] = useState(() => serverOffsetMs(serverNow, Date.now()));
  // The first render uses the server's own "now", so the browser's markup matches the server's.
  const [now, setNow] = useState(() => new Date(serverNow));
  useEffect(() => {
    const left = new Date(expiresAt).getTime() - (Date.now() + offset);
    const tick = () => setNow(new Date(Date.now() + offset));
    const first = setTimeout(tick, 0); // then the server's clock as read in the browser, at once
    const atExpiry = left > 0 ? setTimeout(tick, Math.min(left + 5, 2_147_483_647)) : null;
    const every = setInterval(tick, 30_000);
    return () => {
      clearTimeout(first);
      if (atExpiry) clearTimeout(atExpiry);
      clearInterval(every);
    };
  }, [expiresAt, offset]);
  return { expired: isExpiredAt(expiresAt, now), now };
}
