/**
 * What a newcomer reads in README.md and can check is true (docs/style.md §10: the design lives in
 * the repository): every repository path it names exists; every Markdown link reaches a page and,
 * with an anchor, a heading of it; every `npm run X` is a script of package.json; `npm test`'s
 * stages are named in the order scripts/test.mjs runs them; the Node statement matches
 * package.json's `engines` and the locked dependencies' own; the isolation levels are the ones
 * lib/server/db/transaction.ts gives, and every transaction that runs READ COMMITTED is named; the
 * reference case and its sign-in are the seed's. Pure: reads files, opens no database.
 */
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

const root = path.resolve(__dirname, "..");
const read = (file: string) => fs.readFileSync(path.join(root, file), "utf8");
const readme = read("README.md");
/** The README as one line of words (its hard line breaks and indents folded), for sentences that wrap. */
const flat = readme.replace(/\s+/g, " ");
const pkg = JSON.parse(read("package.json")) as { engines: { node: string }; scripts: Record<string, string> };

/** Folders at the repository root whose paths the README names. */
const ROOTS = ["lib", "app", "components", "e2e", "scripts", "testing", "examples", "packages", "prisma", "docs", "bench", "public", ".ci"];
const PATH = new RegExp(`(?<![\\w./@-])((?:${ROOTS.map((r) => r.replace(".", "\\.")).join("|")})/[\\w.\\[\\]@/-]*)`, "g");

/** GitHub's anchor of a heading: lower-cased, punctuation dropped, spaces as hyphens. */
function anchorOf(heading: string): string {
  return heading.trim().toLowerCase().replace(/[^\p{L}\p{N} _-]/gu, "").replace(/ /g, "-");
}

