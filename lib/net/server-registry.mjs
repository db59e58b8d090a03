// Which servers of this checkout are running: each scripts/server.mjs writes `.servers/<pid>.json`
// ({pid, port, startedAt}) when it listens and removes it when it exits, so `npm start`
// (scripts/start.mjs) can refuse to rebuild `.next` in place under a running server — a rebuild
// replaces the files every running instance serves from, and their next page fails. Plain
// JavaScript: the server and start.mjs run it without a compile step.
import fs from "node:fs";
import path from "node:path";

/** The registry folder under the checkout's root (left out of start.mjs's source hash and of git). */
export const SERVERS_DIR = ".servers";

/**
 * Records the server process `pid` listening on `port` under the checkout `root`; returns the
 * file written (`<root>/.servers/<pid>.json`). `startedAt`: ISO 8601 UTC.
 */
export function registerServer(root, { pid, port, startedAt = new Date().toISOString() }) {
  const dir = path.join(root, SERVERS_DIR);
  fs.mkdirSync(dir, { recursive: true });
  const file = path.join(dir, `${pid}.json`);
  fs.writeFileSync(file, JSON.stringify({ pid, port, startedAt }));
  return file;
}

/** Removes a registration `registerServer` wrote; never throws. */
export function unregisterServer(file) {
  try {
    fs.rmSync(file, { force: true });
  } catch {
    /* gone already */
  }
}

/** The registrations under `root` (`[]` when none), unreadable files left out; each `{pid, port, startedAt, file}`. */
export function registeredServers(root) {
  const dir = path.join(root, SERVERS_DIR);
  if (!fs.existsSync(dir)) return [];
  const out = [];
  for (const name of fs.readdirSync(dir).sort()) {
    if (!/^\d+\.json$/.test(name)) continue;
    const file = path.join(dir, name);
    try {
      const e = JSON.parse(fs.readFileSync(file, "utf8"));
      if (Number.isInteger(e.pid)) out.push({ pid: e.pid, port: e.port ?? null, startedAt: e.startedAt ?? null, file });
    } catch {
      /* half-written or removed meanwhile */
    }
  }
  return out;
}

/**
 * The registrations under `root` whose process is alive (`alive(pid)`), removing the others' files
 * (left by a server that was killed with SIGKILL or crashed, so it could not remove its own).
 */
export function pruneServers(root, alive) {
  const live = [];
  for (const s of registeredServers(root)) {
    if (alive(s.pid)) live.push(s);
    else unregisterServer(s.file);
  }
  return live;
}

/**
 * Whether process `pid` is alive and is a Plandesk server (on Linux its command line names
 * scripts/server.mjs, so a pid reused by another program after a crash does not count).
 */
export function serverAlive(pid) {
  try {
    process.kill(pid, 0);
  } catch (e) {
    if (e.code !== "EPERM") return false;
  }
  try {
    return fs.readFileSync(`/proc/${pid}/cmdline`, "utf8").includes("server.mjs");
  } catch {
    return true; // no /proc (macOS): the signal check is all there is
  }
}

/**
 * Whether `npm start` may rebuild `.next` in place: `null` when none of `servers` is alive
 * (`alive(pid)`), otherwise the message refusing it, naming each live server's pid and port and
 * what to do. Pure: `servers` from `registeredServers`, `alive` is `serverAlive` in production.
 */
export function rebuildRefusal(servers, alive) {
  const live = servers.filter((s) => alive(s.pid));
  if (live.length === 0) return null;
  const which = live.map((s) => `pid ${s.pid}${s.port ? ` on port ${s.port}` : ""}${s.startedAt ? `, since ${s.startedAt}` : ""}`).join("; ");
  return [
    `npm start: the sources changed since the last build, but ${live.length === 1 ? "a server of this checkout is" : `${live.length} servers of this checkout are`} running from .next (${which}).`,
    "Rebuilding in place would replace the files it serves and break its next requests. Either:",
    `  - stop it first: kill -TERM ${live.map((s) => s.pid).join(" ")} (it drains its requests and exits), then run npm start again; or`,
    "  - build and serve the new version from another copy of the checkout (e.g. git worktree add ../plandesk-next),",
    "    and move traffic over with the health checks (docs/operations.md \"Running it as a service\").",
  ].join("\n");
}
