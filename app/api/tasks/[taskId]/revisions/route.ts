import { operatorReviseTaskEndpoint } from "@/lib/api/endpoints";
import { route } from "@/lib/server/route/route";
import { reviseTask } from "@/lib/server/tasks/revise-task";

/** `POST /api/tasks/{taskId}/revisions` → 201 `{task}`, supervisors only (lib/api/endpoints.ts `operatorReviseTaskEndpoint`). */
export const POST = route(operatorReviseTaskEndpoint, async ({ caller, params, body }) => ({
  body: { task: await reviseTask(params.taskId, body, { kind: "user", id: caller.id }) },
}));
