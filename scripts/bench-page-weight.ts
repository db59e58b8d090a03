/**
 * `npm run bench:pages`: first-load JavaScript of the console's pages, gzip — what a person's
 * browser fetches before a page works.
 *
 *   npm run bench:pages                      # after `npx next build`
 *   npm run bench:pages -- --scripts         # also each page's scripts, largest first
 *
 * Starts scripts/server.mjs (what `npm start` serves) on a fresh, seeded SQLite database, signs in
 * as the supervisor, and for each page sums the gzip sizes (level 6) of every `<script src>` in its
 * HTML, and again without the `noModule` scripts (Next.js's polyfills, which a current browser
 * never downloads). Target: the queue and run pages ≤ 200 KiB (bench/README.md, `npm run bench:pages`). Results:
 * bench/results/page-weight.json. Every request goes to 127.0.0.1.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { gzipSync } from "node:zlib";
import { freePort, migrateAndSeed, signInCookieAt, startAppInstance, stopAppInstance } from "../testing/app-instances";
import { UNLIMITED_RATES } from "../testing/unlimited-rates";

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), "..");
const TARGET_KIB = 200;

/** One page's weight: scripts counted, raw and gzip KiB, and gzip KiB without the noModule scripts. */
interface PageWeight {
  page: string;
  path: string;
  scripts: number;
  rawKiB: number;
  gzipKiB: number;
  gzipModernKiB: number;
  target: number | null;
}

async function main() {
  if (!fs.existsSync(path.join(root, ".next", "BUILD_ID"))) throw new Error("bench:pages needs a production build: run `npx next build` first.");
  const file = path.join(os.tmpdir(), `plandesk-bench-pages-${process.pid}.db`);
  const databaseUrl = `file:${file}`;
  migrateAndSeed(databaseUrl);
  const port = await freePort();
  const instance = await startAppInstance({ databaseUrl, port, publicOrigin: `http://127.0.0.1:${port}`, env: { ...UNLIMITED_RATES, PLANDESK_SWEEP: "0" } });
  try {
    const cookie = await signInCookieAt(instance, "supervisor@plandesk.test");
    const get = (p: string) => fetch(`${instance.origin}${p}`, { headers: { cookie } });
    const queue = (await (await get("/api/runs?status=pending_review")).json()) as { runs: { id: string }[] };
    const runId = queue.runs[0]?.id;
    if (!runId) throw new Error("the demo desk has no run waiting for review");
    const pages: [string, string, boolean][] = [
      ["queue", "/runs", true],
      ["run", `/runs/${runId}`, true],
      ["escalations", "/escalations", false],
      ["insights", "/insights", false],
      ["audit", `/runs/${runId}/audit`, false],
    ];
    const results: PageWeight[] = [];
    const sizes = new Map<string, { raw: number; gzip: number }>();
    for (const [page, p, targeted] of pages) {
      const res = await get(p);
      if (res.status !== 200) throw new Error(`${p} answered ${res.status}`);
      const html = await res.text();
      const tags = [...html.matchAll(/<script\b[^>]*\bsrc="([^"]+)"[^>]*>/g)].map((m) => ({ src: m[1], noModule: /\bnoModule\b/i.test(m[0]) }));
      const unique = [...new Map(tags.map((t) => [t.src, t])).values()];
      let raw = 0;
      let gzip = 0;
      let modern = 0;
      for (const t of unique) {
        if (!sizes.has(t.src)) {
          const body = Buffer.from(await (await get(t.src)).arrayBuffer());
          sizes.set(t.src, { raw: body.length, gzip: gzipSync(body, { level: 6 }).length });
        }
        const s = sizes.get(t.src)!;
        raw += s.raw;
        gzip += s.gzip;
        if (!t.noModule) modern += s.gzip;
      }
      const kib = (n: number) => Math.round(n / 1024);
      if (process.argv.includes("--scripts")) {
        console.log(`${page}:`);
        for (const t of [...unique].sort((a, b) => sizes.get(b.src)!.gzip - sizes.get(a.src)!.gzip)) console.log(`  ${(sizes.get(t.src)!.gzip / 1024).toFixed(1).padStart(6)} KiB  ${t.src}${t.noModule ? " (noModule)" : ""}`);
      }
      results.push({ page, path: p.replace(runId, "{runId}"), scripts: unique.length, rawKiB: kib(raw), gzipKiB: kib(gzip), gzipModernKiB: kib(modern), target: targeted ? TARGET_KIB : null });
    }
    const out = { at: new Date().toISOString(), node: process.version, results };
    fs.writeFileSync(path.join(root, "bench", "results", "page-weight.json"), `${JSON.stringify(out, null, 2)}\n`);
    console.log("| page | scripts | gzip KiB | without noModule | target |\n|---|---:|---:|---:|---:|");
    for (const r of results) console.log(`| ${r.page} | ${r.scripts} | ${r.gzipKiB} | ${r.gzipModernKiB} | ${r.target ? `≤ ${r.target}` : ""} |`);
  } finally {
    stopAppInstance(instance);
    for (const s of ["", "-wal", "-shm"]) fs.rmSync(file + s, { force: true });
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
