/**
 * Throw-away PostgreSQL 15 clusters for failover tests: a primary and a streaming standby made
 * with `pg_basebackup -R`, each in its own data directory under one temp directory, on free
 * loopback ports, run as the `postgres` OS user (initdb refuses root; `runuser` when the tests
 * run as root). The primary names the standby in `synchronous_standby_names`, so a commit is
 * acknowledged only once the standby has it: a transaction a client saw committed survives the
 * primary's loss. The standby itself names none, so once promoted it commits without waiting for a
 * standby it does not have. `fsync = off` on both: the failures tested are of the server process (an
 * immediate stop), not of the host, and the page cache outlives a process.
 * `removeClusters` stops both (immediately) and deletes the directory; it never throws.
 */
import { execFile } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import pg from "pg";
import { freePort } from "./app-instances";

const run = promisify(execFile);

/** The directory of PostgreSQL 15's programs (Debian's layout), or of env PLANDESK_PG_BIN. */
export function pgBin(): string {
  return process.env.PLANDESK_PG_BIN ?? "/usr/lib/postgresql/15/bin";
}

/** Runs one PostgreSQL program as the `postgres` user (directly when that is who we are). */
async function asPostgres(program: string, args: string[]): Promise<string> {
  const exe = path.join(pgBin(), program);
  const root = process.getuid?.() === 0;
  const { stdout } = await run(root ? "runuser" : exe, root ? ["-u", "postgres", "--", exe, ...args] : args, { timeout: 60_000 });
  return stdout;
}

/** One cluster: its data directory, port and controls. */
export interface PgCluster {
  name: string;
  dir: string;
  port: number;
  /** `postgresql://postgres@127.0.0.1:<port>/<database>`. */
  url(database?: string): string;
  /** `pg_ctl start`, waiting until it accepts connections. */
  start(): Promise<void>;
  /** `pg_ctl stop -m <mode>`: `immediate` is a crash (no checkpoint, clients cut), `fast` a clean shutdown. */
  stop(mode: "immediate" | "fast"): Promise<void>;
  /** `pg_ctl promote`, waiting until the standby accepts writes. */
  promote(): Promise<void>;
}

/** A primary, its standby and the temp directory holding both. */
export interface PgClusters {
  root: string;
  primary: PgCluster;
  standby: PgCluster;
}

function cluster(root: string, name: string, port: number): PgCluster {
  const dir = path.join(root, name);
  const log = path.join(root, `${name}.log`);
  const ctl = (...args: string[]) => asPostgres("pg_ctl", ["-D", dir, "-l", log, "-w", "-t", "60", ...args]);
  return {
    name,
    dir,
    port,
    url: (database = "postgres") => `postgresql://postgres@127.0.0.1:${port}/${database}`,
    start: async () => void (await ctl("start")),
    stop: async (mode) => void (await ctl("stop", "-m", mode)),
    promote: async () => void (await ctl("promote")),
  };
}

/** Settings of both clusters (appended to the primary's postgresql.conf; the standby copies them). */
const SETTINGS = [
  "listen_addresses = '127.0.0.1'",
  "fsync = off",
  "full_page_writes = off",
  "synchronous_commit = on",
  "synchronous_standby_names = '*'",
  "wal_level = replica",
  "max_wal_senders = 4",
  "max_connections = 60",
  "shared_buffers = 32MB",
  // the standby reconnects to a restarted primary within a fifth of a second (default 5 s)
  "wal_retrieve_retry_interval = 200ms",
];

/**
 * Creates and starts a primary (`initdb`, UTF-8, C.UTF-8 collation as Plandesk expects) and a
 * synchronous streaming standby of it, and waits until the primary reports the standby `sync`.
 * Errors: throws with the programs' output; what was created is removed first.
 */
export async function createPrimaryAndStandby(): Promise<PgClusters> {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "plandesk-failover-"));
  fs.chmodSync(root, 0o755);
  if (process.getuid?.() === 0) fs.chownSync(root, Number((await run("id", ["-u", "postgres"])).stdout), Number((await run("id", ["-g", "postgres"])).stdout));
  const primary = cluster(root, "primary", await freePort());
  const standby = cluster(root, "standby", await freePort());
  const clusters = { root, primary, standby };
  try {
    await asPostgres("initdb", ["-D", primary.dir, "-U", "postgres", "--auth=trust", "-E", "UTF8", "--locale=C.UTF-8", "--no-sync"]);
    fs.appendFileSync(path.join(primary.dir, "postgresql.conf"), [...SETTINGS, `port = ${primary.port}`, `unix_socket_directories = '${root}'`, ""].join("\n"));
    await primary.start();
    await asPostgres("pg_basebackup", ["-h", "127.0.0.1", "-p", String(primary.port), "-U", "postgres", "-D", standby.dir, "-R", "-X", "stream", "--no-sync"]);
    // Once promoted, the standby is a primary without a standby of its own: it must not wait for
    // one (with the primary's synchronous_standby_names every commit would wait without end).
    fs.appendFileSync(path.join(standby.dir, "postgresql.auto.conf"), `port = ${standby.port}\nsynchronous_standby_names = ''\n`);
    await standby.start();
    const c = new pg.Client({ connectionString: primary.url() });
    await c.connect();
    try {
      for (let i = 0; (await c.query("SELECT 1 FROM pg_stat_replication WHERE sync_state = 'sync'")).rowCount === 0; i++) {
        if (i > 300) throw new Error("the standby did not become synchronous within 30 s");
        await new Promise((r) => setTimeout(r, 100));
      }
    } finally {
      await c.end();
    }
    return clusters;
  } catch (e) {
    await removeClusters(clusters);
    throw e;
  }
}

/**
 * Copies the database of `sourceUrl` (any server) into a new database `name` on `target`
 * (`pg_dump -Fc | pg_restore`), in C.UTF-8 collation. Errors: throws with the programs' output.
 */
export async function copyDatabase(sourceUrl: string, target: PgCluster, name: string): Promise<void> {
  const c = new pg.Client({ connectionString: target.url() });
  await c.connect();
  try {
    await c.query(`CREATE DATABASE "${name}" TEMPLATE template0 ENCODING 'UTF8' LC_COLLATE 'C.UTF-8' LC_CTYPE 'C.UTF-8'`);
  } finally {
    await c.end();
  }
  const dump = path.join(os.tmpdir(), `plandesk-copy-${process.pid}-${Date.now()}.dump`);
  try {
    await run(path.join(pgBin(), "pg_dump"), ["-Fc", "--no-owner", "-f", dump, sourceUrl], { timeout: 60_000 });
    await run(path.join(pgBin(), "pg_restore"), ["--no-owner", "-d", target.url(name), dump], { timeout: 60_000 });
  } finally {
    fs.rmSync(dump, { force: true });
  }
}

/** Stops both clusters (immediately, whatever state they are in) and deletes their directory; never throws. */
export async function removeClusters(clusters: PgClusters | undefined): Promise<void> {
  if (!clusters) return;
  for (const c of [clusters.primary, clusters.standby]) {
    if (!fs.existsSync(path.join(c.dir, "postmaster.pid"))) continue;
    await c.stop("immediate").catch(() => undefined);
  }
  fs.rmSync(clusters.root, { recursive: true, force: true });
}
