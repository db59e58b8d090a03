import type { RunDetails } from "../../api/schemas";
import { loadAccountSnapshot } from "../account-data/load-account-snapshot";
import { prisma } from "../db/db";
import { deskScope, type Viewer } from "../auth/viewer";
import { loadRun } from "../plans/load-run";
import { concurrentRunsOf } from "../plans/concurrent-runs";
import { toRunView } from "../plans/run-view";
import { storedReads, storedSteps, storedValidation } from "../plans/stored-plan";
import { checkReads } from "../../reads/check-reads";

/** Issues about the agent's reads, computed again for every view (the record may have moved since submission). */
const LIVE_READ_CODES = new Set(["read_outdated", "read_other_account"]);
import { catalogAt, importedToolsAt } from "../tools/imported-tools";
import { autoGated, promisesAwaitingApproval } from "../../validation/promise-backing";
import { previewEffects } from "../../effects/preview";
import { summariseEdits } from "../../diff/edit-summary";
import { toTaskView } from "../tasks/read-tasks";
import { listIntents, deskDefaultIntent } from "../tasks/task-contract";
import { boundRecordKinds } from "../../tools/tool-bindings";
import { evaluateGate } from "../../gate-policy/evaluate";
import { gateRulesFor } from "../gate-policy/load-gate-policy";
import type { ToolCatalog } from "../../tools/versioned-catalog";
import type { GateRulesContext } from "../../validation/types";
import type { StepReasonKey } from "../../plan/schema";

/** What the run page loads: the API's `RunDetails` (lib/api/schemas.ts), declared once. */
export type { RunDetails };

/**
 * Loads the run page's data for `viewer` — the run within the viewer's desk scope, its task,
 * ticket and agent, and the account data its plan versions name plus the ticket account's own
 * records (bounded), every edit since the agent's plan (`edits`, lib/diff/edit-summary.ts), and the other runs of its task being executed now (`concurrentRuns`, computed
 * on this read: approving needs them acknowledged). Errors: 404 `not_found` for an unknown run or
 * one of another desk.
 */
export async function getRunDetails(runId: string, viewer: Viewer, now = new Date()): Promise<RunDetails> {
  const run = await loadRun(runId, deskScope(viewer));
  const [task, agent] = [
    await prisma.task.findUniqueOrThrow({ where: { id: run.taskId }, include: { ticket: { include: { account: true } } } }),
    await prisma.agent.findUniqueOrThrow({ where: { id: run.agentId }, select: { id: true, name: true } }),
  ];
  const allSteps = run.planVersions.flatMap((p) => storedSteps(p.steps));
  const current = run.planVersions.find((p) => p.version === run.planVersion);
  const reads = storedReads(current?.reads);
  const catalog = await catalogAt(run.catalogVersion);
  const desk = await loadAccountSnapshot({ ticketId: task.ticketId, desk: run.desk, steps: allSteps, reads, accountRecords: true, accountKinds: boundRecordKinds(catalog), now, catalog });
  const accountId = task.ticket.accountId;
  const userIds = new Set<string>();
  for (const p of run.planVersions) if (p.createdById) userIds.add(p.createdById);
  for (const a of run.approvals) if (a.approverId) userIds.add(a.approverId);
  for (const e of run.executions) if (e.reconciledBy) userIds.add(e.reconciledBy);
  for (const s of allSteps) {
    if (s.author?.kind === "user") userIds.add(s.author.userId);
    for (const p of Object.values(s.provenance ?? {})) if (p.kind === "operator") userIds.add(p.userId);
  }
  // Replies whose promise is backed by a step not approved yet need acknowledgement.
  const validation = storedValidation(current?.validation);
  const currentSteps = storedSteps(current?.steps);
  const approvedIds = run.approvals.filter((a) => a.planVersion === run.planVersion && a.state === "active").map((a) => a.stepId);
  const awaiting = promisesAwaitingApproval(
    currentSteps.map((step) => ({ step, tool: catalog.get(step.tool) })),
    new Set([...approvedIds, ...autoGated(validation.gate)]),
    now,
  );
  const users = userIds.size ? await prisma.user.findMany({ where: { id: { in: [...userIds] } }, select: { id: true, name: true } }) : [];
  return {
    run: toRunView(run, now),
    task: { ...toTaskView(task), intents: await listIntents(prisma, task.ticket.account.desk), defaultIntent: (await deskDefaultIntent(prisma, task.ticket.account.desk))?.name ?? null },
    ticket: { id: task.ticket.id, subject: task.ticket.subject, accountId, accountName: task.ticket.account.name },
    agent,
    planVersions: [...run.planVersions]
      .sort((a, b) => a.version - b.version)
      .map((p) => ({ version: p.version, createdById: p.createdById, createdAt: p.createdAt.toISOString(), stepCount: storedSteps(p.steps).length })),
    edits: summariseEdits(run.planVersions.map((p) => ({ version: p.version, createdById: p.createdById, createdAt: p.createdAt.toISOString(), steps: storedSteps(p.steps) }))),
    // The agent's reads are re-read now: what they say about the world is as of this request.
    validation: { issues: [...validation.issues.filter((i) => !LIVE_READ_CODES.has(i.code)), ...checkReads(reads, desk, currentSteps.map((s) => s.id)).filter((i) => LIVE_READ_CODES.has(i.code)), ...awaiting] },
    accountContext: {
      account: { id: accountId, name: task.ticket.account.name },
      invoices: Object.values(desk.invoices)
        .filter((i) => i.accountId === accountId)
        .map((i) => ({ id: i.id, status: i.status, openBalance: i.openBalance, total: i.total })),
      shipments: Object.values(desk.shipments)
        .filter((s) => s.accountId === accountId)
        .map((s) => ({ id: s.id, destination: s.destination, window: s.window, status: s.status })),
    },
    desk,
    users: Object.fromEntries(users.map((u) => [u.id, u.name])),
    catalog: { version: run.catalogVersion, imported: await importedToolsAt(run.catalogVersion) },
    effects: previewEffects(currentSteps, desk, catalog),
    requiredFieldsByTool: requiredFieldsByTool(catalog, await gateRulesFor(prisma, { desk: run.desk, accountId })),
    concurrentRuns: await concurrentRunsOf(prisma, run),
  };
}

/**
 * The fields the live gate policy requires of a step a person adds, by tool name (tools that
 * require none are left out): each tool evaluated for the run's desk and account without an amount
 * (a rule with an amount band is decided by the edit's validation, which knows the amount). Pure.
 * Source: docs/design.md "The task contract and what the agent saw".
 */
export function requiredFieldsByTool(catalog: ToolCatalog, rules: GateRulesContext): Record<string, StepReasonKey[]> {
  const out: Record<string, StepReasonKey[]> = {};
  for (const name of catalog.names()) {
    const tool = catalog.get(name);
    if (!tool) continue;
    const req = evaluateGate(rules.policy, { tool: tool.name, effect: tool.effect, defaultGate: tool.gate, desk: rules.desk, accountId: rules.accountId, accountTags: rules.accountTags });
    if (req.requiredFields.length > 0) out[name] = req.requiredFields;
  }
  return out;
}
