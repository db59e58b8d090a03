"use client";

import { useEffect, useState } from "react";
import { serverOffsetMs } from "@/lib/deadline/expiry-words";

/** "3 h 05 min 09 s" for a number of whole seconds (≥ 0). */
export function formatCountdown(totalSeconds: number): string {
  const s = Math.max(0, Math.floor(totalSeconds));
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const sec = s % 60;
  const p = (n: number) => String(n).padStart(2, "0");
  return h > 0 ? `${h} h ${p(m)} min ${p(sec)} s` : m > 0 ? `${m} min ${p(sec)} s` : `${sec} s`;
}

/**
 * A live countdown to `until` (UTC instant), ticking every second. Below 15 minutes it turns
 * red; at zero it says the run expired and can no longer be approved. `serverNow` (the server's
 * time when it rendered) seeds the first render so server and client markup agree, and gives the
 * offset between the browser's clock and the server's: the countdown runs on the server's clock.
 */
export function Countdown({ until, serverNow }: { until: string; serverNow: string }) {
  const [offset] = useState(() => serverOffsetMs(serverNow, Date.now()));
  const [now, setNow] = useState(() => new Date(serverNow).getTime());
  useEffect(() => {
    const tick = () => setNow(Date.now() + offset); // the server's clock, read in the browser
    const first = setTimeout(tick, 0);
    const t = setInterval(tick, 1000);
    return () => {
      clearTimeout(first);
      clearInterval(t);
    };
  }, [offset]);
  const left = Math.floor((new Date(until).getTime() - now) / 1000);
  if (left <= 0) {
    return (
      <span className="font-medium text-slate-600" data-testid="countdown" data-expired="true">
        expired — it can no longer be approved
      </span>
    );
  }
  return (
    <span
      className={`font-mono tabular-nums ${left < 15 * 60 ? "font-semibold text-red-700" : "text-slate-900"}`}
      data-testid="countdown"
      role="timer"
      aria-live="off"
    >
      {formatCountdown(left)}
    </span>
  );
}
