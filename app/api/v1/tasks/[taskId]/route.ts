import { NextResponse } from "next/server";
import { handle } from "@/lib/server/http";
import { requireAgent } from "@/lib/server/session";
import { getTask } from "@/lib/server/tasks/read-tasks";

/** `GET /api/v1/tasks/{taskId}` → `{task}`; 404 `not_found`. */
export const GET = handle(async (req: Request, ctx: { params: Promise<{ taskId: string }> }) => {
  await requireAgent(req);
  const { taskId } = await ctx.params;
  return NextResponse.json({ task: await getTask(taskId) });
});
