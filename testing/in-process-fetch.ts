/**
 * Test support: a `fetch` that answers agent-API (and `/api/auth/*`) URLs by calling the exported route handlers
 * in this process (real `Request` objects, the test file's own database), so the typed client
 * and the simulator can be tested without a server. Unknown paths answer 404 like Next would.
 */
import { GET as authGet, POST as authPost } from "../app/api/auth/[...all]/route";
import { POST as demoEffect } from "../app/api/v1/demo/effects/route";
import { GET as getRun } from "../app/api/v1/runs/[runId]/route";
import { GET as runEvents } from "../app/api/v1/runs/[runId]/events/route";
import { POST as claim } from "../app/api/v1/runs/[runId]/steps/[stepId]/claim/route";
import { POST as outcome } from "../app/api/v1/runs/[runId]/steps/[stepId]/outcome/route";
import { GET as getTask } from "../app/api/v1/tasks/[taskId]/route";
import { POST as revise } from "../app/api/v1/tasks/[taskId]/revisions/route";
import { POST as submit } from "../app/api/v1/tasks/[taskId]/runs/route";
import { GET as listTasks, POST as openTask } from "../app/api/v1/tasks/route";

type Handler = (req: Request, ctx: { params: Promise<Record<string, string>> }) => Promise<Response>;
const ROUTES: [string, RegExp, string[], Handler][] = [
  ["GET", /^\/api\/v1\/tasks$/, [], listTasks as Handler],
  ["POST", /^\/api\/v1\/tasks$/, [], openTask as Handler],
  ["GET", /^\/api\/v1\/tasks\/([^/]+)$/, ["taskId"], getTask as Handler],
  ["POST", /^\/api\/v1\/tasks\/([^/]+)\/runs$/, ["taskId"], submit as Handler],
  ["POST", /^\/api\/v1\/tasks\/([^/]+)\/revisions$/, ["taskId"], revise as Handler],
  ["GET", /^\/api\/v1\/runs\/([^/]+)$/, ["runId"], getRun as Handler],
  ["GET", /^\/api\/v1\/runs\/([^/]+)\/events$/, ["runId"], runEvents as Handler],
  ["POST", /^\/api\/v1\/runs\/([^/]+)\/steps\/([^/]+)\/claim$/, ["runId", "stepId"], claim as Handler],
  ["POST", /^\/api\/v1\/runs\/([^/]+)\/steps\/([^/]+)\/outcome$/, ["runId", "stepId"], outcome as Handler],
  ["POST", /^\/api\/v1\/demo\/effects$/, [], demoEffect as Handler],
  ["GET", /^\/api\/auth\/.+$/, [], authGet as Handler],
  ["POST", /^\/api\/auth\/.+$/, [], authPost as Handler],
];

/** A fetch-compatible function dispatching to the agent API's route handlers. */
export const inProcessFetch: typeof fetch = async (input, init) => {
  const req = new Request(input as RequestInfo, init);
  const { pathname } = new URL(req.url);
  for (const [method, re, names, handler] of ROUTES) {
    const m = re.exec(pathname);
    if (!m || req.method !== method) continue;
    const params = Object.fromEntries(names.map((n, i) => [n, decodeURIComponent(m[i + 1])]));
    return handler(req, { params: Promise.resolve(params) });
  }
  return new Response(JSON.stringify({ error: { code: "not_found", message: `No route ${req.method} ${pathname}.` } }), {
    status: 404,
    headers: { "content-type": "application/json" },
  });
};
