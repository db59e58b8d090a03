import { listTasksEndpoint, openTaskEndpoint } from "@/lib/api/endpoints";
import { route } from "@/lib/server/route/route";
import { agentDesk } from "@/lib/server/auth/session";
import { listTasks } from "@/lib/server/tasks/read-tasks";
import { openTask } from "@/lib/server/tasks/open-task";

/** `GET /api/v1/tasks?ticketId=74991` → `{tasks}` (lib/api/endpoints.ts `listTasksEndpoint`). */
export const GET = route(listTasksEndpoint, async ({ caller, query }) => ({ body: { tasks: await listTasks({ ticketId: query.ticketId, desk: agentDesk(caller) }) } }));

/**
 * `POST /api/v1/tasks` → 201 `{task, created: true}`, or 200 `{task, created: false}` with
 * `Idempotent-Replayed: true` for a repeat; integration key only, on the key's desk
 * (lib/api/endpoints.ts `openTaskEndpoint`, lib/server/tasks/open-task.ts).
 */
export const POST = route(openTaskEndpoint, async ({ caller, body }) => {
  const { task, created } = await openTask(body, { kind: "integration", id: caller.id }, { desk: caller.desk });
  return created ? { status: 201, body: { task, created } } : { status: 200, body: { task, created }, headers: { "Idempotent-Replayed": "true" } };
});
