/**
 * `DATABASE_URL=… npx tsx scripts/bench-decisions.ts [--n 20]`: the median latency (ms) of each
 * decision made one at a time through the service functions, on the database at hand — submit,
 * edit, approve, claim — for comparing demo size with scale size (targets: the median at
 * scale ≤ 1.5× demo) without HTTP and without concurrency, so other load on the machine matters
 * less than in bench:load. Writes runs (on demo tasks) into that database: use a copy.
 */
const n = Number(process.argv[process.argv.indexOf("--n") + 1] || 20) || 20;

async function main() {
  const { prisma } = await import("../lib/server/db/db");
  const { submitRun } = await import("../lib/server/runs/submit-run");
  const { submitEdit } = await import("../lib/server/edits/submit-edit");
  const { approveSteps } = await import("../lib/server/approvals/approve-steps");
  const { claimStep } = await import("../lib/server/claims/claim-step");
  const { loadViewer } = await import("../lib/server/auth/session");
  const { DEMO_AGENT_TOOLS } = await import("../lib/demo/desk-data");
  const agent = { id: "agent_demo", name: "Freight desk agent", allowedTools: [...DEMO_AGENT_TOOLS] as string[], keyId: "key_demo" };
  const operator = (await loadViewer("usr_operator"))!;
  const task = await prisma.task.findUniqueOrThrow({ where: { id: "task_74994" } });
  const times: Record<string, number[]> = { submit: [], edit: [], approve: [], claim: [] };
  const timed = async <T>(name: string, f: () => Promise<T>) => {
    const t = performance.now();
    const r = await f();
    times[name].push(performance.now() - t);
    return r;
  };
  for (let i = 0; i < n + 3; i++) {
    const steps = [
      { id: "st_note", tool: "add_ticket_note", args: { ticketId: task.ticketId, note: "Customer called." } },
      { id: "st_reply", tool: "send_reply", args: { ticketId: task.ticketId, body: "We are on it." }, rationale: "Acknowledge." },
    ];
    const { run } = await timed("submit", () => submitRun(agent, task.id, { taskRevision: task.revision, steps, addition: true }, null));
    await timed("edit", () => submitEdit(operator, run.id, { baseVersion: 1, steps: [steps[0], { ...steps[1], args: { ...steps[1].args, body: "We are on it; more by Friday." } }] }));
    const approved = await timed("approve", () => approveSteps(operator, run.id, { planVersion: 2, stepIds: "all", idempotencyKey: `bd-${run.id}` }));
    const s = approved.run.steps[0];
    await timed("claim", () => claimStep(agent, run.id, s.id, { digest: s.digest, taskRevision: task.revision }, null));
  }
  const runs = await prisma.run.count();
  const out: Record<string, number> = {};
  for (const [k, v] of Object.entries(times)) {
    const sorted = v.slice(3).sort((a, b) => a - b); // the first three warm the process
    out[k] = Math.round(sorted[Math.floor(sorted.length / 2)] * 10) / 10;
  }
  console.log(JSON.stringify({ runs, medianMs: out, load: (await import("node:fs")).readFileSync("/proc/loadavg", "utf8").split(" ")[0] }));
  await prisma.$disconnect();
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
