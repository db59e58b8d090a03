import { nanoid } from "nanoid";
import { DomainError } from "../../errors";
import type { ReviseTaskBody } from "../../task-schema";
import { fromStates } from "../../run-state";
import { appendAudit, type Actor } from "../audit";
import { stopForStaleTask } from "../lifecycle/run-lifecycle";
import { storedSteps } from "../runs/run-view";
import { inTransaction, ok } from "../transaction";
import { toTaskView, type TaskView } from "./read-tasks";

/**
 * Records a change of what "done" means for a task and bumps its revision by one (DESIGN.md §8).
 * A comment is appended to the body under "Update (rev N)". The bump is the first statement of
 * one transaction (`revision = revision + 1`), which takes the write lock (SQLite) or the row
 * lock (PostgreSQL) before anything is read, so concurrent revisions are serialised by the
 * database: each gets its own number and every comment lands; a claim holding the task row waits.
 * Every run still open on the task is audited `task_revised`; one still waiting (pending_review or
 * approved, nothing claimed) is stopped at once (`stopped_stale_task`, `stopReason.while: "waiting"`):
 * nothing can approve or claim it any more, and its agent learns so from its next read. Returns the task as this revision
 * left it. Errors: 404 `not_found`.
 */
export async function reviseTask(taskId: string, input: ReviseTaskBody, actor: Actor): Promise<TaskView> {
  return inTransaction(async (tx) => {
    const bumped = await tx.task.updateMany({ where: { id: taskId }, data: { revision: { increment: 1 } } });
    if (bumped.count !== 1) throw new DomainError("not_found", `Task ${taskId} was not found.`);
    const t = await tx.task.findUniqueOrThrow({ where: { id: taskId } });
    const next = t.revision;
    let body = input.body ?? t.body;
    if (input.comment) body = `${body}\n\nUpdate (rev ${next}): ${input.comment}`;
    if (body !== t.body) await tx.task.update({ where: { id: taskId }, data: { body } });
    await tx.taskRevision.create({
      data: { id: nanoid(), taskId, revision: next, body, comment: input.comment ?? null, actorKind: actor.kind, actorId: actor.id ?? null },
    });
    const open = await tx.run.findMany({
      where: { taskId, status: { in: [...new Set([...fromStates("edit"), ...fromStates("claim")])] } },
      select: { id: true, boundTaskRevision: true, status: true, planVersion: true, planVersions: { select: { version: true, steps: true }, orderBy: { version: "desc" }, take: 1 } },
      take: 500,
    });
    for (const r of open) {
      await appendAudit(tx, {
        runId: r.id,
        type: "task_revised",
        actor,
        data: { taskId, boundRevision: r.boundTaskRevision, liveRevision: next, comment: input.comment ?? null, bodyChanged: input.body !== undefined },
      });
      // A run still waiting for a decision or its first claim can never be approved or claimed
      // for this revision: it stops now, so the agent waiting on it is told at once.
      if (r.status === "pending_review" || r.status === "approved") {
        const first = storedSteps(r.planVersions.find((p) => p.version === r.planVersion)?.steps)[0];
        await stopForStaleTask(
          tx,
          r.id,
          { code: "stopped_stale_task", boundRevision: r.boundTaskRevision, liveRevision: next, blockedStepId: first?.id ?? "", while: "waiting", executedStepIds: [], claimedStepIds: [], at: new Date().toISOString() },
          actor,
        );
      }
    }
    return ok(toTaskView(await tx.task.findUniqueOrThrow({ where: { id: taskId }, include: { ticket: { select: { accountId: true } } } })));
  });
}
