/**
 * Splits the server's CPU profile from `npm run bench:cpu -- --profile <dir>` by request kind:
 *
 *   npx tsx scripts/profile-phases.ts <dir> [phase…] [--top <n>]
 *
 * Reads the one `.cpuprofile` in <dir> (the server's; V8 timestamps in microseconds of
 * CLOCK_MONOTONIC) and `phases.json` (each measured request's window on the same clock), maps
 * every sample to the request it fell in, and every frame of the production build back to its
 * source through the build's own source maps (`.next/server/**.js.map`, Node's `SourceMap`).
 * Prints, per phase (or only the named ones): sampled CPU ms per request; self time by package
 * (`node_modules/<pkg>`), product folder (`lib/server/claims`…) or V8 bucket (GC, program), and
 * the same summed by layer (Node.js, Prisma and the driver, Next.js, GC, product code, other); the
 * top functions by self time; the product functions by inclusive time (own code and everything
 * it called). A tool for finding where a request spends its CPU, not a benchmark: the profiler
 * itself slows the server.
 */
import fs from "node:fs";
import path from "node:path";
import { SourceMap } from "node:module";
import { fileURLToPath } from "node:url";

interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
  columnNumber: number;
}
interface ProfileNode {
  id: number;
  callFrame: CallFrame;
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  startTime: number;
  samples: number[];
  timeDeltas: number[];
}
interface Window {
  phase: string;
  startUs: number;
  endUs: number;
}

const argv = process.argv.slice(2);
const topIdx = argv.indexOf("--top");
const top = topIdx >= 0 ? Number(argv.splice(topIdx, 2)[1]) : 20;
const [dir, ...only] = argv;
if (!dir) throw new Error("usage: tsx scripts/profile-phases.ts <dir> [phase…] [--top n]");
const file = fs
  .readdirSync(dir)
  .filter((f) => f.endsWith(".cpuprofile"))
  .map((f) => path.join(dir, f))
  .sort((a, b) => fs.statSync(b).size - fs.statSync(a).size)[0];
if (!file) throw new Error(`no .cpuprofile in ${dir}`);
const profile = JSON.parse(fs.readFileSync(file, "utf8")) as Profile;
const windows = (JSON.parse(fs.readFileSync(path.join(dir, "phases.json"), "utf8")) as Window[]).sort((a, b) => a.startUs - b.startUs);

const maps = new Map<string, SourceMap | null>();
function sourceMapOf(url: string): SourceMap | null {
  if (!maps.has(url)) {
    let sm: SourceMap | null = null;
    try {
      const f = fileURLToPath(url);
      if (fs.existsSync(`${f}.map`)) sm = new SourceMap(JSON.parse(fs.readFileSync(`${f}.map`, "utf8")));
    } catch {
      sm = null;
    }
    maps.set(url, sm);
  }
  return maps.get(url)!;
}

