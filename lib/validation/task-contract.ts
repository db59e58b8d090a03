import type { AccountSnapshot } from "../desk/snapshot";
import { accountIdOf, accountName, describeRecord } from "../desk/lookup";
import { parsedSteps, type StepView, type ValidationIssue } from "./types";

/**
 * Stage 5, *task contract* (docs/design.md §1.5): each step must belong to the task's ticket.
 * - `cross_account_target` (warning, needs acknowledgement): the step's target (invoice,
 *   shipment, ticket, account) belongs to another account than the ticket's; the message
 *   names both accounts from OUR data, e.g. "invoice in_74119 belongs to Halvorsen Freight,
 *   not to Nordkapp Logistics (the account on ticket #74991)"; details
 *   `{targetKind, targetId, targetAccountId, ticketAccountId}`.
 * - `other_ticket_target` (warning, needs acknowledgement): a ticket-targeted step names a
 *   ticket other than the task's.
 * Stated origins (provenance) are checked by ./provenance.ts, run by the pipeline in this stage.
 * Targets that do not resolve were already reported as `unknown_id`. Skips steps whose shape failed.
 * The checks against the task's own contract (intent, constraints, accounts in scope) and against
 * untrusted text (customer and attachment parts) are in ./contract-rules.ts, run by the pipeline
 * in this stage when the context carries the task.
 */
export function checkTaskContract(steps: readonly StepView[], desk: AccountSnapshot, _taskText?: string): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  const ticket = desk.ticket;
  const ticketAccountId = ticket.accountId;
  for (const s of parsedSteps(steps)) {
    const target = s.tool.target(s.step.args, desk);
    if (!target) continue;
    const targetAccountId = accountIdOf(desk, target.kind, target.id);
    const argPath = s.tool.fields.find((f) => f.kind === `${target.kind}_id` || f.record === target.kind)?.name;
    const path = argPath ? `${s.path}.args.${argPath}` : `${s.path}.args`;
    if (target.kind === "ticket" && target.id !== ticket.id) {
      issues.push({
        stage: "task_contract",
        code: "other_ticket_target",
        severity: "warning",
        stepId: s.id,
        path,
        message: `This step acts on ticket #${target.id}, not on ticket #${ticket.id} (the ticket of this task)`,
        needsAcknowledgement: true,
        details: { targetTicketId: target.id, taskTicketId: ticket.id },
      });
    }
    if (targetAccountId !== undefined && targetAccountId !== ticketAccountId) {
      const owner = accountName(desk, targetAccountId);
      const ours = accountName(desk, ticketAccountId);
      const subject =
        target.kind === "account"
          ? `account ${target.id} is ${owner}, not ${ours}`
          : `${describeRecord(target.kind, target.id)} belongs to ${owner}, not to ${ours}`;
      issues.push({
        stage: "task_contract",
        code: "cross_account_target",
        severity: "warning",
        stepId: s.id,
        path,
        message: `${subject} (the account on ticket #${ticket.id})`,
        needsAcknowledgement: true,
        details: { targetKind: target.kind, targetId: target.id, targetAccountId, ticketAccountId },
      });
    }
  }
  return issues;
}
