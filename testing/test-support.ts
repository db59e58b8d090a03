import fs from "node:fs";
import { pgTestDatabaseName, recreatePgTestDatabase } from "./test-databases";
import { takeSeededTemplate } from "./test-template";
import { resolveDatabaseUrl } from "../lib/server/db/database-url";
import { addDays, formatISO } from "date-fns";
import { nanoid } from "nanoid";
import type { Step } from "../lib/plan/schema";
import { isDomainError, type DomainError } from "../lib/errors/domain-error";
import { digest } from "../lib/plan/digest";
import { prisma } from "../lib/server/db/db";
import { storedSteps } from "../lib/server/plans/stored-plan";
import { settleReview } from "../lib/server/lifecycle/run-lifecycle";
import { loadAccountSnapshot } from "../lib/server/account-data/load-account-snapshot";
import { approvalTargetColumns } from "../lib/server/approvals/approval-columns";
import { inTransaction, ok } from "../lib/server/db/transaction";
import { concurrentRunsOf } from "../lib/server/plans/concurrent-runs";

/** The fixed clock integration tests use: 2026-04-01 09:00 UTC. */
export const TEST_NOW = new Date("2026-04-01T09:00:00Z");

/**
 * Migrates this test file's throw-away database (set by vitest.setup.ts: a temp SQLite file, or a
 * PostgreSQL database `plandesk_test_<random>` created here and dropped when the file ends) and
 * seeds the demo desk at `now` — at TEST_NOW, by copying the run's seeded template
 * (testing/test-template.ts), which is the same desk. Refuses any database that is not a test database.
 */
export async function prepareTestDatabase(now = TEST_NOW, opts: { seed?: boolean } = { seed: true }) {
  const { url, file, provider } = resolveDatabaseUrl();
  // The demo desk at the standard clock is copied from the run's seeded template (testing/test-template.ts).
  const template = opts.seed === false ? ({ kind: "none" } as const) : await takeSeededTemplate(url, provider, file, now, TEST_NOW);
  if (template.kind === "copied") return;
  if (provider === "postgresql") {
    if (!pgTestDatabaseName(url)) throw new Error(`Refusing to run tests against ${url}`);
    await recreatePgTestDatabase(url);
  } else {
    if (!file || !file.includes("plandesk-vitest-")) throw new Error(`Refusing to run tests against ${url}`);
    for (const s of ["", "-wal", "-shm"]) fs.rmSync(file + s, { force: true });
  }
  let seeded = false;
  // Loaded only on this path: most files copy the template and never migrate or seed themselves.
  const [{ deploy }, { seedDemoDesk }] = await Promise.all([import("../scripts/migrate"), import("../lib/server/demo/seed")]);
  try {
    await deploy(url);
    if (opts.seed !== false) await seedDemoDesk(now);
    seeded = true;
  } finally {
    if (template.kind === "build") await template.publish(seeded);
  }
}

/**
 * Saves, as the demo admin, the live gate policy without its signature rules (the demo desk signs
 * refunds and credits of $1,500.00 and more): for test files about something else that approve
 * and claim such steps without a passkey. Signed approvals are tested in lib/server/signatures.
 */
export async function withoutSignatureRules(now = TEST_NOW): Promise<void> {
  const [{ loadGatePolicy }, { saveGatePolicy }] = await Promise.all([import("../lib/server/gate-policy/load-gate-policy"), import("../lib/server/gate-policy/save-gate-policy")]);
  const live = await loadGatePolicy(prisma);
  const rules = live.rules.filter((r) => !r.requireSignature).map(({ id: _id, position: _p, ...r }) => r);
  await saveGatePolicy({ id: "usr_admin", role: "admin" }, { baseVersion: live.version, rules, note: "Tests: no signed approvals" }, now);
}

/**
 * Awaits `p` and returns the typed refusal it rejected with; fails the test when it resolved or
 * threw something untyped.
 */
export async function refused(p: Promise<unknown>): Promise<DomainError> {
  try {
    await p;
  } catch (e) {
    if (isDomainError(e)) return e;
    throw e;
  }
  throw new Error("expected a typed refusal");
}

/**
 * Records an active approval by `approverId` for every step of the run's current plan version and
 * settles the run through the lifecycle (approved) — the state a person's approvals leave, for
 * tests of the executor side.
 */
