"use client";

import { useCallback, useEffect, useRef, useState } from "react";
import { serverOffsetMs, serverTimeAt } from "@/lib/deadline/expiry-words";

/**
 * The server's clock in the browser, for the queue's "expires in 2 h" and ages. The first render
 * uses `serverNow` itself (the server's time when it rendered the page), so the browser's markup
 * matches the server's; after that it ticks every `everyMs` as browser time plus the offset
 * measured from `serverNow`, never the browser's own clock. `sync(iso)` re-measures the offset
 * from newer data that carries the server's time (each queue page's `serverNow`) at the moment it
 * arrives.
 */
export function useServerClock(serverNow: string, everyMs = 30_000): { now: Date; sync: (serverNowIso: string) => void } {
  const offset = useRef<number | null>(null);
  const [now, setNow] = useState(() => new Date(serverNow));
  const tick = useCallback(() => {
    if (offset.current !== null) setNow(serverTimeAt(Date.now(), offset.current));
  }, []);
  useEffect(() => {
    if (offset.current === null) offset.current = serverOffsetMs(serverNow, Date.now());
    const first = setTimeout(tick, 0);
    const every = setInterval(tick, everyMs);
    return () => {
      clearTimeout(first);
      clearInterval(every);
    };
  }, [serverNow, everyMs, tick]);
  const sync = useCallback((serverNowIso: string) => {
    offset.current = serverOffsetMs(serverNowIso, Date.now());
  }, []);
  return { now, sync };
}
