import { markDatabaseUnavailable } from "../../net/request-outcome.mjs";
import { log } from "../../net/log.mjs";
import { databaseRetryAfterSeconds, databaseUnavailableReason } from "./http";

/**
 * What instrumentation.ts `onRequestError` does with an error Next.js reports from a render:
 * when it means the database cannot be reached (`databaseUnavailableReason`: codes and kinds only,
 * never customer data), the request is marked so the custom server answers 503 with `Retry-After`
 * (PLANDESK_DB_RETRY_AFTER_SECONDS) instead of 500, and one warning line says why. Any other
 * error is left to Next.js (its own log line, status 500). Never throws.
 */
export function markPageError(err: unknown): void {
  const reason = databaseUnavailableReason(err);
  if (reason === null) return;
  markDatabaseUnavailable(reason, databaseRetryAfterSeconds());
  log.warn({ reason }, "plandesk: database unavailable while rendering a page; answered 503");
}
