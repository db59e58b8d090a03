import { formatMinutes } from "../text/format";

/**
 * A deadline in words at `now` (UTC instants), with the verb included so no caller writes
 * "expires expired…": "expires in 5 h 2 min", "expires in under a minute", "expired just now"
 * (under a minute ago), "expired 3 min ago". At or past `expiresAt` the run has expired: the same
 * instant the decision buttons disable (`isExpiredAt`).
 */
export function formatExpiry(expiresAt: string, now: Date): string {
  const ms = new Date(expiresAt).getTime() - now.getTime();
  if (ms > 0) {
    const mins = Math.floor(ms / 60_000);
    return mins === 0 ? "expires in under a minute" : `expires in ${formatMinutes(mins)}`;
  }
  const ago = Math.floor(-ms / 60_000);
  return ago === 0 ? "expired just now" : `expired ${formatMinutes(ago)} ago`;
}

/** True at and after `expiresAt` (UTC instant): the run can no longer be approved. */
export function isExpiredAt(expiresAt: string, now: Date): boolean {
  return now.getTime() >= new Date(expiresAt).getTime();
}

/**
 * The server's clock as seen from the browser: `serverNowIso` (the server's time when it rendered
 * or answered) minus the browser's time at that moment, in milliseconds. Add it to `Date.now()`
 * to read the server's clock, so a browser whose clock is off still disables at the server's
 * `expiresAt`.
 */
export function serverOffsetMs(serverNowIso: string, clientNowMs: number): number {
  const server = new Date(serverNowIso).getTime();
  return Number.isFinite(server) ? server - clientNowMs : 0;
}

/**
 * The server's clock at browser time `clientNowMs` (ms since the epoch): browser time plus
 * `offsetMs` from `serverOffsetMs`. A browser whose clock is hours off still words a deadline
 * ("expires in 2 h") as the server would at the same instant.
 */
export function serverTimeAt(clientNowMs: number, offsetMs: number): Date {
  return new Date(clientNowMs + offsetMs);
}
