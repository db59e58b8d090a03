/**
 * Runtime configuration read from the environment, in one place.
 * - `PORT` (default 3000);
 * - `PLANDESK_URL`: the public origin trusted by sign-in and the same-origin checks
 *   (default `http://localhost:$PORT`);
 * - `PLANDESK_DEMO`: demo mode (demo users and key exist) unless "0";
 * - `BETTER_AUTH_SECRET`: session signing secret (a fixed demo secret in demo mode only);
 * - `PLANDESK_SIGNIN_LIMIT`: sign-in attempts per IP per minute (default 20).
 */
export function serverConfig(env: Record<string, string | undefined> = process.env) {
  const port = Number(env.PORT ?? 3000);
  const publicUrl = (env.PLANDESK_URL?.trim() || `http://localhost:${port}`).replace(/\/$/, "");
  const demo = env.PLANDESK_DEMO !== "0";
  const secret =
    env.BETTER_AUTH_SECRET?.trim() ||
    (demo ? "plandesk-demo-secret-not-for-production-0123456789" : undefined);
  const signInLimit = Math.max(1, Number(env.PLANDESK_SIGNIN_LIMIT ?? 20) || 20);
  return { port, publicUrl, origin: new URL(publicUrl).origin, demo, secret, signInLimit };
}
