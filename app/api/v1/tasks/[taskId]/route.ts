import { getTaskEndpoint } from "@/lib/api/endpoints";
import { route } from "@/lib/server/route";
import { getTask } from "@/lib/server/tasks/read-tasks";

/** `GET /api/v1/tasks/{taskId}` → `{task}` (lib/api/endpoints.ts `getTaskEndpoint`). */
export const GET = route(getTaskEndpoint, async ({ params }) => ({ body: { task: await getTask(params.taskId) } }));
