/**
 * Runtime configuration read from the environment, in one place.
 * - `PORT` (default 3000);
 * - `PLANDESK_URL`: the public origin trusted by sign-in and the same-origin checks
 *   (default `http://localhost:$PORT`);
 * - `PLANDESK_DEMO`: demo mode (demo users and key exist) unless "0";
 * - `BETTER_AUTH_SECRET`: session signing secret (a fixed demo secret in demo mode only);
 * - `PLANDESK_SIGNIN_LIMIT`: sign-in attempts per client address per minute (default 20);
 * - `PLANDESK_SIGNIN_ACCOUNT_LIMIT`: failed sign-ins (wrong password, same origin) per account and
 *   client address per 15 minutes (default 10);
 * - `PLANDESK_SIGNIN_ACCOUNT_GLOBAL_LIMIT`: failed sign-ins per account per hour from all addresses
 *   together (default 100), a slower backoff for a guesser spread over many addresses;
 * - `PLANDESK_TRUSTED_PROXIES`: proxies whose X-Forwarded-For is believed (read by scripts/server.mjs);
 * - `PLANDESK_CLAIM_LEASE_SECONDS`: how long a claim token fences writes (default 300, 5–3600);
 * - `PLANDESK_SWEEP_SECONDS`: seconds between two background deadline sweeps (default 30, 1–3600);
 * - `PLANDESK_SECRETS_KEY`: the key sealing stored credentials (read by lib/server/secrets/secret-box.ts);
 * - `PLANDESK_REOPEN_WINDOW_DAYS`: a ticket reopened at most this many days after its run executed
 *   counts against the run (default 7, 0–365; docs/design.md "Did the edit help?");
 * - the API's rate limits (docs/security.md "Per-key and per-person rate limits"), a token bucket
 *   per caller: `PLANDESK_AGENT_RATE` / `PLANDESK_AGENT_BURST` per agent API key (default 10 requests
 *   per second, 60 at once), `PLANDESK_INTEGRATION_RATE` / `PLANDESK_INTEGRATION_BURST` per
 *   integration key (default 10 / 60), `PLANDESK_PERSON_RATE` / `PLANDESK_PERSON_BURST` per person
 *   on the console API (default 20 / 200), and `PLANDESK_AUTH_FAILURE_RATE` /
 *   `PLANDESK_AUTH_FAILURE_BURST` per client address for refused credentials (a revoked or unknown
 *   key, a key on the wrong API…; default 1 / 60; lib/server/auth/auth-refusals.ts). A rate is requests per second (a decimal,
 *   0.001–1,000,000), a burst whole requests (1–1,000,000); anything else is the default.
 */
export function serverConfig(env: Record<string, string | undefined> = process.env) {
  const port = Number(env.PORT ?? 3000);
  const publicUrl = (env.PLANDESK_URL?.trim() || `http://localhost:${port}`).replace(/\/$/, "");
  const demo = env.PLANDESK_DEMO !== "0";
  const secret =
    env.BETTER_AUTH_SECRET?.trim() ||
    (demo ? "plandesk-demo-secret-not-for-production-0123456789" : undefined);
  const signInLimit = Math.max(1, Number(env.PLANDESK_SIGNIN_LIMIT ?? 20) || 20);
  const signInAccountLimit = Math.max(1, Number(env.PLANDESK_SIGNIN_ACCOUNT_LIMIT ?? 10) || 10);
  const signInAccountGlobalLimit = Math.max(1, Number(env.PLANDESK_SIGNIN_ACCOUNT_GLOBAL_LIMIT ?? 100) || 100);
  const claimLeaseSeconds = Math.min(3600, Math.max(5, Number(env.PLANDESK_CLAIM_LEASE_SECONDS ?? 300) || 300));
  const sweepSeconds = Math.min(3600, Math.max(1, Math.floor(Number(env.PLANDESK_SWEEP_SECONDS ?? 30) || 30)));
  const reopenRaw = Math.floor(Number(env.PLANDESK_REOPEN_WINDOW_DAYS ?? 7));
  const reopenWindowDays = Number.isFinite(reopenRaw) ? Math.min(365, Math.max(0, reopenRaw)) : 7;
  const rateLimits = {
    agent: bucketRule(env.PLANDESK_AGENT_RATE, env.PLANDESK_AGENT_BURST, DEFAULT_AGENT_RATE, DEFAULT_AGENT_BURST),
    integration: bucketRule(env.PLANDESK_INTEGRATION_RATE, env.PLANDESK_INTEGRATION_BURST, DEFAULT_INTEGRATION_RATE, DEFAULT_INTEGRATION_BURST),
    person: bucketRule(env.PLANDESK_PERSON_RATE, env.PLANDESK_PERSON_BURST, DEFAULT_PERSON_RATE, DEFAULT_PERSON_BURST),
    authFailure: bucketRule(env.PLANDESK_AUTH_FAILURE_RATE, env.PLANDESK_AUTH_FAILURE_BURST, DEFAULT_AUTH_FAILURE_RATE, DEFAULT_AUTH_FAILURE_BURST),
  };
  return {
    port,
    publicUrl,
    origin: new URL(publicUrl).origin,
    demo,
    secret,
    signInLimit,
    signInAccountLimit,
    signInAccountGlobalLimit,
    claimLeaseSeconds,
    sweepSeconds,
    reopenWindowDays,
    /** The token bucket of each kind of API caller: `capacity` (the burst) and `refillPerSecond` (the rate). */
    rateLimits,
    /** Served over https (PLANDESK_URL): HSTS and secure cookies. */
    https: publicUrl.startsWith("https://"),
  };
}

