import { getTaskEndpoint } from "@/lib/api/endpoints";
import { route } from "@/lib/server/route/route";
import { agentDesk } from "@/lib/server/auth/session";
import { getTask } from "@/lib/server/tasks/read-tasks";

/** `GET /api/v1/tasks/{taskId}` → `{task}` (lib/api/endpoints.ts `getTaskEndpoint`). */
export const GET = route(getTaskEndpoint, async ({ caller, params }) => ({ body: { task: await getTask(params.taskId, agentDesk(caller)) } }));
