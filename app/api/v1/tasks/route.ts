import { listTasksEndpoint } from "@/lib/api/endpoints";
import { route } from "@/lib/server/route/route";
import { agentDesk } from "@/lib/server/auth/session";
import { listTasks } from "@/lib/server/tasks/read-tasks";

/** `GET /api/v1/tasks?ticketId=74991` → `{tasks}` (lib/api/endpoints.ts `listTasksEndpoint`). */
export const GET = route(listTasksEndpoint, async ({ caller, query }) => ({ body: { tasks: await listTasks({ ticketId: query.ticketId, desk: agentDesk(caller) }) } }));