/** Requests per second of one agent API key, sustained (PLANDESK_AGENT_RATE's default). */
export const DEFAULT_AGENT_RATE = 10;
/** Requests of one agent API key at once, its bucket's capacity (PLANDESK_AGENT_BURST's default). */
export const DEFAULT_AGENT_BURST = 60;
/** Requests per second of one integration key (PLANDESK_INTEGRATION_RATE's default). */
export const DEFAULT_INTEGRATION_RATE = 10;
/** Requests of one integration key at once (PLANDESK_INTEGRATION_BURST's default). */
export const DEFAULT_INTEGRATION_BURST = 60;
/** Console API requests per second of one person, sustained (PLANDESK_PERSON_RATE's default): far above what a person's clicks make. */
export const DEFAULT_PERSON_RATE = 20;
/** Console API requests of one person at once (PLANDESK_PERSON_BURST's default). */
export const DEFAULT_PERSON_BURST = 200;

/** Refused credentials per second of one client address, sustained (PLANDESK_AUTH_FAILURE_RATE's default): a client retrying a revoked key now and then is answered 401, a flood 429. */
export const DEFAULT_AUTH_FAILURE_RATE = 1;
/** Refused credentials of one client address at once (PLANDESK_AUTH_FAILURE_BURST's default). */
export const DEFAULT_AUTH_FAILURE_BURST = 60;

/** A bucket rule from a rate (decimal, 0.001–1,000,000 per second) and a burst (whole, 1–1,000,000); either malformed or out of range is its default. */
function bucketRule(rate: string | undefined, burst: string | undefined, defaultRate: number, defaultBurst: number): { capacity: number; refillPerSecond: number } {
  const r = Number(rate?.trim() || NaN);
  const b = Number(burst?.trim() || NaN);
  return {
    capacity: Number.isInteger(b) && b >= 1 && b <= 1_000_000 ? b : defaultBurst,
    refillPerSecond: Number.isFinite(r) && r >= 0.001 && r <= 1_000_000 ? r : defaultRate,
  };
}

/** Shortest BETTER_AUTH_SECRET accepted outside demo mode (e.g. `openssl rand -base64 32`). */
export const MIN_SECRET_LENGTH = 32;

/**
 * Why the server must not start with this environment, or `null` when it may. Outside demo mode
 * (PLANDESK_DEMO=0) sessions must be signed with a real secret: BETTER_AUTH_SECRET set and at
 * least MIN_SECRET_LENGTH characters. Demo mode falls back to the fixed demo secret.
 */
export function startupProblem(env: Record<string, string | undefined> = process.env): string | null {
  const config = serverConfig(env);
  if (config.demo) return null;
  const secret = env.BETTER_AUTH_SECRET?.trim() ?? "";
  if (!secret) {
    return (
      "Plandesk refuses to start: PLANDESK_DEMO=0 (production mode) needs BETTER_AUTH_SECRET to sign sessions. " +
      "Set it to a long random value, e.g. BETTER_AUTH_SECRET=$(openssl rand -base64 32), and keep it stable across restarts."
    );
  }
  if (secret.length < MIN_SECRET_LENGTH) {
    return `Plandesk refuses to start: BETTER_AUTH_SECRET is ${secret.length} characters; production mode (PLANDESK_DEMO=0) needs at least ${MIN_SECRET_LENGTH}, e.g. $(openssl rand -base64 32).`;
  }
  return null;
}

/** Throws an Error carrying `startupProblem(env)` when the server must not start. */
export function assertStartable(env: Record<string, string | undefined> = process.env): void {
  const problem = startupProblem(env);
  if (problem) throw new Error(problem);
}
