import { DomainError } from "../errors";
import type { DeskSnapshot } from "../desk/snapshot";
import type { ValidationIssue } from "../validation/types";
import { prisma } from "./db";
import { loadDeskSnapshot } from "./desk-data";
import { loadRun, storedSteps, toRunView, type RunView } from "./runs";
import { deskScope, type Viewer } from "./session";
import type { ImportedToolSpec } from "../tools/json-schema-tool";
import { importedToolsAt } from "./tool-catalog";

/** Everything the run page and `GET /api/runs/{runId}` show (API.md operator API). */
export interface RunDetails {
  run: RunView;
  task: { id: string; ticketId: string; revision: number; body: string; updatedAt: string };
  ticket: { id: string; subject: string; accountId: string; accountName: string };
  agent: { id: string; name: string };
  planVersions: { version: number; createdById: string | null; createdAt: string; stepCount: number }[];
  validation: { issues: ValidationIssue[] };
  accountContext: {
    account: { id: string; name: string };
    invoices: { id: string; status: string; openBalance: { minor: number; currency: string }; total: { minor: number; currency: string } }[];
    shipments: { id: string; destination: string; window: { from: string; to: string }; status: string }[];
  };
  /** Account data used to render and annotate ids (names of accounts, records). */
  desk: DeskSnapshot;
  users: Record<string, string>;
  /** The run's tool catalog version and its imported tools (the form and card render them). */
  catalog: { version: number | null; imported: ImportedToolSpec[] };
}

/**
 * Loads the run page's data for `viewer`. Every signed-in desk role may read runs (one desk).
 * Errors: 404 `not_found` for an unknown run.
 */
export async function getRunDetails(runId: string, viewer: Viewer, now = new Date()): Promise<RunDetails> {
  if (!viewer) throw new DomainError("unauthorized", "Sign in to continue.");
  const run = await loadRun(runId, deskScope(viewer));
  const [task, agent, users] = await Promise.all([
    prisma.task.findUniqueOrThrow({ where: { id: run.taskId }, include: { ticket: { include: { account: true } } } }),
    prisma.agent.findUniqueOrThrow({ where: { id: run.agentId } }),
    prisma.user.findMany({ select: { id: true, name: true } }),
  ]);
  const desk = await loadDeskSnapshot(task.ticketId);
  const current = run.planVersions.find((p) => p.version === run.planVersion);
  const accountId = task.ticket.accountId;
  return {
    run: toRunView(run, now),
    task: { id: task.id, ticketId: task.ticketId, revision: task.revision, body: task.body, updatedAt: task.updatedAt.toISOString() },
    ticket: { id: task.ticket.id, subject: task.ticket.subject, accountId, accountName: task.ticket.account.name },
    agent: { id: agent.id, name: agent.name },
    planVersions: run.planVersions
      .sort((a, b) => a.version - b.version)
      .map((p) => ({ version: p.version, createdById: p.createdById, createdAt: p.createdAt.toISOString(), stepCount: storedSteps(p.steps).length })),
    validation: { issues: ((current?.validation as { issues?: ValidationIssue[] } | null)?.issues ?? []) as ValidationIssue[] },
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
  };
}
