/**
 * Environment that moves the API's rate limits (lib/server/config/config.ts) far out of the way,
 * for suites and benchmarks that are deliberately a flood from one key or one person (the
 * hostile-input suite, the fuzzers, the load benchmarks): each request still takes its token, so
 * the cost is measured, but none is refused. The limits themselves are tested with real, small
 * values in app/api/rate-limits.test.ts; vitest.setup.ts applies these values to every test file
 * (a limit that depends on the wall clock would make a suite pass or fail with the machine's speed).
 */
export const UNLIMITED_RATES: Record<string, string> = Object.fromEntries(
  ["AGENT", "INTEGRATION", "PERSON", "AUTH_FAILURE"].flatMap((who) => [
    [`PLANDESK_${who}_BURST`, "1000000"],
    [`PLANDESK_${who}_RATE`, "1000000"],
  ]),
);

/** Sets {@link UNLIMITED_RATES} in this process's environment (the limits are read on every request). */
export function liftRateLimits(): void {
  Object.assign(process.env, UNLIMITED_RATES);
}
