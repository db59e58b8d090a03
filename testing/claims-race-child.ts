/**
 * Test fixture for claims.test.ts: a separate OS process — a second "app instance" with its own
 * database connection — that fires `count` parallel claims of one step at `startAt` (epoch ms)
 * and prints one JSON line: `{results: [{ok: true, token} | {ok: false, code}]}`.
 * Input: env PLANDESK_RACE = JSON `{runId, stepId, digest, taskRevision, count, keyPrefix, startAt, now}`;
 * DATABASE_URL points at the test database. Not used by the app.
 */
import { DEMO_AGENT_TOOLS } from "../lib/demo/desk-data";
import { isDomainError } from "../lib/errors/domain-error";
import { claimStep } from "../lib/server/claims/claim-step";
import { prisma } from "../lib/server/db/db";

async function main() {
  const input = JSON.parse(process.env.PLANDESK_RACE ?? "{}") as {
    runId: string;
    stepId: string;
    digest: string;
    taskRevision: number;
    count: number;
    keyPrefix: string | null;
    startAt: number;
    now: string;
  };
  const agent = { id: "agent_demo", name: "Freight desk agent", allowedTools: [...DEMO_AGENT_TOOLS], keyId: "key_demo" };
  await prisma.run.count(); // open the connection before the start line
  await new Promise((r) => setTimeout(r, Math.max(0, input.startAt - Date.now())));
  const results = await Promise.all(
    Array.from({ length: input.count }, (_, i) =>
      claimStep(agent, input.runId, input.stepId, { digest: input.digest, taskRevision: input.taskRevision }, input.keyPrefix ? input.keyPrefix : `${process.pid}-${i}`, new Date(input.now)).then(
        (r) => ({ ok: true as const, token: r.claim.token }),
        (e) => ({ ok: false as const, code: isDomainError(e) ? e.code : `untyped: ${String(e)}` }),
      ),
    ),
  );
  process.stdout.write(JSON.stringify({ results }) + "\n");
  await prisma.$disconnect();
}

main().catch((e) => {
  console.error(e);
  process.exitCode = 1;
});
