#!/usr/bin/env node
// The proof from outside the repository (docs/testing.md "Proof from outside", docs/adapters.md
// "Install"), a step of `npm test` after `next build`:
//   1. builds packages/client (tsc → dist with .d.ts) and `npm pack`s it;
//   2. makes a scratch project in a temp directory OUTSIDE the repository, installs the tarball
//      there with the frameworks at the versions the repository pins (from the npm cache that
//      `npm ci` filled: --prefer-offline), copies examples/ into it and type-checks them against
//      the installed package's declarations;
//   3. starts a Plandesk instance from the production build on its own port and its own fresh
//      SQLite database (demo mode);
//   4. runs each framework's example from the scratch project (the installed package, not the
//      repository's source) against it; an operator approves each run over HTTP and the example
//      must finish with every step executed through a claim;
//   5. runs the example QA suite (examples/qa-suite, copied to the scratch project) with the
//      installed testing package (`@plandesk/client/testing`): the four flows of docs/testing.md.
// Then it stops the server and removes the scratch directory, whatever happened.
//   node scripts/outside-proof.mjs          (needs `next build` first; OUTSIDE_PORT, default 3290)
//   node scripts/outside-proof.mjs --keep   keep the scratch directory (printed) for a look
import { spawn, spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), "..");
const pkgDir = path.join(root, "packages", "client");
const port = Number(process.env.OUTSIDE_PORT ?? 3290);
const origin = `http://localhost:${port}`;
const keep = process.argv.includes("--keep");
const FRAMEWORKS = ["ai-sdk", "openai-agents", "langgraph", "langchain"];
/** What the scratch project installs besides the tarball, at the versions the repository has installed (its lockfile's). */
const PEERS = ["ai", "@openai/agents", "@langchain/core", "@langchain/langgraph", "langchain", "zod", "@playwright/test", "@modelcontextprotocol/sdk", "tsx", "typescript", "@types/node"];

const started = Date.now();
const timings = [];
let server = null;
let scratch = null;

function elapsed(t) {
  return `${((Date.now() - t) / 1000).toFixed(1)} s`;
}

/** Runs one phase and records how long it took. */
async function phase(name, fn) {
  const t = Date.now();
  console.log(`\n▷ outside proof: ${name}`);
  const out = await fn();
  timings.push(`${name}: ${elapsed(t)}`);
  console.log(`▷ outside proof: ${name} took ${elapsed(t)}`);
  return out;
}

/** Runs a command to completion (output shown); throws on a non-zero exit. */
function run(cmd, args, opts = {}) {
  const r = spawnSync(cmd, args, { stdio: "inherit", ...opts, env: { ...process.env, ...opts.env } });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(" ")} exited ${r.status ?? r.signal}`);
}

/** The version of `name` installed in the repository (what its lockfile pins). */
function installedVersion(name) {
  return JSON.parse(fs.readFileSync(path.join(root, "node_modules", name, "package.json"), "utf8")).version;
}

/** Polls `check` until it returns a truthy value or `ms` pass; throws `what` on timeout. */
async function waitFor(what, ms, check) {
  const until = Date.now() + ms;
  for (;;) {
    const v = await check().catch(() => null);
    if (v) return v;
    if (Date.now() > until) throw new Error(`timed out after ${ms / 1000} s waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

function cleanup() {
  if (server && server.exitCode === null) {
    try {
      process.kill(-server.pid, "SIGTERM");
    } catch {
      /* already gone */
    }
  }
  if (scratch && !keep) fs.rmSync(scratch, { recursive: true, force: true });
}
for (const sig of ["SIGINT", "SIGTERM"]) {
  process.on(sig, () => {
    cleanup();
    process.exit(130);
  });
}

/** Signs `email` in over HTTP (Origin = the instance's public origin) and returns the cookie header. */
async function signIn(email) {
  const res = await fetch(`${origin}/api/auth/sign-in/email`, { method: "POST", headers: { "content-type": "application/json", origin }, body: JSON.stringify({ email, password: "plandesk-demo" }) });
  if (!res.ok) throw new Error(`sign-in of ${email} answered ${res.status}: ${await res.text()}`);
  return res.headers
    .getSetCookie()
    .map((c) => c.split(";")[0])
    .join("; ");
}

/** Starts one example from the scratch project; resolves its run id once printed, and its exit. */
function startExample(name) {
  const child = spawn("npx", ["tsx", `examples/${name}/index.ts`, "--url", origin, "--key", "pd_demo_agent_key", "--poll-ms", "300", "--timeout-s", "90"], { cwd: scratch, env: { ...process.env, NEXT_TELEMETRY_DISABLED: "1" } });
  let text = "";
  let found;
  const runId = new Promise((resolve, reject) => {
    found = resolve;
    child.on("exit", (code) => reject(new Error(`${name} exited ${code} before proposing a run:\n${text}`)));
  });
  const onData = (d) => {
    text += String(d);
    const m = /proposed run (run_[A-Za-z0-9_-]+)/.exec(text);
    if (m) found(m[1]);
  };
  child.stdout.on("data", onData);
  child.stderr.on("data", onData);
  const exited = new Promise((resolve) => child.on("exit", (code) => resolve(code ?? 1)));
  return { runId, exited, text: () => text, kill: () => child.kill("SIGTERM") };
}