export async function approveAllAs(runId: string, approverId: string): Promise<void> {
  const run = await prisma.run.findUniqueOrThrow({ where: { id: runId }, include: { planVersions: true } });
  const pv = run.planVersions.find((v) => v.version === run.planVersion)!;
  const desk = await loadAccountSnapshot({ ticketId: run.ticketId, desk: run.desk, steps: storedSteps(pv.steps) });
  for (const step of storedSteps(pv.steps)) {
    if (await prisma.approval.count({ where: { runId, planVersion: run.planVersion, stepId: step.id, state: "active" } })) continue;
    await prisma.approval.create({
      data: {
        id: `apr_${nanoid(12)}`,
        runId,
        stepId: step.id,
        planVersion: run.planVersion,
        tool: step.tool,
        ...approvalTargetColumns(step, desk),
        args: step.args as never,
        digest: digest(step),
        boundTaskRevision: run.boundTaskRevision,
        approverId,
        authority: { kind: "grant" },
        acknowledged: [],
        state: "active",
        expiresAt: run.expiresAt,
      },
    });
  }
  const stepIds = storedSteps(pv.steps).map((s) => s.id);
  await inTransaction(async (tx) => ok(await settleReview(tx, runId, run.planVersion, stepIds)));
}

/** The steps of a run as an edit body sends them (what the form holds): ids, tools, copied args. */
export function editable(steps: { id: string; tool: string; args: Record<string, unknown> }[]): Step[] {
  return steps.map((s) => ({ id: s.id, tool: s.tool, args: structuredClone(s.args), provenance: {}, author: { kind: "model" } }));
}

/** The reasons the reference case's senior gives the refund they add: a title, the task's ticket as evidence, a risk and a stop condition. */
export const PERSON_REFUND_REASONS = {
  title: "Issue refund on in_74119",
  evidence: [{ recordType: "ticket", recordId: "74991" }],
  risk: "The refund goes to another account's invoice",
  stopCondition: "Stop if the invoice was already refunded",
};

/**
 * The reference edit of docs/design.md on the seeded #74991 plan (seeded at TEST_NOW): the delivery
 * moved to TEST_NOW + 7 days (four days later than the agent's day 3) and a refund of
 * $1,489.00 (148900 USD minor units) on in_74119 added, with the reasons the seeded gate policy
 * requires of it ({@link PERSON_REFUND_REASONS}).
 */
export function referenceEdit(steps: { id: string; tool: string; args: Record<string, unknown> }[]): Step[] {
  const day = formatISO(addDays(TEST_NOW, 7), { representation: "date" });
  const out = editable(steps);
  out.find((s) => s.tool === "reschedule_delivery")!.args.window = { from: day, to: day };
  out.push({
    id: "new-refund",
    tool: "issue_refund",
    args: { invoiceId: "in_74119", amount: { minor: 148900, currency: "USD" }, reason: "Goodwill for the missed window" },
    // a person's added refund carries what the seeded gate policy requires of it, as the edit form asks
    ...PERSON_REFUND_REASONS,
    provenance: {},
    author: { kind: "model" },
  });
  return out;
}

const IRREVERSIBLE = new Set(["issue_refund", "apply_credit", "waive_fee", "cancel_shipment"]);
const TARGET_ARG: Record<string, [string, string]> = { issue_refund: ["invoice", "invoiceId"], waive_fee: ["invoice", "invoiceId"], apply_credit: ["account", "accountId"], cancel_shipment: ["shipment", "shipmentId"] };

/**
 * The seeded gate policy requires a title, evidence, a risk and a stop condition of every
 * irreversible step an agent submits. Tests of OTHER rules give such steps those fields with this
 * helper (evidence: the step's own target record), so they are not also about completeness; a
 * field a step already has is kept. Other steps are returned as they are.
 */
export function withRequiredReasons<T>(steps: readonly T[]): T[] {
  return steps.map((s) => {
    const step = s as unknown as { tool?: string; args?: Record<string, unknown> } & Record<string, unknown>;
    if (!step || typeof step !== "object" || !IRREVERSIBLE.has(String(step.tool))) return s;
    const [recordType, arg] = TARGET_ARG[String(step.tool)];
    const recordId = typeof step.args?.[arg] === "string" ? (step.args[arg] as string) : undefined;
    return {
      title: `Test ${step.tool}`,
      risk: "Money moves",
      stopCondition: "The record changed meanwhile",
      ...(recordId ? { evidence: [{ recordType, recordId }] } : {}),
      ...step,
    } as unknown as T;
  });
}

/**
 * What an approval of `runId` must add to acknowledge every other run of its task being executed
 * now (`acknowledgedConcurrentRuns`, lib/server/plans/concurrent-runs.ts), or nothing when there is
 * none — for tests of other rules whose task still has an earlier run being executed (tests build
 * many runs on a few seeded tasks). Spread it into the approval's body.
 */
export async function concurrentAcks(runId: string): Promise<{ acknowledgedConcurrentRuns?: string[] }> {
  const run = await prisma.run.findUniqueOrThrow({ where: { id: runId }, select: { id: true, taskId: true, desk: true, status: true } });
  const ids = (await concurrentRunsOf(prisma, run)).map((r) => r.id);
  return ids.length ? { acknowledgedConcurrentRuns: ids } : {};
}
