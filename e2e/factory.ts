import type { APIRequestContext } from "@playwright/test";
import { buildDemoDesk } from "../lib/demo/desk-data";

const AGENT_KEY = "pd_demo_agent_key";

/**
 * Submits a fresh run through the agent API for a seeded scenario (by its seed key, e.g.
 * "ref-74991"), so each test works on its own run and tests can run in parallel.
 * `expiresInSeconds` asks for a shorter deadline (capped by policy). Returns the run id.
 */
export async function createRun(request: APIRequestContext, scenario: string, opts: { expiresInSeconds?: number } = {}): Promise<string> {
  const desk = buildDemoDesk(new Date());
  const r = desk.runs.find((x) => x.key === scenario);
  if (!r) throw new Error(`No seeded scenario ${scenario}`);
  const auth = { authorization: `Bearer ${AGENT_KEY}` };
  const task = await (await request.get(`/api/v1/tasks/task_${r.ticketId}`, { headers: auth })).json();
  const res = await request.post(`/api/v1/tasks/task_${r.ticketId}/runs`, {
    headers: auth,
    data: { taskRevision: task.task.revision, steps: r.steps, ...(opts.expiresInSeconds ? { expiresInSeconds: opts.expiresInSeconds } : {}) },
  });
  if (res.status() !== 201) throw new Error(`createRun ${scenario}: ${res.status()} ${await res.text()}`);
  return (await res.json()).run.id;
}