async function main() {
  if (!fs.existsSync(path.join(root, ".next", "BUILD_ID"))) throw new Error("no production build: run `npx next build` first");
  scratch = fs.mkdtempSync(path.join(os.tmpdir(), "plandesk-outside-"));
  if (path.relative(root, scratch).split(path.sep)[0] !== "..") throw new Error(`the scratch directory ${scratch} is inside the repository`);
  console.log(`outside proof: scratch project ${scratch}, instance ${origin}`);

  const tarball = await phase("build and pack @plandesk/client", () => {
    fs.rmSync(path.join(pkgDir, "dist"), { recursive: true, force: true });
    run("npx", ["tsc", "-p", path.join(pkgDir, "tsconfig.json")], { cwd: root });
    const packed = spawnSync("npm", ["pack", "--json", "--pack-destination", scratch], { cwd: pkgDir, encoding: "utf8" });
    if (packed.status !== 0) throw new Error(`npm pack failed:\n${packed.stderr}`);
    const [{ filename, size, entryCount }] = JSON.parse(packed.stdout);
    console.log(`packed ${filename}: ${entryCount} files, ${(size / 1024).toFixed(0)} KiB`);
    return path.join(scratch, filename);
  });

  await phase("install the tarball in the scratch project", () => {
    const dependencies = { "@plandesk/client": `file:${tarball}` };
    for (const name of PEERS) dependencies[name] = installedVersion(name);
    fs.writeFileSync(path.join(scratch, "package.json"), JSON.stringify({ name: "plandesk-outside-proof", private: true, type: "module", dependencies }, null, 2));
    // The agent examples and the QA suite, as a team copies them; not examples/carrier-mcp — that is
    // the demo desk's upstream MCP server, run by Plandesk, not an agent, and checked with the repository.
    fs.cpSync(path.join(root, "examples"), path.join(scratch, "examples"), { recursive: true, filter: (src) => !src.includes(`${path.sep}carrier-mcp`) });
    fs.writeFileSync(
      path.join(scratch, "tsconfig.json"),
      JSON.stringify({ compilerOptions: { target: "ES2022", module: "ESNext", moduleResolution: "Bundler", strict: true, skipLibCheck: true, noEmit: true, types: ["node"] }, include: ["examples/**/*.ts"] }, null, 2),
    );
    run("npm", ["install", "--prefer-offline", "--no-audit", "--no-fund", "--loglevel=error"], { cwd: scratch });
    // The examples and the QA suite compile against the installed declarations (exports map, .d.ts).
    run("npx", ["tsc", "-p", "tsconfig.json"], { cwd: scratch });
  });

  await phase("start an instance (production build, fresh SQLite database)", async () => {
    const env = {
      ...process.env,
      DATABASE_URL: `file:${path.join(scratch, "outside-e2e.db")}`,
      PORT: String(port),
      PLANDESK_URL: origin,
      PLANDESK_DEMO: "1",
      PLANDESK_SIGNIN_LIMIT: "500",
      PLANDESK_DRAIN_NOTICE_SECONDS: "0", // no load balancer polls it: it stops at once when the proof ends
      NEXT_TELEMETRY_DISABLED: "1",
    };
    for (const script of ["db:migrate", "db:seed"]) run("npm", ["run", "--silent", script], { cwd: root, env });
    server = spawn(process.execPath, [path.join(root, "scripts", "server.mjs")], { cwd: root, env, stdio: ["ignore", "inherit", "inherit"], detached: true });
    await waitFor(`${origin}/sign-in`, 120_000, async () => {
      if (server.exitCode !== null) throw new Error(`the server exited ${server.exitCode}`);
      return (await fetch(`${origin}/sign-in`)).ok;
    });
  });

  await phase("run each framework's example from the scratch project", async () => {
    const cookie = await signIn("operator@plandesk.test");
    const session = { cookie, origin, "content-type": "application/json" };
    for (const name of FRAMEWORKS) {
      const t = Date.now();
      const agent = startExample(name);
      try {
        const runId = await agent.runId;
        const view = await (await fetch(`${origin}/api/runs/${runId}`, { headers: session })).json();
        const approved = await fetch(`${origin}/api/runs/${runId}/approvals`, { method: "POST", headers: session, body: JSON.stringify({ planVersion: view.run.planVersion, stepIds: "all", idempotencyKey: `outside:${runId}` }) });
        if (!approved.ok) throw new Error(`approving ${runId} answered ${approved.status}: ${await approved.text()}`);
        const code = await agent.exited;
        if (code !== 0) throw new Error(`examples/${name} exited ${code}:\n${agent.text()}`);
        const after = await (await fetch(`${origin}/api/v1/runs/${runId}`, { headers: { authorization: "Bearer pd_demo_agent_key" } })).json();
        const executed = after.run.steps.map((s) => s.execution?.status ?? "not run");
        if (after.run.status !== "completed" || executed.some((s) => s !== "succeeded")) throw new Error(`examples/${name}: run ${runId} is ${after.run.status} (${executed.join(", ")}):\n${agent.text()}`);
        if (!/\[model\] final: /.test(agent.text())) throw new Error(`examples/${name} printed no final answer:\n${agent.text()}`);
        console.log(`examples/${name}: run ${runId} completed, ${executed.length} steps executed through claims (${elapsed(t)})`);
      } finally {
        agent.kill();
      }
    }
  });

  await phase("run the example QA suite with the installed testing package", () => {
    fs.cpSync(path.join(root, "examples", "qa-suite"), path.join(scratch, "qa"), { recursive: true });
    run("npx", ["playwright", "test", "-c", "qa/playwright.config.ts"], { cwd: scratch, env: { PLANDESK_URL: origin, QA_OUTPUT_DIR: path.join(scratch, "qa-results"), CI: "1" } });
  });
}

main().then(
  () => {
    cleanup();
    console.log(`\noutside proof passed in ${elapsed(started)} (${timings.join("; ")})`);
  },
  (e) => {
    cleanup();
    console.error(`\noutside proof FAILED after ${elapsed(started)}: ${e instanceof Error ? e.message : e}`);
    process.exit(1);
  },
);
