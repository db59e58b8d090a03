#!/usr/bin/env node
// Serves the production build for Playwright on E2E_PORT with a fresh test database
// (data/e2e.db, deleted first). Refuses any DATABASE_URL that is not a local test file.
import { spawnSync, spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { serverNodeArgs } from "../lib/net/server-heap.mjs";

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), "..");
process.chdir(root);
const port = process.env.E2E_PORT ?? "3100";
const file = path.join(root, "data", "e2e.db");
if (process.env.DATABASE_URL && !process.env.DATABASE_URL.includes("e2e")) {
  console.error("e2e-server: refusing to run against a database that is not a local test one.");
  process.exit(1);
}
fs.mkdirSync(path.dirname(file), { recursive: true });
for (const suffix of ["", "-wal", "-shm"]) fs.rmSync(file + suffix, { force: true });
const env = {
  ...process.env,
  DATABASE_URL: `file:${file}`,
  PORT: port,
  PLANDESK_URL: `http://localhost:${port}`,
  PLANDESK_DEMO: "1",
  // every e2e browser signs in from 127.0.0.1; the guard itself is covered by its own test
  PLANDESK_SIGNIN_LIMIT: "500",
  // the specs share a handful of people and the demo keys across parallel workers; the rate limits
  // themselves are proven by app/api/rate-limits.test.ts and lib/server/rate-limits on both databases
  PLANDESK_AGENT_RATE: "1000",
  PLANDESK_AGENT_BURST: "10000",
  PLANDESK_INTEGRATION_RATE: "1000",
  PLANDESK_INTEGRATION_BURST: "10000",
  PLANDESK_PERSON_RATE: "1000",
  PLANDESK_PERSON_BURST: "10000",
  NEXT_TELEMETRY_DISABLED: "1",
};
for (const script of ["db:migrate", "db:seed"]) {
  const r = spawnSync("npm", ["run", "--silent", script], { stdio: "inherit", env });
  if (r.status !== 0) process.exit(r.status ?? 1);
}
if (!fs.existsSync(path.join(root, ".next", "BUILD_ID"))) {
  const r = spawnSync("npx", ["next", "build"], { stdio: "inherit", env });
  if (r.status !== 0) process.exit(r.status ?? 1);
}
// The custom server (scripts/server.mjs) sets the client address from the TCP socket.
// With the heap cap production runs under (lib/net/server-heap.mjs).
const server = spawn(process.execPath, [...serverNodeArgs(env), path.join(root, "scripts", "server.mjs")], { stdio: ["ignore", "pipe", "pipe"], env: { ...env, PORT: port } });
// What the server printed last (both streams, passed on as they come): kept so that a server that
// dies in the middle of the suite leaves its last words in data/e2e-server-exit.log, which the
// suite's reporter (e2e/server-exit-reporter.ts) prints after the summary — the tail of a long
// run's output is all a CI log may keep.
const TAIL_BYTES = 64 * 1024;
let tail = "";
for (const [from, to] of [[server.stdout, process.stdout], [server.stderr, process.stderr]]) {
  from.on("data", (d) => {
    to.write(d);
    tail = (tail + d).slice(-TAIL_BYTES);
  });
}
const exitLog = path.join(root, "data", "e2e-server-exit.log");
fs.rmSync(exitLog, { force: true });
let stopping = false;
for (const sig of ["SIGINT", "SIGTERM"]) {
  process.on(sig, () => {
    stopping = true;
    server.kill(sig);
  });
}
server.on("exit", (code, signal) => {
  if (!stopping) {
    const what = `e2e-server: the server on port ${port} exited by itself at ${new Date().toISOString()} (code ${code}, signal ${signal}); its last output:\n${tail}`;
    fs.writeFileSync(exitLog, what);
    console.error(what);
  }
  process.exit(code ?? 0);
});
