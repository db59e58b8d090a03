/**
 * `npx tsx scripts/bench-outcome-queries.ts` (DATABASE_URL = a seeded scale desk: `npm run db:seed --
 * --scale`, then `npm run outcomes:backfill`): the queries of "Did the edit help?" — the review
 * queue, outcome insights (labels, signals, over-compensation per tool, operator and day), the diff
 * corpus with its filters, the ticket events endpoint and the agent's guidance — through the
 * service functions the route handlers call. Each case runs `--repeat` times (default 5, median and
 * worst in ms); every SQL statement it sent is captured (Prisma query events) and explained
 * (SQLite `EXPLAIN QUERY PLAN`, PostgreSQL `EXPLAIN`), and a statement whose plan reads a whole
 * table (SQLite `SCAN <table>` without an index, PostgreSQL `Seq Scan` on a table of more than a
 * thousand rows) is flagged. Writes bench/results/outcomes-queries-<sqlite|postgresql>.md.
 * Writes to the database (one ticket event, one desk rule): use a scratch copy.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { explainStatement, readsNoTable, wholeTableReads } from "../testing/query-plans";

const repeat = Number(process.argv.find((a) => a.startsWith("--repeat="))?.slice(9) ?? 5);

type Captured = { sql: string; params: string; ms: number };

async function main() {
  const { resolveDatabaseUrl } = await import("../lib/server/db/database-url");
  const { url, provider, file } = resolveDatabaseUrl();
  const captured: Captured[] = [];
  // The process-wide client (lib/server/db/db.ts) with query events, installed before any service loads it.
  const { createPrisma } = await import("../lib/server/db/create-prisma");
  const client = createPrisma(url, { poolMax: 4, queryEvents: true }) as unknown as { $on: (e: "query", cb: (q: { query: string; params: string; duration: number }) => void) => void; $disconnect: () => Promise<void> };
  client.$on("query", (q) => captured.push({ sql: q.query, params: q.params, ms: q.duration }));
  (globalThis as unknown as { plandeskPrisma: unknown }).plandeskPrisma = client;

  const { prisma } = await import("../lib/server/db/db");
  const { loadViewer } = await import("../lib/server/auth/session");
  const { listOutcomeReview } = await import("../lib/server/outcomes/run-outcomes");
  const { loadOutcomeInsights } = await import("../lib/server/outcomes/outcome-insights");
  const { diffCorpus } = await import("../lib/server/audit/diff-corpus");
  const { recordTicketEvent } = await import("../lib/server/outcomes/record-ticket-event");
  const { guidanceFor } = await import("../lib/server/desk-rules/guidance");
  const { createDeskRule } = await import("../lib/server/desk-rules/save-desk-rule");
  const supervisor = (await loadViewer("usr_supervisor"))!;
  const now = new Date();
  const counts = { runs: await prisma.run.count(), outcomes: await prisma.runOutcome.count(), edited: await prisma.runOutcome.count({ where: { edited: true } }), edits: await prisma.planEdit.count(), patterns: await prisma.planEditPattern.count() };
  if (counts.outcomes === 0) throw new Error("No outcome records: run npm run outcomes:backfill on this database first.");

  // A supervisor label on some edited runs, so the label filters have something to find.
  const toLabel = await prisma.runOutcome.findMany({ where: { edited: true, labelled: false }, orderBy: { runId: "asc" }, take: 20, select: { runId: true } });
  for (const [i, r] of toLabel.entries()) await prisma.runOutcome.update({ where: { runId: r.runId }, data: { label: (["better", "same", "worse"] as const)[i % 3], labelReason: "bench", labelledById: supervisor.id, labelledAt: now, labelled: true } });
  // A desk rule made from the most frequent edit pattern of the freight desk, for the guidance's worked examples.
  const top = await prisma.planEditPattern.groupBy({ by: ["keyHash"], where: { desk: "freight" }, _count: { _all: true }, orderBy: { _count: { keyHash: "desc" } }, take: 1 });
  if (top.length && !(await prisma.deskRule.findFirst({ where: { desk: "freight", sourceHash: top[0].keyHash } }))) {
    const rule = await createDeskRule(supervisor, { desk: "freight", severity: "warning", description: "Bench: reply wording", rule: { kind: "guidance", tool: "send_reply" }, note: "bench", source: null });
    await prisma.deskRule.update({ where: { id: rule.id }, data: { sourceHash: top[0].keyHash } });
  }
  // An executed run's task on the scale desk, for the ticket events endpoint.
  const executed = await prisma.runOutcome.findFirstOrThrow({ where: { edited: true }, orderBy: { moneyDifferenceMinor: "desc" }, select: { taskId: true } });
  const integration = { id: "key_demo_integration", name: "Demo ticketing integration", desk: null } as const;
  const firstPage = await listOutcomeReview(supervisor, { limit: 25 });

  const corpus = (filter: Parameters<typeof diffCorpus>[2]) => async () => {
    let n = 0;
    for await (const _ of diffCorpus(supervisor, now, filter)) if (++n >= 200) break; // the first page of the stream
    return n;
  };
  const cases: [string, () => Promise<unknown>][] = [
    ["review queue: first page (25)", () => listOutcomeReview(supervisor, { limit: 25 })],
    ["review queue: second page (cursor)", () => listOutcomeReview(supervisor, { limit: 25, cursor: firstPage.nextCursor ?? undefined })],
    ["insights: by label, by signal, over-compensation (all time)", () => loadOutcomeInsights(supervisor)],
    ["insights: the same, last 30 days", () => loadOutcomeInsights(supervisor, { since: new Date(now.getTime() - 30 * 86_400_000) })],
    ["corpus: first 200 lines, no filter", corpus({})],
    ["corpus: ?label=worse", corpus({ label: "worse" })],
    ["corpus: ?label=none", corpus({ label: "none" })],
    ["corpus: ?signal=over_compensation", corpus({ signal: "over_compensation" })],
    ["corpus: ?signal=reopened", corpus({ signal: "reopened" })],
    ["corpus: ?signal=none", corpus({ signal: "none" })],
    ["corpus: ?discarded=include", corpus({ includeDiscarded: true })],
    ["events: POST a customer_replied (lookup, recompute, audit)", () => recordTicketEvent(integration as never, executed.taskId, { type: "customer_replied", detail: "bench" }, null, new Date())],
    ["guidance: GET /api/v1/guidance (freight agent)", () => guidanceFor({ desk: "freight" } as never)],
    ["backfill: one page of ended runs without a record (200 ids)", () => prisma.run.findMany({ where: { status: { in: ["completed", "failed", "stopped", "expired"] }, outcomeRecord: { is: null } }, orderBy: { id: "asc" }, take: 200, select: { id: true } })],
  ];

  const rows: string[] = [];
  const plans: string[] = [];
  const flagged: string[] = [];
  for (const [name, fn] of cases) {
    const ms: number[] = [];
    let statements: Captured[] = [];
    for (let i = 0; i < repeat; i++) {
      captured.length = 0;
      const t = performance.now();
      await fn();
      ms.push(performance.now() - t);
      if (i === 0) statements = [...captured];
    }
    ms.sort((a, b) => a - b);
    rows.push(`| ${name} | ${ms[Math.floor(ms.length / 2)].toFixed(1)} | ${ms[ms.length - 1].toFixed(1)} | ${statements.length} |`);
    console.log(rows.at(-1));
    plans.push(`### ${name}`, "");
    const seen = new Set<string>();
    for (const s of statements) {
      if (readsNoTable(s.sql)) continue;
      const key = s.sql.replace(/\s+/g, " ");
      if (seen.has(key)) continue;
      seen.add(key);
      const plan = await explainStatement({ provider, url, file }, s);
      const bad = wholeTableReads(provider, plan, { seqScanRowsAbove: 1000 });
      if (bad.length) flagged.push(`- ${name}: ${bad.join("; ")} — \`${short(s.sql)}\``);
      plans.push("```sql", short(s.sql, 600), "```", "```", plan.trim(), "```", "");
    }
  }
  const out = [
    `# Did the edit help? — the outcome queries on the scale desk (${provider})`,
    ``,
    `${now.toISOString()} · ${counts.runs} runs, ${counts.outcomes} outcome records (${counts.edited} edited), ${counts.edits} plan edits, ${counts.patterns} edit patterns · ${repeat} repeats · load average ${os.loadavg()[0].toFixed(1)} (2 cores shared with other work)`,
    ``,
    `Command: \`DATABASE_URL=… npx tsx scripts/bench-outcome-queries.ts\` after \`npm run db:seed -- --scale\` and \`npm run outcomes:backfill\`.`,
    ``,
    `| what | median ms | worst ms | SQL statements |`,
    `|---|---:|---:|---:|`,
    ...rows,
    ``,
    `## Whole-table reads`,
    ``,
    ...(flagged.length ? flagged : ["None: every statement reads through an index (or a table of at most a thousand rows)."]),
    ``,
    `## Plans`,
    ``,
    ...plans,
  ].join("\n");
  const target = path.join(process.cwd(), "bench", "results", `outcomes-queries-${provider}.md`);
  fs.mkdirSync(path.dirname(target), { recursive: true });
  fs.writeFileSync(target, out);
  console.log(`Wrote ${target}${flagged.length ? `; ${flagged.length} whole-table reads:\n${flagged.join("\n")}` : "; no whole-table read"}`);
  await client.$disconnect();
}

const short = (sql: string, max = 240) => {
  const s = sql.replace(/\s+/g, " ").replace(/"main"\./g, "").replace(/`main`\./g, "");
  return s.length > max ? `${s.slice(0, max - 1)}…` : s;
};

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
