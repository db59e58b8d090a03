#!/usr/bin/env node
// `npm start`: install what is missing, generate the Prisma clients when the schema changed,
// migrate, seed the demo desk into a database without it, build when sources changed, and serve. Plain Node (no dependencies) so it runs on a
// fresh clone before `npm ci`.
import { spawnSync, spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { serverNodeArgs } from "../lib/net/server-heap.mjs";
import { pruneServers, rebuildRefusal, serverAlive } from "../lib/net/server-registry.mjs";
import { clientsUpToDate } from "./client-stamp.mjs";
import { SOURCE_HASH_STAMP, sourceHash } from "../lib/net/source-hash.mjs";

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), "..");
process.chdir(root);
process.env.NEXT_TELEMETRY_DISABLED = "1";
const port = process.env.PORT ?? "3000";
process.env.PLANDESK_URL ??= `http://localhost:${port}`;

// Production mode needs a real session secret: the rule of startupProblem() in lib/server/config/config.ts
// (the server itself refuses too; saying it here saves a build).
if (process.env.PLANDESK_DEMO === "0" && (process.env.BETTER_AUTH_SECRET?.trim() ?? "").length < 32) {
  console.error("npm start: production mode (PLANDESK_DEMO=0) needs BETTER_AUTH_SECRET of at least 32 characters to sign sessions.");
  console.error("Set it to a long random value and keep it stable, e.g. BETTER_AUTH_SECRET=$(openssl rand -base64 32).");
  process.exit(1);
}

function run(cmd, args, extraEnv = {}) {
  const r = spawnSync(cmd, args, { stdio: "inherit", env: { ...process.env, ...extraEnv } });
  if (r.status !== 0) {
    console.error(`\nnpm start: "${[cmd, ...args].join(" ")}" failed (exit ${r.status ?? r.signal}).`);
    process.exit(r.status ?? 1);
  }
}

// 1. Dependencies: install when node_modules is missing or older than the lockfile.
const lock = path.join(root, "package-lock.json");
const installed = path.join(root, "node_modules", ".package-lock.json");
if (!fs.existsSync(installed) || fs.statSync(installed).mtimeMs < fs.statSync(lock).mtimeMs) {
  console.log("Installing dependencies (npm ci)…");
  run("npm", ["ci", "--no-audit", "--no-fund"]);
}

// 2. Data directory for the embedded database must be writable: say which path and why.
const dbUrl = process.env.DATABASE_URL?.trim() || `file:${path.join(root, "data", "plandesk.db")}`;
if (dbUrl.startsWith("file:")) {
  const file = path.resolve(root, dbUrl.slice(5));
  const dir = path.dirname(file);
  try {
    fs.mkdirSync(dir, { recursive: true });
    fs.accessSync(dir, fs.constants.W_OK);
  } catch (e) {
    console.error(`npm start: the data directory ${dir} cannot be used (${e.code ?? e.message}).`);
    console.error("Create it with write permission, or set DATABASE_URL to another file: path.");
    process.exit(1);
  }
}

// PostgreSQL: the database is created by the migration when it does not exist yet (CREATEDB right).
if (/^postgres(ql)?:\/\//.test(dbUrl)) {
  const u = new URL(dbUrl);
  console.log(`Database: PostgreSQL ${u.hostname}:${u.port || 5432}${u.pathname} (several instances may share it; docs/operations.md "PostgreSQL and several instances").`);
}

// 3. Client, migrations, demo seed — each only when needed. The Prisma clients are generated again
// only when what they are made from changed (the schema, its PostgreSQL derivation, the installed
// Prisma): regenerating rewrites lib/generated, which the build's source hash covers. The demo
// desk is seeded only into a database that does not hold it yet (`npm run db:seed` seeds again).
if (!clientsUpToDate()) run("npm", ["run", "--silent", "db:generate"]);
run("npm", ["run", "--silent", "db:migrate"]);
run("npm", ["run", "--silent", "db:seed", "--", "--if-empty"]);

// 4. Build when any source file changed since the last build. The hash is taken AFTER the build
// (which may rewrite next-env.d.ts), and files the build writes are left out, so a second
// `npm start` with nothing changed does not rebuild. Two `npm start` of one checkout take turns:
// a lock directory (created atomically) holds the building process's pid. A build replaces the
// files in `.next` that running servers serve from, so it is refused while a server of this
// checkout runs (each registers in `.servers/`; lib/net/server-registry.mjs).
const stamp = path.join(root, SOURCE_HASH_STAMP);
const upToDate = () => fs.existsSync(path.join(root, ".next", "BUILD_ID")) && fs.existsSync(stamp) && fs.readFileSync(stamp, "utf8") === sourceHash(root);
const lockDir = path.join(root, ".build-lock");
function alive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
async function withBuildLock(fn) {
  let said = false;
  for (;;) {
    try {
      fs.mkdirSync(lockDir);
      fs.writeFileSync(path.join(lockDir, "pid"), String(process.pid));
      break;
    } catch (e) {
      if (e.code !== "EEXIST") throw e;
      const pid = Number(fs.readFileSync(path.join(lockDir, "pid"), { encoding: "utf8", flag: "a+" }) || 0);
      if (pid && !alive(pid)) {
        fs.rmSync(lockDir, { recursive: true, force: true }); // left by a build that was killed
        continue;
      }
      if (!said) console.log(`Another npm start of this checkout is building the console (pid ${pid || "?"}); waiting for it…`);
      said = true;
      await new Promise((r) => setTimeout(r, 1000));
    }
  }
  try {
    return fn();
  } finally {
    fs.rmSync(lockDir, { recursive: true, force: true });
  }
}
const refusal = () => rebuildRefusal(pruneServers(root, serverAlive), serverAlive);
if (!upToDate()) {
  const refused =
    refusal() ??
    (await withBuildLock(() => {
      if (upToDate()) return null; // the other start built the same sources
      const now = refusal(); // a server may have started while this start waited for the lock
      if (now) return now;
      console.log("Building the console…");
      run("npx", ["next", "build"]);
      fs.writeFileSync(stamp, sourceHash(root));
      return null;
    }));
  if (refused) {
    console.error(refused);
    process.exit(1);
  }
}

// 5. Serve.
if (process.env.PLANDESK_DEMO !== "0") {
  console.log(`\nPlandesk demo desk on ${process.env.PLANDESK_URL}`);
  console.log('Sign in with password "plandesk-demo" as:');
  console.log("  operator@plandesk.test    approves refunds up to $500.00, may not author refunds");
  console.log("  senior@plandesk.test      approves and authors refunds up to $2,000.00");
  console.log("  supervisor@plandesk.test  supervisor");
  console.log("  admin@plandesk.test       admin");
  console.log("Agent API key: pd_demo_agent_key (submits runs, claims and reports steps)");
  console.log("Ticketing integration key: pd_demo_integration_key (posts task revisions)\n");
}
// The custom server (scripts/server.mjs) sets the client address from the TCP socket.
// Its heap is capped (lib/net/server-heap.mjs; PLANDESK_HEAP_MB, default 512 MB, 0 for V8's own).
let heapArgs;
try {
  heapArgs = serverNodeArgs(process.env);
} catch (e) {
  console.error(`plandesk: ${e.message}`);
  process.exit(1);
}
const server = spawn(process.execPath, [...heapArgs, path.join(root, "scripts", "server.mjs")], { stdio: "inherit", env: { ...process.env, PORT: port } });
for (const sig of ["SIGINT", "SIGTERM"]) process.on(sig, () => server.kill(sig));
server.on("exit", (code) => process.exit(code ?? 0));
