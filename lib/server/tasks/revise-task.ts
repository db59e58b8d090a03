import { nanoid } from "nanoid";
import { Prisma } from "../../generated/prisma/client";
import { DomainError } from "../../errors/domain-error";
import type { ReviseTaskBody } from "../../task-contract/task-revision";
import { TEXT_SOURCE_LABELS, type TaskTextPart } from "../../task-contract/schema";
import { fromStates } from "../../lifecycle/run-state";
import { appendAudit, type Actor } from "../audit-log/append-audit";
import { toJsonColumn } from "../db/json-column";
import { stopForStaleTask } from "../lifecycle/run-lifecycle";
import { storedSteps } from "../plans/stored-plan";
import { inTransaction, ok, type Tx } from "../db/transaction";
import { toTaskView, type TaskView } from "./read-tasks";
import { checkContractForDesk, contractOf, partsOf } from "./task-contract";

/**
 * Records a change of a task and bumps its revision by one (docs/design.md §8). A new body replaces the
 * text (and its parts: the body becomes one system part); a comment is appended to the body under
 * "Update (rev N)" as a staff part; each posted part is appended as "Update (rev N, <source>)"
 * with its source, so the body stays the whole text and the parts say who wrote what. A contract
 * (`{intent, constraints}`, checked against the desk's catalog and accounts) replaces the task's
 * contract; `contract: null` removes it; absent keeps it. A contract change is audited
 * `admin_change` {what: "task.contract", before, after}. The bump is the first statement of one
 * transaction (`revision = revision + 1`), which takes the write lock (SQLite) or the row lock
 * (PostgreSQL) before anything is read, so concurrent revisions are serialised by the database:
 * each gets its own number and every comment lands; a claim holding the task row waits. Every run
 * still open on the task is audited `task_revised`; one still waiting (pending_review, approved or
 * needs_decision) is stopped at once (`stopped_stale_task`, `stopReason.while: "waiting"`):
 * nothing can approve or claim it any more, and its agent learns so from its next read. Returns
 * the task as this revision left it. `scope.desk` (a desk-bound integration key's desk) limits the
 * revision to that desk's tasks: another desk's task is not found, exactly like one that does not
 * exist, and nothing of it changes (the desk is in the bumping UPDATE's WHERE). Errors: 404
 * `not_found`; 422 `validation_failed` (a contract that does not fit the desk).
 */
export async function reviseTask(taskId: string, input: ReviseTaskBody, actor: Actor, scope: { desk?: string | null } = {}): Promise<TaskView> {
  return inTransaction(async (tx) => ok(await applyTaskRevision(tx, taskId, input, actor, scope)));
}

/**
 * `reviseTask` inside a transaction the caller holds (e.g. a ticket event that carries text,
 * lib/server/outcomes/record-ticket-event.ts): the same bump, parts, audit and stops, committed or
 * rolled back with the caller's work. Same errors.
 */
export async function applyTaskRevision(tx: Tx, taskId: string, input: ReviseTaskBody, actor: Actor, scope: { desk?: string | null } = {}): Promise<TaskView> {
  const deskScope = scope.desk ? { desk: scope.desk } : {};
  const bumped = await tx.task.updateMany({ where: { id: taskId, ...deskScope }, data: { revision: { increment: 1 } } });
  if (bumped.count !== 1) throw new DomainError("not_found", `Task ${taskId} was not found.`);
  const t = await tx.task.findUniqueOrThrow({ where: { id: taskId }, include: { ticket: { select: { accountId: true } } } });
  const next = t.revision;
  if (input.contract) await checkContractForDesk(tx, input.contract, t.desk);
  let body = input.body ?? t.body;
  let parts: TaskTextPart[] = input.body !== undefined ? [{ source: "system", text: input.body, revision: next }] : partsOf(t);
  const added: TaskTextPart[] = [];
  if (input.comment) {
    body = `${body}\n\nUpdate (rev ${next}): ${input.comment}`;
    added.push({ source: "staff", text: input.comment, revision: next });
  }
  for (const p of input.parts ?? []) {
    body = `${body}\n\nUpdate (rev ${next}, ${TEXT_SOURCE_LABELS[p.source]}): ${p.text}`;
    added.push({ source: p.source, text: p.text, revision: next });
  }
  parts = [...parts, ...added];
  const before = contractOf(t);
  const contract = input.contract === undefined ? before : input.contract;
  const textChanged = body !== t.body || input.body !== undefined || added.length > 0;
  await tx.task.update({
    where: { id: taskId },
    data: {
      ...(body !== t.body ? { body } : {}),
      ...(textChanged ? { textParts: toJsonColumn(parts) } : {}),
      ...(input.contract !== undefined ? { contract: input.contract === null ? Prisma.DbNull : toJsonColumn(input.contract) } : {}),
    },
  });
  await tx.taskRevision.create({
    data: {
      id: nanoid(),
      taskId,
      revision: next,
      body,
      comment: input.comment ?? null,
      ...(contract ? { contract: toJsonColumn(contract) } : {}),
      ...(added.length || input.body !== undefined ? { textParts: toJsonColumn(input.body !== undefined ? parts : added) } : {}),
      actorKind: actor.kind,
      actorId: actor.id ?? null,
    },
  });
  if (input.contract !== undefined) {
    await appendAudit(tx, {
      type: "admin_change",
      actor,
      data: { what: "task.contract", target: { kind: "task", id: taskId }, before, after: input.contract, revision: next, note: input.comment ?? null },
    });
  }
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
      data: {
        taskId,
        boundRevision: r.boundTaskRevision,
        liveRevision: next,
        comment: input.comment ?? null,
        bodyChanged: input.body !== undefined,
        partsAdded: added.map((p) => p.source),
        contractChanged: input.contract !== undefined,
      },
    });
    // A run still waiting for a decision or its first claim can never be approved or claimed
    // for this revision: it stops now, so the agent waiting on it is told at once.
    if (r.status === "pending_review" || r.status === "approved" || r.status === "needs_decision") {
      const first = storedSteps(r.planVersions.find((p) => p.version === r.planVersion)?.steps)[0];
      await stopForStaleTask(
        tx,
        r.id,
        { code: "stopped_stale_task", boundRevision: r.boundTaskRevision, liveRevision: next, blockedStepId: first?.id ?? "", while: "waiting", executedStepIds: [], claimedStepIds: [], at: new Date().toISOString() },
        actor,
      );
    }
  }
  return toTaskView(await tx.task.findUniqueOrThrow({ where: { id: taskId }, include: { ticket: { select: { accountId: true } } } }));
}
