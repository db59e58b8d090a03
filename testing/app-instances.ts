/**
 * Production app instances for tests and benchmarks: each is its own OS process serving the
 * build in `.next` on its own port, every instance with the same public origin (PLANDESK_URL) and
 * session secret, as behind a load balancer (docs/operations.md "PostgreSQL and several instances").
 * Used by e2e/instances.spec.ts and scripts/bench-load.ts.
 */
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import net from "node:net";
import path from "node:path";
import { serverNodeArgs } from "../lib/net/server-heap.mjs";
import { freshTestDatabaseUrl, recreatePgTestDatabase } from "./test-databases";

/** The checkout: tests and scripts run from its root (read at call time; bench-load changes into it). */
const root = () => process.cwd();

/** A free TCP port on 127.0.0.1 (the OS picks it; free when returned). */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.unref();
    s.on("error", reject);
    s.listen(0, "127.0.0.1", () => {
      const port = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(port));
    });
  });
}

/** One running instance. */
export interface AppInstance {
  port: number;
  /** Where this instance listens (`http://127.0.0.1:<port>`). */
  origin: string;
  /** PLANDESK_URL of every instance: the Origin the console's requests carry. */
  publicOrigin: string;
  proc: ChildProcess;
  /** Everything the process printed so far (stdout and stderr). */
  output(): string;
}

/** How to start an instance. */
export interface AppInstanceOptions {
  databaseUrl: string;
  port: number;
  publicOrigin: string;
  /** `server` = scripts/server.mjs (what `npm start` serves); `next-start` = bare `next start`. */
  command?: "server" | "next-start";
  /** A GET path answering 200 once the instance serves (default `/sign-in`). */
  readyPath?: string;
  /** Extra environment (e.g. PLANDESK_SWEEP_SECONDS). */
  env?: Record<string, string>;
  /** Extra Node.js options before the script (e.g. `--cpu-prof`, which NODE_OPTIONS does not take). */
  nodeArgs?: string[];
}

/** The session secret every test instance shares (sessions signed by one are checked by the others). */
export const SHARED_TEST_SECRET = "instances-secret-shared-by-every-instance-0123456789";

/**
 * Starts one instance and waits (≤ 60 s) until `readyPath` answers 200. Errors: throws with the
 * process's output when it exits or does not answer in time. Each instance is its own process group,
 * so `stopAppInstance` also stops Next.js's worker child.
 */
export async function startAppInstance(opts: AppInstanceOptions): Promise<AppInstance> {
  const { port, publicOrigin } = opts;
  const origin = `http://127.0.0.1:${port}`;
  const args =
    opts.command === "next-start"
      ? [path.join(root(), "node_modules", "next", "dist", "bin", "next"), "start", "-p", String(port), "-H", "127.0.0.1"]
      : [path.join(root(), "scripts", "server.mjs")];
  // scripts/server.mjs runs under the heap cap production runs under (lib/net/server-heap.mjs).
  const heapArgs = opts.command === "next-start" ? [] : serverNodeArgs({ ...process.env, ...opts.env });
  const proc = spawn(process.execPath, [...heapArgs, ...(opts.nodeArgs ?? []), ...args], {
    cwd: root(),
    env: {
      ...process.env,
      DATABASE_URL: opts.databaseUrl,
      PORT: String(port),
      PLANDESK_URL: publicOrigin,
      PLANDESK_DEMO: "1",
      PLANDESK_SIGNIN_LIMIT: "10000",
      BETTER_AUTH_SECRET: process.env.BETTER_AUTH_SECRET ?? SHARED_TEST_SECRET,
      NEXT_TELEMETRY_DISABLED: "1",
      // no load balancer polls these instances: a SIGTERM drains without keeping the listener open
      PLANDESK_DRAIN_NOTICE_SECONDS: "0",
      ...opts.env,
    },
    stdio: ["ignore", "pipe", "pipe"],
    detached: true,
  });
  let output = "";
  proc.stdout!.on("data", (d) => (output += d));
  proc.stderr!.on("data", (d) => (output += d));
  const instance: AppInstance = { port, origin, publicOrigin, proc, output: () => output };
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    if (proc.exitCode !== null) throw new Error(`instance on ${port} exited (${proc.exitCode}):\n${output}`);
    try {
      const res = await fetch(`${origin}${opts.readyPath ?? "/sign-in"}`);
      if (res.status === 200) return instance;
    } catch {
      /* not listening yet */
    }
    await new Promise((r) => setTimeout(r, 300));
  }
  stopAppInstance(instance);
  throw new Error(`instance on ${origin} did not answer within 60 s:\n${output}`);
}

/**
 * Stops an instance and its children (SIGTERM to its process group; it drains and exits). The
 * promise resolves when the process has exited, or after `boundMs` (default 30 s) if it has not;
 * callers that need the database free (to drop it) await it. Never throws.
 */
export function stopAppInstance(instance: AppInstance, boundMs = 30_000): Promise<void> {
  const { proc } = instance;
  if (proc.exitCode !== null || proc.signalCode !== null) return Promise.resolve();
  const exited = new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, boundMs);
    proc.once("exit", () => {
      clearTimeout(timer);
      resolve();
    });
  });
  try {
    process.kill(-proc.pid!, "SIGTERM");
  } catch {
    return Promise.resolve(); // already gone
  }
  return exited;
}

/**
 * Signs `email` in with the demo password through `instance` and returns the session cookie
 * header value. Errors: throws with the status and body when sign-in is refused.
 */
export async function signInCookieAt(instance: AppInstance, email: string, password = "plandesk-demo"): Promise<string> {
  const res = await fetch(`${instance.origin}/api/auth/sign-in/email`, {
    method: "POST",
    headers: { origin: instance.publicOrigin, "content-type": "application/json" },
    body: JSON.stringify({ email, password }),
  });
  if (res.status !== 200) throw new Error(`sign-in of ${email} answered ${res.status}: ${await res.text()}`);
  return res.headers
    .getSetCookie()
    .map((c) => c.split(";")[0])
    .join("; ");
}

/**
 * Migrates `databaseUrl` and seeds the demo desk (`npm run db:migrate`, `npm run db:seed`), as
 * `npm start` does. Errors: throws naming the step that failed.
 */
export function migrateAndSeed(databaseUrl: string): void {
  for (const script of ["scripts/migrate.ts", "scripts/seed.ts"]) {
    const args = script.endsWith("migrate.ts") ? [script, "deploy"] : [script];
    const r = spawnSync(path.join(root(), "node_modules", ".bin", "tsx"), args, {
      cwd: root(),
      env: { ...process.env, DATABASE_URL: databaseUrl, PLANDESK_DEMO: "1" },
      encoding: "utf8",
    });
    if (r.status !== 0) throw new Error(`${script} failed (exit ${r.status ?? r.signal}):\n${r.stdout}\n${r.stderr}`);
  }
}

/**
 * A fresh PostgreSQL test database (`plandesk_test_<random>` on PLANDESK_TEST_PG_URL), migrated
 * and seeded with the demo desk like `npm start` does (`migrateAndSeed`): what the specs that
 * start several app instances share. Returns its URL; the caller drops it (dropPgTestDatabase).
 */
export async function freshSeededPgDatabase(): Promise<string> {
  const url = freshTestDatabaseUrl({ PLANDESK_TEST_DB: "postgres" });
  await recreatePgTestDatabase(url);
  migrateAndSeed(url);
  return url;
}
