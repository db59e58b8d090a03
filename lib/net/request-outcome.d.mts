/** Types of request-outcome.mjs (plain JavaScript so the custom server runs it without a compile step). */

/** Runs `fn` with a fresh outcome record for one request (the custom server, per request); returns what `fn` returns. */
export declare function runWithRequestOutcome<T>(fn: () => T): T;
/** Records that the request being handled failed on an unreachable database (`reason`: the matched code); `retryAfterSeconds` goes into its `Retry-After`. No-op outside a request. */
export declare function markDatabaseUnavailable(reason: string, retryAfterSeconds: number): void;
/** Within `runWithRequestOutcome`: a 5xx head written for a request marked database-unavailable becomes 503 with `Retry-After` and `Cache-Control: no-store`. */
export declare function answerDatabaseUnavailableAs503(res: import("node:http").ServerResponse): void;
