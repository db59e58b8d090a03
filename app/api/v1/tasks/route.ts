import { NextResponse } from "next/server";
import { handle } from "@/lib/server/http";
import { requireAgent } from "@/lib/server/session";
import { listTasks } from "@/lib/server/tasks/read-tasks";

/** `GET /api/v1/tasks?ticketId=74991` → `{tasks}` (API.md agent API). */
export const GET = handle(async (req: Request) => {
  await requireAgent(req);
  const ticketId = new URL(req.url).searchParams.get("ticketId") ?? undefined;
  return NextResponse.json({ tasks: await listTasks({ ticketId }) });
});
