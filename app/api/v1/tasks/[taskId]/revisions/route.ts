import { agentReviseTaskEndpoint } from "@/lib/api/endpoints";
import { route } from "@/lib/server/route/route";
import { reviseTask } from "@/lib/server/tasks/revise-task";

/** `POST /api/v1/tasks/{taskId}/revisions` → 201 `{task}`, integration key only; a desk-bound key reaches only its desk's tasks (lib/api/endpoints.ts `agentReviseTaskEndpoint`). */
export const POST = route(agentReviseTaskEndpoint, async ({ caller, params, body }) => ({
  body: { task: await reviseTask(params.taskId, body, { kind: "integration", id: caller.id }, { desk: caller.desk }) },
}));
