import { NextResponse } from "next/server";
import { handle, readJson } from "@/lib/server/http";
import { requireAgent } from "@/lib/server/session";
import { reviseTask } from "@/lib/server/tasks/revise-task";
import { reviseTaskBodySchema } from "@/lib/task-schema";

/** `POST /api/v1/tasks/{taskId}/revisions` — the ticketing integration changes the task; 201 `{task}`. */
export const POST = handle(async (req: Request, ctx: { params: Promise<{ taskId: string }> }) => {
  const agent = await requireAgent(req);
  const { taskId } = await ctx.params;
  const body = await readJson(req, reviseTaskBodySchema);
  const task = await reviseTask(taskId, body, { kind: "agent", id: agent.id });
  return NextResponse.json({ task }, { status: 201 });
});
