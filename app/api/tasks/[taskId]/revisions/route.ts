import { NextResponse } from "next/server";
import { DomainError } from "@/lib/errors";
import { appendAudit } from "@/lib/server/audit";
import { prisma } from "@/lib/server/db";
import { handle, readJson } from "@/lib/server/http";
import { requireViewer } from "@/lib/server/session";
import { reviseTask } from "@/lib/server/tasks/revise-task";
import { reviseTaskBodySchema } from "@/lib/task-schema";

/**
 * `POST /api/tasks/{taskId}/revisions` `{body?, comment?}` — a supervisor edits the task or adds
 * a comment that changes what done means; bumps the revision (DESIGN.md §8). 201 `{task}`;
 * 403 `forbidden` for other roles (audited); 404.
 */
export const POST = handle(async (req: Request, ctx: { params: Promise<{ taskId: string }> }) => {
  const viewer = await requireViewer(req, { mutating: true });
  const { taskId } = await ctx.params;
  if (viewer.role !== "supervisor") {
    await appendAudit(prisma, { type: "denied", actor: { kind: "user", id: viewer.id }, data: { action: "revise_task", taskId, missing: "role supervisor" } });
    throw new DomainError("forbidden", "Only a supervisor can change a task.");
  }
  const body = await readJson(req, reviseTaskBodySchema);
  const task = await reviseTask(taskId, body, { kind: "user", id: viewer.id });
  return NextResponse.json({ task }, { status: 201 });
});
