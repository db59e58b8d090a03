// The V8 heap cap of a Plandesk server process (docs/design.md "Storage and scale"). Left alone, V8
// lets a busy server's heap grow with garbage far past what it holds live (about 100 MB: Next.js,
// the Prisma client, the route modules) — 450–750 MB of RSS under load, every byte of it
// collectable. A cap of 256 MB kept an instance near 350–400 MB of RSS at about the CPU per
// request of an uncapped one (192 MB costs 10–20% more CPU per request, and 128 MB halves
// throughput: the collector runs all the time; bench/results/load-notes.md). But a server that has
// served every page and endpoint (the browser suite, about 17 minutes in) held about 250 MB live
// and died at that cap, "Reached heap limit", so the default is 512 MB. Pure and framework-free: scripts/start.mjs, scripts/e2e-server.mjs and the test and
// benchmark instances all start scripts/server.mjs with these arguments.

/** The default heap cap in MB when PLANDESK_HEAP_MB is unset. */
export const DEFAULT_HEAP_MB = 512;

/**
 * The Node.js arguments that cap the server's heap: `["--max-old-space-size=<MB>"]` from
 * `env.PLANDESK_HEAP_MB` (default DEFAULT_HEAP_MB; `0` leaves V8's own default), or `[]` when
 * `env.NODE_OPTIONS` already sets `--max-old-space-size` (the operator's choice wins).
 * Errors: throws for a PLANDESK_HEAP_MB that is not a whole number of MB (0, or 64 and more).
 */
export function serverNodeArgs(env) {
  if (/--max-old-space-size/.test(env.NODE_OPTIONS ?? "")) return [];
  const raw = env.PLANDESK_HEAP_MB ?? String(DEFAULT_HEAP_MB);
  if (!/^\d+$/.test(raw.trim()) || (Number(raw) !== 0 && Number(raw) < 64)) {
    throw new Error(`PLANDESK_HEAP_MB must be 0 (V8's default) or a whole number of MB, 64 or more; got "${raw}"`);
  }
  const mb = Number(raw);
  return mb === 0 ? [] : [`--max-old-space-size=${mb}`];
}