/** Where a frame comes from: its original source file and line (through the build's source map). */
function originOf(cf: CallFrame): { source: string; line: number } {
  if (cf.url.startsWith("file://")) {
    const sm = sourceMapOf(cf.url);
    const e = sm?.findEntry(cf.lineNumber, cf.columnNumber) as { originalSource?: string; originalLine?: number } | undefined;
    if (e?.originalSource) return { source: decodeURIComponent(e.originalSource).replace(/^(\.\.\/)+/, ""), line: (e.originalLine ?? 0) + 1 };
    return { source: cf.url.replace(/^file:\/\/.*?\/(node_modules|\.next)\//, "$1/"), line: cf.lineNumber + 1 };
  }
  return { source: cf.url || "(native)", line: cf.lineNumber + 1 };
}

/** The bucket of a source: a package, a product folder, or V8's own. */
function bucketOf(fn: string, source: string): string {
  if (["(garbage collector)", "(program)", "(idle)", "(root)"].includes(fn)) return fn;
  const pkg = /node_modules\/((@[^/]+\/)?[^/]+)/.exec(source);
  if (pkg) return pkg[1];
  if (source.startsWith("node:") || source === "(native)") return "node internals";
  const product = /^(lib\/server\/[^/]+|lib\/[^/]+|app|components)\b/.exec(source);
  if (product) return product[1].endsWith(".ts") ? path.dirname(product[1]) : product[1];
  return source.slice(0, 60);
}

/**
 * The layer a bucket belongs to, for the summary: Node.js itself (HTTP, streams, async context,
 * socket writes), the Prisma client (its runtime, query interpreter and wasm compiler) with the
 * database driver (`pg`, better-sqlite3's wrappers in lib/server/db), Next.js, V8's collector, the
 * product's own code, or other packages.
 */
function layerOf(bucket: string): string {
  if (bucket === "node internals") return "Node.js (HTTP, streams, async context, socket writes)";
  if (bucket === "(garbage collector)") return "garbage collection";
  if (/client-engine-runtime|^src\/runtime|^@prisma\/|^wasm:|param-graph|^pg($|-)|^lib\/server\/db$/.test(bucket)) return "Prisma client and database driver";
  if (/^next$|^src\/server|webpack:\/\/next|^@opentelemetry/.test(bucket)) return "Next.js";
  if (/^(lib|app|components)\b/.test(bucket)) return "product code (validation, decisions, routes)";
  return "other packages (zod, better-auth, …) and V8";
}

const parent = new Map<number, number>();
for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
const info = new Map<number, { fn: string; source: string; line: number; bucket: string }>();
for (const n of profile.nodes) {
  const fn = n.callFrame.functionName || "(anonymous)";
  const o = originOf(n.callFrame);
  info.set(n.id, { fn, source: o.source, line: o.line, bucket: bucketOf(fn, o.source) });
}

interface Acc {
  samplesUs: number;
  requests: number;
  bucket: Map<string, number>;
  self: Map<string, number>;
  inclusive: Map<string, number>;
}
const accs = new Map<string, Acc>();
const accOf = (phase: string) => accs.get(phase) ?? accs.set(phase, { samplesUs: 0, requests: 0, bucket: new Map(), self: new Map(), inclusive: new Map() }).get(phase)!;
for (const w of windows) accOf(w.phase).requests++;
const add = (m: Map<string, number>, k: string, v: number) => m.set(k, (m.get(k) ?? 0) + v);

let t = profile.startTime;
let wi = 0;
for (let i = 0; i < profile.samples.length; i++) {
  t += profile.timeDeltas[i];
  const dt = profile.timeDeltas[i + 1] ?? 0; // a sample stands for the time until the next one
  while (wi < windows.length && windows[wi].endUs < t) wi++;
  const w = windows[wi];
  if (!w || w.startUs > t) continue;
  const id = profile.samples[i];
  const leaf = info.get(id)!;
  if (leaf.fn === "(idle)") continue;
  const acc = accOf(w.phase);
  acc.samplesUs += dt;
  add(acc.bucket, leaf.bucket, dt);
  add(acc.self, `${leaf.fn}  ${leaf.source}:${leaf.line}`, dt);
  const seen = new Set<string>();
  for (let n: number | undefined = id; n !== undefined; n = parent.get(n)) {
    const f = info.get(n)!;
    if (!/^(lib|app)\//.test(f.source)) continue;
    const key = `${f.fn}  ${f.source}:${f.line}`;
    if (seen.has(key)) continue;
    seen.add(key);
    add(acc.inclusive, key, dt);
  }
}

const ms = (us: number, n: number) => (us / 1000 / Math.max(1, n)).toFixed(2);
const topOf = (m: Map<string, number>, n: number) => [...m.entries()].sort((a, b) => b[1] - a[1]).slice(0, n);
console.log(`profile ${path.basename(file)}; ${windows.length} requests`);
for (const [phase, acc] of accs) {
  if (only.length && !only.includes(phase)) continue;
  console.log(`\n== ${phase}: ${acc.requests} requests, ${ms(acc.samplesUs, acc.requests)} ms sampled CPU per request (main thread)`);
  console.log("-- self time by package / folder (ms per request, share)");
  const layers = new Map<string, number>();
  for (const [k, v] of acc.bucket) layers.set(layerOf(k), (layers.get(layerOf(k)) ?? 0) + v);
  for (const [k, v] of topOf(acc.bucket, 16)) console.log(`${ms(v, acc.requests).padStart(8)}  ${((100 * v) / acc.samplesUs).toFixed(1).padStart(5)}%  ${k}`);
  console.log("-- self time by layer");
  for (const [k, v] of topOf(layers, 10)) console.log(`${ms(v, acc.requests).padStart(8)}  ${((100 * v) / acc.samplesUs).toFixed(1).padStart(5)}%  ${k}`);
  console.log("-- top functions by self time");
  for (const [k, v] of topOf(acc.self, top)) console.log(`${ms(v, acc.requests).padStart(8)}  ${((100 * v) / acc.samplesUs).toFixed(1).padStart(5)}%  ${k}`);
  console.log("-- product functions by inclusive time");
  for (const [k, v] of topOf(acc.inclusive, top)) console.log(`${ms(v, acc.requests).padStart(8)}  ${((100 * v) / acc.samplesUs).toFixed(1).padStart(5)}%  ${k}`);
}
