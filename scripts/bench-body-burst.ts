/**
 * `npx tsx scripts/bench-body-burst.ts`: what a burst of oversized unauthenticated uploads costs
 * the server — 60 concurrent POSTs of 9.9 MiB each to an API path — with the body limit in front
 * (lib/net/body-limit.mjs `withBodyLimit`, what scripts/server.mjs runs) and without it.
 *
 * Each scenario starts a fresh server process (plain Node, a real `http` server) whose handler is
 * a stub that reads the whole body into memory as a route handler behind Next.js's proxy would
 * (the proxy copies a body into memory up to 10 MiB), then answers a small JSON. Scenarios:
 * - `guarded, Content-Length`: the limit in front; clients declare their length (refused at once);
 * - `guarded, chunked`: the limit in front; clients stream without a length (cut at 1 MiB);
 * - `unguarded, Content-Length`: no limit in front (the stub reads all 9.9 MiB of each).
 * During each burst a probe sends small GETs one after another: the stall is its worst and median
 * latency against its median before the burst. The server's RSS is read from /proc/<pid>/status
 * before the burst, at its peak (VmHWM) and after. Results: bench/results/body-burst.json (with
 * the load average: a figure taken on a busy machine says so). Everything on 127.0.0.1.
 */
import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";

const ROOT = path.resolve(__dirname, "..");
const CONCURRENT = 60;
const BODY_BYTES = Math.round(9.9 * 1024 * 1024);
const MiB = 1024 * 1024;

/** The server process: a stub route behind withBodyLimit (or not), printing its port. */
const SERVER = (guarded: boolean) => `
import http from "node:http";
import { withBodyLimit } from ${JSON.stringify(path.join(ROOT, "lib/net/body-limit.mjs"))};
const stub = async (req, res) => {
  if (req.method === "GET") return void res.end('{"ok":true}');
  const chunks = [];
  let n = 0;
  try { for await (const c of req) { n += c.length; if (n <= 10 * 1024 * 1024) chunks.push(c); } } catch { return; }
  const body = Buffer.concat(chunks);
  if (!res.headersSent) res.end(JSON.stringify({ error: { code: "unauthorized", message: "Sign in", read: body.length } }));
};
const server = http.createServer(${guarded ? "withBodyLimit(stub)" : "stub"});
server.keepAliveTimeout = 65000;
server.listen(0, "127.0.0.1", () => console.log("PORT " + server.address().port));
`;

function rssOf(pid: number): { rssMiB: number; peakMiB: number } {
  const status = fs.readFileSync(`/proc/${pid}/status`, "utf8");
  const kb = (k: string) => Number(new RegExp(`${k}:\\s+(\\d+)`).exec(status)?.[1] ?? 0);
  return { rssMiB: Math.round((kb("VmRSS") / 1024) * 10) / 10, peakMiB: Math.round((kb("VmHWM") / 1024) * 10) / 10 };
}

async function start(guarded: boolean): Promise<{ child: ChildProcess; port: number }> {
  const child = spawn(process.execPath, ["--input-type=module", "-e", SERVER(guarded)], { stdio: ["ignore", "pipe", "inherit"] });
  const port = await new Promise<number>((resolve, reject) => {
    let out = "";
    child.stdout!.on("data", (c: Buffer) => {
      out += c.toString();
      const m = /PORT (\d+)/.exec(out);
      if (m) resolve(Number(m[1]));
    });
    child.on("exit", (code) => reject(new Error(`server exited ${code}`)));
  });
  return { child, port };
}

const payload = Buffer.alloc(BODY_BYTES, 0x7b);

/** One upload; resolves with its status (0: the connection died before an answer). */
function upload(port: number, chunked: boolean): Promise<number> {
  return new Promise((resolve) => {
    let done = false;
    const finish = (s: number) => {
      if (!done) {
        done = true;
        resolve(s);
      }
    };
    const headers: Record<string, string | number> = { "content-type": "application/json" };
    if (!chunked) headers["content-length"] = BODY_BYTES;
    const req = http.request({ host: "127.0.0.1", port, method: "POST", path: "/api/runs/run_x/approvals", headers, agent: false }, (res) => {
      res.resume();
      res.on("end", () => finish(res.statusCode ?? 0));
      res.on("error", () => finish(res.statusCode ?? 0));
    });
    req.on("error", () => setTimeout(() => finish(0), 100));
    if (chunked) {
      // stream in 256 KiB pieces
      let at = 0;
      const pump = () => {
        while (at < BODY_BYTES && !req.destroyed) {
          const part = payload.subarray(at, Math.min(at + 256 * 1024, BODY_BYTES));
          at += part.length;
          if (!req.write(part)) return void req.once("drain", pump);
        }
        if (!req.destroyed) req.end();
      };
      pump();
    } else req.end(payload);
  });
}

/** One small GET's latency (ms). */
function probe(port: number, agent: http.Agent): Promise<number> {
  const t = performance.now();
  return new Promise((resolve, reject) => {
    http
      .get({ host: "127.0.0.1", port, path: "/api/health", agent }, (res) => {
        res.resume();
        res.on("end", () => resolve(performance.now() - t));
      })
      .on("error", reject);
  });
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.floor(s.length / 2)] : 0;
};
const r1 = (n: number) => Math.round(n * 10) / 10;

async function scenario(name: string, guarded: boolean, chunked: boolean) {
  const { child, port } = await start(guarded);
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const before: number[] = [];
  for (let i = 0; i < 30; i++) before.push(await probe(port, agent));
  const rssBefore = rssOf(child.pid!);
  let bursting = true;
  const during: number[] = [];
  const probing = (async () => {
    while (bursting) during.push(await probe(port, agent));
  })();
  const t0 = performance.now();
  const statuses = await Promise.all(Array.from({ length: CONCURRENT }, () => upload(port, chunked)));
  const burstMs = performance.now() - t0;
  bursting = false;
  await probing;
  const after = rssOf(child.pid!);
  const counts: Record<string, number> = {};
  for (const s of statuses) counts[s] = (counts[s] ?? 0) + 1;
  agent.destroy();
  child.kill();
  const result = {
    scenario: name,
    uploads: CONCURRENT,
    uploadMiB: r1(BODY_BYTES / MiB),
    statuses: counts,
    burstMs: Math.round(burstMs),
    probe: { beforeMedianMs: r1(median(before)), duringMedianMs: r1(median(during)), duringMaxMs: r1(Math.max(0, ...during)), duringCount: during.length },
    rssMiB: { before: rssBefore.rssMiB, peak: after.peakMiB, after: after.rssMiB },
  };
  console.log(JSON.stringify(result));
  return result;
}

async function main() {
  const results = [];
  results.push(await scenario("guarded, Content-Length", true, false));
  results.push(await scenario("guarded, chunked", true, true));
  results.push(await scenario("unguarded, Content-Length", false, false));
  const out = path.join(ROOT, "bench/results/body-burst.json");
  fs.writeFileSync(out, `${JSON.stringify({ measuredAt: new Date().toISOString(), node: process.version, cpus: os.cpus().length, loadavg: os.loadavg().map(r1), results }, null, 2)}\n`);
  console.log(`wrote ${path.relative(ROOT, out)}`);
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
