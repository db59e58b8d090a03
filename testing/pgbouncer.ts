/**
 * One PgBouncer in transaction mode for a test file (Debian's `pgbouncer` package; `.ci/run`
 * installs it): its configuration in a fresh temp directory, listening on a free port of
 * 127.0.0.1, every database of the test PostgreSQL server (PLANDESK_TEST_PG_URL) reachable under
 * its own name, with `trust` authentication of the server URL's user. Not used by the app.
 */
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { freePort } from "./app-instances";
import { testPgServerUrl } from "./test-databases";

/** A running PgBouncer. `urlFor(directUrl)`: the same database and user through it. `stop()` ends it and removes its directory; never throws. */
export interface PgBouncer {
  port: number;
  version: string;
  urlFor(directUrl: string): string;
  stop(): Promise<void>;
}

/** The `pgbouncer` executable on PATH (or Debian's /usr/sbin), or null when it is not installed. */
export function pgbouncerPath(): string | null {
  for (const dir of [...(process.env.PATH ?? "").split(path.delimiter), "/usr/sbin", "/usr/local/sbin"]) {
    const p = path.join(dir, "pgbouncer");
    if (dir && fs.existsSync(p)) return p;
  }
  return null;
}

/**
 * Starts PgBouncer (pool_mode = transaction, `poolSize` server connections per database and user)
 * and waits (≤ 15 s) until a query through it answers. PgBouncer refuses to run as root, so as
 * root it is told to switch to the `postgres` account (or `nobody`). Errors: throws when
 * `pgbouncer` is not installed (naming the package), or with its log when it exits or does not
 * answer in time (the process is then stopped).
 */
export async function startPgBouncer(poolSize = 20): Promise<PgBouncer> {
  const exe = pgbouncerPath();
  if (!exe) throw new Error("pgbouncer is not installed: `apt-get install -y pgbouncer` (.ci/run installs it)");
  const version = spawnSync(exe, ["--version"], { encoding: "utf8" }).stdout.split("\n")[0] ?? "";
  const server = new URL(testPgServerUrl());
  const user = decodeURIComponent(server.username || "postgres");
  const port = await freePort();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "plandesk-pgbouncer-"));
  fs.chmodSync(dir, 0o755);
  fs.writeFileSync(path.join(dir, "userlist.txt"), `"${user}" ""\n`, { mode: 0o644 });
  const ini = [
    "[databases]",
    `* = host=${server.hostname} port=${server.port || 5432}`,
    "[pgbouncer]",
    "listen_addr = 127.0.0.1",
    `listen_port = ${port}`,
    "unix_socket_dir =",
    "auth_type = trust",
    `auth_file = ${path.join(dir, "userlist.txt")}`,
    "pool_mode = transaction",
    `default_pool_size = ${poolSize}`,
    "max_client_conn = 500",
    // pg sends extra_float_digits; Prisma's URL may carry options.
    "ignore_startup_parameters = extra_float_digits,options",
    "log_connections = 0",
    "log_disconnections = 0",
  ].join("\n");
  fs.writeFileSync(path.join(dir, "pgbouncer.ini"), ini + "\n", { mode: 0o644 });
  const asUser = process.getuid?.() === 0 ? ["-u", spawnSync("id", ["-u", "postgres"]).status === 0 ? "postgres" : "nobody"] : [];
  const proc: ChildProcess = spawn(exe, [...asUser, path.join(dir, "pgbouncer.ini")], { stdio: ["ignore", "pipe", "pipe"] });
  let log = "";
  proc.stdout!.on("data", (d) => (log += d));
  proc.stderr!.on("data", (d) => (log += d));
  const kill = () => proc.exitCode === null && proc.signalCode === null && proc.kill("SIGTERM");
  process.once("exit", kill); // a worker that dies mid-file leaves no PgBouncer behind
  const bouncer: PgBouncer = {
    port,
    version,
    urlFor(directUrl) {
      const u = new URL(directUrl);
      u.hostname = "127.0.0.1";
      u.port = String(port);
      return u.toString();
    },
    async stop() {
      process.off("exit", kill);
      if (proc.exitCode === null && proc.signalCode === null) {
        const exited = new Promise((r) => proc.once("exit", r));
        proc.kill("SIGTERM");
        await exited;
      }
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
  const probeUrl = bouncer.urlFor(testPgServerUrl());
  const deadline = Date.now() + 15_000;
  for (;;) {
    if (proc.exitCode !== null) {
      await bouncer.stop();
      throw new Error(`pgbouncer exited (${proc.exitCode}):\n${log}`);
    }
    const c = new pg.Client({ connectionString: probeUrl });
    try {
      await c.connect();
      await c.query("SELECT 1");
      await c.end();
      return bouncer;
    } catch (e) {
      await c.end().catch(() => {});
      if (Date.now() > deadline) {
        await bouncer.stop();
        throw new Error(`pgbouncer on ${port} did not answer within 15 s (${(e as Error).message}):\n${log}`);
      }
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}
