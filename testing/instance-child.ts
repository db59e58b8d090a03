/**
 * Test fixture for instances.test.ts: one "app instance" — a separate OS process with its own
 * Prisma client (its own connection pool) on the test database of DATABASE_URL — that runs the
 * real service functions on command. Reads one JSON command per line on stdin and answers one
 * JSON line on stdout, `{results: [{ok: true, value} | {ok: false, code}]}`:
 *   {op: "claim", runId, stepId, digest, taskRevision, count, startAt, now}
 *   {op: "approve", runId, planVersion, as, count, keyPrefix, startAt, now, stepIds?, acks?}   (stepIds default "all";
 *     acks: acknowledgedConcurrentRuns)
 *   {op: "edit", runId, baseVersion, as, variants: Step[][], startAt, now}   (one call per variant)
 *   {op: "sweep", count, startAt, now}
 * `startAt` (epoch ms) is the moment both instances fire, so their calls really overlap.
 * Not used by the app.
 */
import readline from "node:readline";
import { DEMO_AGENT_TOOLS } from "../lib/demo/desk-data";
import { isDomainError } from "../lib/errors/domain-error";
import type { Step } from "../lib/plan/schema";
import { approveSteps } from "../lib/server/approvals/approve-steps";
import { claimStep } from "../lib/server/claims/claim-step";
import { prisma } from "../lib/server/db/db";
import { sweepDeadlines } from "../lib/server/deadlines/sweep-deadlines";
import { submitEdit } from "../lib/server/edits/submit-edit";
import { loadViewer } from "../lib/server/auth/viewer";

type Command =
  | { op: "claim"; runId: string; stepId: string; digest: string; taskRevision: number; count: number; startAt: number; now: string }
  | { op: "approve"; runId: string; planVersion: number; as: string; count: number; keyPrefix: string; startAt: number; now: string; stepIds?: string[]; acks?: string[] }
  | { op: "edit"; runId: string; baseVersion: number; as: string; variants: Step[][]; startAt: number; now: string }
  | { op: "sweep"; count: number; startAt: number; now: string };

type Outcome = { ok: true; value: unknown } | { ok: false; code: string };

const agent = { id: "agent_demo", name: "Freight desk agent", allowedTools: [...DEMO_AGENT_TOOLS], keyId: "key_demo" };

const settle = (p: Promise<unknown>): Promise<Outcome> =>
  p.then(
    (value) => ({ ok: true as const, value }),
    (e) => ({ ok: false as const, code: isDomainError(e) ? e.code : `untyped: ${String(e)}` }),
  );

async function perform(cmd: Command): Promise<Outcome[]> {
  const now = new Date(cmd.now);
  const viewer = "as" in cmd ? (await loadViewer(cmd.as))! : null;
  await new Promise((r) => setTimeout(r, Math.max(0, cmd.startAt - Date.now())));
  const pid = process.pid;
  switch (cmd.op) {
    case "claim":
      return Promise.all(
        Array.from({ length: cmd.count }, (_, i) =>
          settle(claimStep(agent, cmd.runId, cmd.stepId, { digest: cmd.digest, taskRevision: cmd.taskRevision }, `${pid}-${i}`, now).then((r) => r.claim.token)),
        ),
      );
    case "approve":
      return Promise.all(
        Array.from({ length: cmd.count }, (_, i) =>
          settle(approveSteps(viewer!, cmd.runId, { planVersion: cmd.planVersion, stepIds: cmd.stepIds ?? "all", idempotencyKey: `${cmd.keyPrefix}-${pid}-${i}`, ...(cmd.acks?.length ? { acknowledgedConcurrentRuns: cmd.acks } : {}) }, now).then((r) => r.approvals.length)),
        ),
      );
    case "edit":
      return Promise.all(cmd.variants.map((steps) => settle(submitEdit(viewer!, cmd.runId, { baseVersion: cmd.baseVersion, steps }, now).then((r) => r.planVersion.version))));
    case "sweep":
      return Promise.all(Array.from({ length: cmd.count }, () => settle(sweepDeadlines(now))));
  }
}

async function main() {
  await prisma.run.count(); // open the connection before the first start line
  process.stdout.write(JSON.stringify({ ready: true }) + "\n");
  for await (const line of readline.createInterface({ input: process.stdin })) {
    if (!line.trim()) continue;
    const cmd = JSON.parse(line) as Command | { op: "exit" };
    if (cmd.op === "exit") break;
    process.stdout.write(JSON.stringify({ results: await perform(cmd) }) + "\n");
  }
  await prisma.$disconnect();
}

main().catch((e) => {
  console.error(e);
  process.exitCode = 1;
});