/** The anchors of a Markdown page's headings. */
function anchorsOf(file: string): Set<string> {
  return new Set([...read(file).matchAll(/^#+ (.+)$/gm)].map((m) => anchorOf(m[1])));
}

/** Numbers of a version string (`20.19.0`, `22`, `20.x`), missing or wildcard parts as null. */
function versionOf(v: string): (number | null)[] {
  const parts = v.replace(/^v/, "").split(".").map((x) => (/^\d+$/.test(x) ? Number(x) : null));
  while (parts.length < 3) parts.push(null);
  return parts;
}

/** Compares two versions part by part, a missing part as 0. */
function compare(a: (number | null)[], b: (number | null)[]): number {
  for (let i = 0; i < 3; i++) if ((a[i] ?? 0) !== (b[i] ?? 0)) return (a[i] ?? 0) - (b[i] ?? 0);
  return 0;
}

/** True when one comparator of an npm range (`>=20`, `^20.19`, `22.x`, `*`) admits `v`. */
function satisfies(comparator: string, v: (number | null)[]): boolean {
  if (comparator === "*" || comparator === "") return true;
  const m = /^(>=|<=|>|<|=|\^|~)?(.*)$/.exec(comparator)!;
  const t = versionOf(m[2]);
  switch (m[1]) {
    case ">=": return compare(v, t) >= 0;
    case ">": return compare(v, t) > 0;
    case "<": return compare(v, t) < 0;
    case "<=": return compare(v, t) <= 0;
    case "^": return compare(v, t) >= 0 && v[0] === t[0];
    case "~": return compare(v, t) >= 0 && v[0] === t[0] && (t[1] === null || v[1] === t[1]);
    default: return t.every((x, i) => x === null || x === v[i]);
  }
}

/** True when the npm engines range `range` (alternatives joined by `||`) admits Node `version`. */
export function admitsNode(range: string, version: string): boolean {
  const v = versionOf(version);
  return range.split("||").some((alt) => alt.trim().replace(/(>=|<=|>|<|=|\^|~)\s+/g, "$1").split(/\s+/).every((c) => satisfies(c, v)));
}

/** Every locked package (by name) with the Node range it declares. */
function lockedEngines(): { name: string; node: string }[] {
  const lock = JSON.parse(read("package-lock.json")) as { packages: Record<string, { engines?: { node?: string } }> };
  return Object.entries(lock.packages)
    .filter(([key, p]) => key !== "" && typeof p.engines?.node === "string")
    .map(([key, p]) => ({ name: key.replace(/.*node_modules\//, ""), node: p.engines!.node! }));
}

describe("README.md tells the truth", () => {
  it("every repository path it names exists", () => {
    const named = [...new Set([...readme.matchAll(PATH)].map((m) => m[1].replace(/[.,:;)\]]+$/, "").replace(/\/$/, "")))];
    expect(named.length).toBeGreaterThan(20);
    expect(named.filter((p) => !p.includes("*") && !fs.existsSync(path.join(root, p)))).toEqual([]);
    for (const file of ["lib/lifecycle/run-state.ts", "lib/audit/insights.ts"]) expect(named, "named with its folder").toContain(file);
  });

  it("every link reaches a page of the repository, and an anchor a heading of it", () => {
    const problems: string[] = [];
    for (const m of readme.matchAll(/\]\(([^)\s]+)\)/g)) {
      const target = m[1];
      if (/^https?:/.test(target)) continue;
      const [file, anchor] = target.split("#");
      const page = file === "" ? "README.md" : file;
      if (!fs.existsSync(path.join(root, page))) problems.push(`${target}: no ${page}`);
      else if (anchor && !anchorsOf(page).has(anchor)) problems.push(`${target}: ${page} has no heading #${anchor}`);
    }
    expect(problems).toEqual([]);
  });

  it("every npm script it names is one of package.json", () => {
    const named = [...new Set([...readme.matchAll(/npm run (?:--silent )?([\w:-]+)/g)].map((m) => m[1]))];
    expect(named.length).toBeGreaterThan(3);
    expect(named.filter((s) => !(s in pkg.scripts))).toEqual([]);
    expect(pkg.scripts.start).toBe("node scripts/start.mjs");
    expect(pkg.scripts.test).toBe("node scripts/test.mjs");
  });

  it("names npm test's stages in the order scripts/test.mjs runs them", () => {
    const runs = [...read("scripts/test.mjs").matchAll(/steps\.push\(\{ cmd: "(\w+)", args: \["([^"]+)"(?:, "([^"]+)")?/g)].map((m) => `${m[1]} ${m[2]}${m[3] ? ` ${m[3]}` : ""}`);
    expect(runs).toEqual(["npx eslint .", "npx vitest run", "npx vitest run", "npx next build", "node scripts/outside-proof.mjs", "npx playwright test"]);
    expect(read("scripts/test.mjs")).toContain('env: { PLANDESK_TEST_DB: "postgres" }');
    expect(flat).toContain("stopping at the first stage that fails: lint, Vitest on SQLite, the database tests # again on PostgreSQL, the production build, the outside proof (scripts/outside-proof.mjs), Playwright");
  });

  it("states the Node version as package.json and the locked dependencies have it", () => {
    expect(flat).toContain(`package.json's \`engines\` says \`${pkg.engines.node}\``);
    const engines = lockedEngines();
    // the lowest Node 20 every locked dependency admits
    const lowest = ["20.0", ...Array.from({ length: 30 }, (_, i) => `20.${i + 1}`)].find((v) => engines.every((e) => admitsNode(e.node, `${v}.0`) || !admitsNode(e.node, "20.99.0")));
    expect(flat).toContain(`Node.js ${lowest} or later`);
    // the ones that admit no Node 20: npm warns EBADENGINE for each
    const no20 = engines.filter((e) => !admitsNode(e.node, "20.99.0")).map((e) => e.name);
    expect(no20.length).toBeGreaterThan(0);
    const sentence = flat.slice(flat.indexOf("warns `EBADENGINE`"), flat.indexOf("work on 20"));
    for (const name of no20) expect(sentence, name).toContain(`\`${name}\``);
    expect(sentence).toContain(`for ${["one", "two", "three", "four", "five", "six"][no20.length - 1]} dependencies`);
  });

  it("admitsNode reads npm's engine ranges", () => {
    expect(admitsNode(">=20", "20.0.0")).toBe(true);
    expect(admitsNode("^20.19 || ^22.12 || >=24.0", "20.18.0")).toBe(false);
    expect(admitsNode("^20.19 || ^22.12 || >=24.0", "20.20.2")).toBe(true);
    expect(admitsNode(">= 22", "20.20.2")).toBe(false);
    expect(admitsNode("20.x || 22.x", "20.1.0")).toBe(true);
  });

  it("names the isolation levels the code gives each transaction on PostgreSQL", () => {
    const tx = read("lib/server/db/transaction.ts");
    expect(tx).toMatch(/if \(isolation === "row-locks"\) return TRANSACTION_POOLER \? \(\{ \.\.\.WAIT, isolationLevel: "ReadCommitted" \}/);
    expect(tx).toMatch(/return \{ \.\.\.WAIT, isolationLevel: "Serializable" \}/);
    expect(tx).toMatch(/function txOptions\(isolation: Isolation = "serializable"\)/);
    expect(read("lib/server/db/create-prisma.ts")).toContain('PG_SESSION_DEFAULTS = "SET SESSION CHARACTERISTICS AS TRANSACTION ISOLATION LEVEL READ COMMITTED"');
    const said = flat.slice(flat.indexOf("**Transactions.**"), flat.indexOf('"Transactions and locks"'));
    expect(said).toMatch(/run READ COMMITTED with row locks/);
    expect(said).toMatch(/every other transaction .* runs SERIALIZABLE/);
    expect(flat).not.toMatch(/write transactions run SERIALIZABLE/i);
    // every module whose transactions run READ COMMITTED, and the words the README names it by
    const words: Record<string, string> = {
      "lib/server/claims/claim-step.ts": "claims",
      "lib/server/claims/report-outcome.ts": "outcomes",
      "lib/server/approvals/approve-steps.ts": "approvals",
      "lib/server/approvals/reject-run.ts": "rejections",
      "lib/server/edits/submit-edit.ts": "edits",
      "lib/server/tasks/open-task.ts": "opening a task",
      "lib/server/outcomes/record-ticket-event.ts": "ticket events",
      "lib/server/deadlines/sweep-deadlines.ts": "the deadline sweep",
      "lib/server/records/sync-record.ts": "records pushed through the records door",
      "lib/server/records/sync-record-batch.ts": "records pushed through the records door",
      "lib/server/records/apply-records.ts": "records pushed through the records door",
      "lib/server/records/record-kinds-admin.ts": "record-kind declarations",
    };
    const rowLocked: string[] = [];
    const walk = (dir: string) => {
      for (const e of fs.readdirSync(path.join(root, dir), { withFileTypes: true })) {
        const rel = `${dir}/${e.name}`;
        if (e.isDirectory()) walk(rel);
        else if (/\.ts$/.test(e.name) && !/\.test\.ts$/.test(e.name) && rel !== "lib/server/db/transaction.ts" && /isolation: "row-locks"/.test(read(rel))) rowLocked.push(rel);
      }
    };
    walk("lib/server");
    expect(rowLocked.sort()).toEqual(Object.keys(words).sort());
    for (const w of new Set(Object.values(words))) expect(said, w).toContain(w);
  });

  it("every variable the server reads is where the README sends a deployer", () => {
    expect(flat).toContain("every one a deployment sets (rate limits, drain, sweeps, webhooks, the MCP gateway, metrics, logs, traces…) is in docs/operations.md");
    const ops = read("docs/operations.md");
    const table = ops.slice(ops.indexOf("## Configuration: every variable"));
    // set by the test and benchmark harnesses for themselves, never by a deployment
    const harness = new Set(["PLANDESK_BENCH", "PLANDESK_BUILD_MIGRATIONS", "PLANDESK_FAILOVER_RESULTS", "PLANDESK_RACE", "PLANDESK_STRICT_CONTRACT", "PLANDESK_TEST_DB", "PLANDESK_TEST_DB_SET"]);
    const used: string[] = [];
    const walk = (dir: string) => {
      for (const e of fs.readdirSync(path.join(root, dir), { withFileTypes: true })) {
        const rel = `${dir}/${e.name}`;
        if (e.isDirectory()) {
          if (e.name !== "generated") walk(rel);
        } else if (/\.(ts|tsx|mjs)$/.test(e.name) && !/\.test\.tsx?$/.test(e.name)) used.push(...[...read(rel).matchAll(/\b(PLANDESK_[A-Z_]+[A-Z])\b/g)].map((m) => m[1]));
      }
    };
    for (const dir of ["lib", "app"]) walk(dir);
    for (const file of ["scripts/server.mjs", "scripts/start.mjs"]) used.push(...[...read(file).matchAll(/\b(PLANDESK_[A-Z_]+[A-Z])\b/g)].map((m) => m[1]));
    expect(new Set(used).size).toBeGreaterThan(30);
    const missing = [...new Set(used)].filter((v) => !harness.has(v) && !table.includes(`\`${v}\``));
    expect(missing).toEqual([]);
  });

  it("sends the newcomer to the seed's reference case with the seed's sign-in", () => {
    const desk = read("lib/demo/desk-data.ts");
    const ticket = /\["74991", "acc_(\w+)", "([^"]+)"/.exec(desk);
    expect(ticket).not.toBeNull();
    expect(flat).toContain(`ticket **#74991** in the queue ("${ticket![2]}"`);
    const seed = read("lib/server/demo/seed.ts");
    expect(seed).toContain('email: "senior@plandesk.test"');
    const password = /export const DEMO_PASSWORD = "([^"]+)"/.exec(seed)![1];
    expect(flat).toContain(`sign in as \`senior@plandesk.test\` (password \`${password}\`)`);
  });

  it("stays short: the first screen says what Plandesk is, the two commands and where to click", () => {
    expect(readme.split("\n").length).toBeLessThanOrEqual(300);
    const firstScreen = readme.split("\n").slice(0, 40).join("\n");
    for (const s of ["npm start", "npm test", "#74991"]) expect(firstScreen).toContain(s);
    const headings = [...readme.matchAll(/^## (.+)$/gm)].map((m) => m[1]);
    expect(headings.slice(0, 2)).toEqual(["Set up", "Connect your systems"]);
  });
});
