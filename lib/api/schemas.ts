import { decisionReasonSchema } from "../lifecycle/needs-decision";
import { z } from "zod";
import { integrationScopeSchema } from "./integration-scopes";
import { intentSchema, taskContractSchema, taskTextPartSchema } from "../task-contract/schema";
import { instructionFlagSchema } from "../task-contract/instruction-scan";
import { planDiffSchema } from "../diff/plan-diff";
import { editSummarySchema } from "../diff/edit-summary";
import { authorSchema, planSchema, provenanceSchema, STEP_REASON_KEYS, stepReasonsShape, stepSchema } from "../plan/schema";
import { readStepSchema } from "../reads/schema";
import { RUN_STATES } from "../lifecycle/run-state";
import { runOutcomeSchema as runOutcome } from "../lifecycle/run-outcome";
import { GATE_DECISIONS } from "../validation/types";
import { validationIssueSchema as validationIssue } from "../validation/issue-schema";
import { stepEffectSchema } from "../effects/schema";
import type { AccountSnapshot } from "../desk/snapshot";
import { importedToolSpecSchema } from "../tools/json-schema-tool";
import { currencySchema } from "../money/money";
import { recordVersionsSchema } from "./bodies";

/*
 * Response shapes of the HTTP API (docs/api.md), declared once: the endpoint declarations
 * (lib/api/endpoints.ts) point at them, the OpenAPI document is generated from them, the typed
 * client's result types are inferred from them, and in tests every response is checked against
 * them. Objects are open (extra fields allowed: the API may be extended, never renamed).
 * Client-safe: no server imports. Money is `{minor, currency}`; times are ISO-8601 UTC strings.
 */

/** Money as the API sends it: integer minor units and an ISO 4217 currency code. */
const money = z.object({ minor: z.number().int(), currency: z.string() });
const isoTime = z.string().meta({ description: "ISO-8601 instant, UTC", format: "date-time" });
/** An object whose extra fields are allowed (and dropped by parsing): the API may add fields, never rename them. */
const open = <S extends z.ZodRawShape>(shape: S) => z.object(shape);

/** `run.outcome`: `{code, message, …}` with the fields of its code (declared in lib/lifecycle/run-outcome.ts). */
export const runOutcomeSchema = runOutcome.meta({ id: "RunOutcome" });

export const errorSchema = z
  .object({ error: open({ code: z.string(), message: z.string() }) })
  .meta({ id: "Error", description: "Every refusal: a typed code, a message written for people, and details." });

export const validationIssueSchema = validationIssue.meta({ id: "ValidationIssue" });

export const runStatusSchema = z.enum(RUN_STATES).meta({ id: "RunStatus" });

export const runStepSchema = open({
  id: z.string(),
  position: z.number().int(),
  tool: z.string(),
  args: z.record(z.string(), z.unknown()),
  provenance: z.record(z.string(), provenanceSchema),
  digest: z.string().regex(/^[0-9a-f]{64}$/),
  author: authorSchema,
  gate: z.enum(GATE_DECISIONS),
  approval: open({ id: z.string(), state: z.string(), approverId: z.string().nullable() }).nullable(),
  approvals: open({ required: z.number().int(), given: z.number().int(), approverIds: z.array(z.string()), authorMayApprove: z.boolean(), policyVersion: z.number().int() }).optional(),
  /** The step fields the gate policy requires of this step (the card shows "4 of 5 filled" with these marked). */
  requiredFields: z.array(z.enum(STEP_REASON_KEYS)).optional(),
  /** The governing rule's record-age bound (gate policy `maxRecordAgeMinutes`); absent: no bound. */
  maxRecordAgeMinutes: z.number().int().optional().describe("Minutes since its last sync the step's target record may be when it is approved or claimed (older: stale_account_data); absent: no bound"),
  /** The governing rule requires the approver's signature (gate policy `requireSignature`); absent: not required. */
  requireSignature: z.boolean().optional().describe("True: approving this step needs the approver's WebAuthn signature over run, plan version and step digests (signature_required without one); absent: not required"),
  execution: open({
    status: z.string(),
    claimedAt: isoTime,
    reportedAt: isoTime.nullable(),
    detail: z.string().nullable(),
    /** What a supervisor recorded for an `unknown` outcome, or null. */
    resolution: z.string().nullable(),
    reconciledBy: z.string().nullable(),
  }).nullable(),
  ...stepReasonsShape,
}).meta({ id: "RunStep" });
/** A step as the API shows it: the stored step plus digest, gate, four-eyes counts, required fields, approval and execution. */
export type RunStepView = z.output<typeof runStepSchema>;

export const runSchema = open({
  id: z.string(),
  taskId: z.string(),
  ticketId: z.string(),
  agentId: z.string(),
  status: runStatusSchema,
  planVersion: z.number().int(),
  approvedVersion: z.number().int().nullable(),
  boundTaskRevision: z.number().int(),
  catalogVersion: z.number().int().nullable().describe("Tool catalog version the run is validated against (null: built-in tools only)"),
  createdAt: isoTime,
  expiresAt: isoTime,
  escalateAt: isoTime,
  rejectionReason: z.string().nullable(),
  stopReason: z.unknown(),
  decisionReason: decisionReasonSchema
    .nullable()
    .describe("Why the run needs a person's new decision (status needs_decision): the claim refusal's code, a message a person acts on, the blocked step; null otherwise"),
  supersededById: z.string().nullable().describe("The newer run of the same agent that superseded this one"),
  outcome: runOutcomeSchema.nullable().describe("The typed end of the run; null while it still has a decision path (pending_review, approved, needs_decision, executing)"),
  steps: z.array(runStepSchema),
  reads: z.array(readStepSchema).describe("The reads the agent made (read steps), shown collapsed above the writes; never approved or claimed"),
}).meta({ id: "Run" });
/** The `run` object of docs/api.md (times ISO-8601 UTC). */
export type RunView = z.output<typeof runSchema>;

export const taskSchema = open({
  id: z.string(),
  ticketId: z.string(),
  accountId: z.string(),
  revision: z.number().int(),
  body: z.string(),
  updatedAt: isoTime,
  contract: taskContractSchema.nullable().describe("The task contract {intent, constraints}; null: the integration posted none, so the desk's default intent applies (none declared: only replies and notes are permitted)"),
  parts: z.array(taskTextPartSchema).describe("The task's text as parts with their source (customer_message, attachment, staff, system) and the revision that added each"),
  instructionFlags: z
    .array(instructionFlagSchema)
    .describe("Instruction-like spans in customer and attachment parts (UTF-16 offsets in the part's text, end exclusive)"),
}).meta({ id: "Task" });
/** A task as the API shows it: text, revision, contract, sourced parts and the instruction-like spans flagged in them (times ISO UTC). */
export type TaskView = z.output<typeof taskSchema>;

export const claimSchema = open({
  token: z.string(),
  stepId: z.string(),
  digest: z.string(),
  runId: z.string(),
  planVersion: z.number().int(),
  taskRevision: z.number().int(),
  approvalId: z.string(),
  claimedAt: isoTime,
  leaseExpiresAt: isoTime.meta({ description: "The token fences writes until then (ISO UTC); check it with POST /api/v1/claims/{token}/fence inside the write." }),
  stopCondition: z
    .string()
    .nullable()
    .optional()
    .meta({ description: "When not to write this step (the step's stop condition as approved), or null. If it is met, write nothing and report the outcome with stopConditionMet: true (status failed): the run stops." }),
  recordVersions: recordVersionsSchema
    .optional()
    .meta({ description: "The source versions of the records the step's arguments name, as the approval saw them ({\"invoice:in_74119\": 8}; records without a source version left out). Send the live versions to the fence as targetVersions right before the write: one that moved is refused target_changed." }),
}).meta({ id: "Claim" });

const outcomeStatus = z.enum(["claimed", "succeeded", "failed", "unknown"]);
export const fenceSchema = open({
  token: z.string(),
  runId: z.string(),
  stepId: z.string(),
  digest: z.string(),
  taskRevision: z.number().int(),
  leaseExpiresAt: isoTime,
  holds: z.literal(true),
}).meta({ id: "Fence" });

export const stepExecutionSchema = open({
  runId: z.string(),
  stepId: z.string(),
  status: outcomeStatus,
  outcome: outcomeStatus,
  detail: z.string().nullable(),
  claimedAt: isoTime,
  reportedAt: isoTime.nullable(),
  resolution: z.enum(["succeeded", "failed"]).nullable(),
  flag: z.string().nullable().optional(),
}).meta({ id: "StepExecution" });

export const approvalSchema = open({
  id: z.string(),
  runId: z.string(),
  stepId: z.string(),
  planVersion: z.number().int(),
  tool: z.string(),
  digest: z.string(),
  boundTaskRevision: z.number().int(),
  approverId: z.string().nullable(),
  state: z.string(),
  expiresAt: isoTime,
}).meta({ id: "Approval" });

/**
 * Another run of the same task whose plan is being executed (lib/lifecycle/run-state.ts
 * `isBeingExecuted`): approving a run while one is needs it acknowledged, so two plans for one
 * task never both write unnoticed.
 */
export const concurrentRunSchema = open({ id: z.string(), status: runStatusSchema })
  .meta({ id: "ConcurrentRun", description: "Another plan for this task being executed: status executing, needs_decision after a claim, or a claim or unknown outcome still open" });
/** A parsed {@link concurrentRunSchema}. */
export type ConcurrentRun = z.output<typeof concurrentRunSchema>;

export const queueRowSchema = open({
  id: z.string(),
  status: runStatusSchema,
  ticketId: z.string(),
  ticketSubject: z.string(),
  accountId: z.string(),
  accountName: z.string(),
  agentName: z.string(),
  stepCount: z.number().int(),
  gatedCount: z.number().int(),
  warningCount: z.number().int(),
  planVersion: z.number().int(),
  createdAt: isoTime,
  expiresAt: isoTime,
  escalateAt: isoTime,
  // ownership
  assigneeId: z.string().nullable().optional(),
  assigneeName: z.string().nullable().optional(),
  approvalsMissing: z.number().int().optional(),
  approvalsNeeded: z.number().int().optional(),
  beyondMyLimit: z.boolean().optional(),
  // money out per currency and risky-step counts of the current plan
  atStake: z.array(z.object({ minor: z.number().int(), currency: currencySchema })).optional().describe("Money the current plan's steps move, per currency (minor units), largest first"),
  risks: open({ irreversible: z.number().int(), otherAccount: z.number().int(), moneyOut: z.number().int() }).optional(),
  concurrentRuns: z
    .array(concurrentRunSchema)
    .optional()
    .describe("Other runs of this run's task being executed now (absent: none; never for an ended run): approving this run needs them acknowledged (acknowledgedConcurrentRuns)"),
  park: open({ kind: z.enum(["skip", "snooze", "handoff"]), until: isoTime.nullable() })
    .optional()
    .describe("The viewer's own park of this run, still in force (absent: not parked): it is left out of their next until `until` (null: until the run changes)"),
}).meta({ id: "QueueRow" });
/** A queue row for `/runs` and `GET /api/runs` (times ISO-8601 UTC; money in minor units). */
export type QueueRow = z.output<typeof queueRowSchema>;

/** One page of the queue: its rows, the cursor of the next page (null: the last) and the server's clock when it listed them. */
export const queuePageSchema = z.object({
  runs: z.array(queueRowSchema),
  nextCursor: z.string().nullable(),
  serverNow: isoTime.describe("the server's clock when it listed the page (UTC ISO instant): clients word deadlines from it"),
});
/** A parsed {@link queuePageSchema}. */
export type QueuePage = z.output<typeof queuePageSchema>;

export const recordOptionSchema = open({
  kind: z.string().meta({ description: "invoice, shipment, ticket, account, or a kind the desk declared" }),
  id: z.string(),
  accountId: z.string(),
  accountName: z.string(),
  label: z.string(),
  status: z.string().optional(),
  openBalance: money.optional(),
  fees: z.array(open({ code: z.string(), amount: money })).optional(),
  title: z.string().optional().meta({ description: "A declared record's title role" }),
  available: money.optional().meta({ description: "A declared record's available amount (its balance role)" }),
}).meta({ id: "RecordOption" });

export const demoEffectSchema = open({
  runId: z.string(),
  stepId: z.string(),
  tool: z.string(),
  summary: z.string(),
  record: open({ type: z.string(), id: z.string(), before: z.record(z.string(), z.unknown()), after: z.record(z.string(), z.unknown()) }).nullable(),
  appliedAt: isoTime,
  targetVersions: recordVersionsSchema
    .optional()
    .meta({ description: "The source version the written record has now ({\"invoice:in_74119\": 9}; {} when no record changed): report it with the outcome as targetVersions." }),
}).meta({ id: "DemoEffect" });

export const stagedEffectSchema = open({
  handle: z.string().meta({ description: "The staging handle (stg_…)" }),
  runId: z.string(),
  stepId: z.string(),
  tool: z.string(),
  status: z.enum(["staged", "promoted", "discarded"]),
  stagedAt: isoTime,
  detail: z.string().nullable().meta({ description: "Why it was discarded (staged_not_promoted: …), else null" }),
}).meta({ id: "StagedEffect" });

export const demoPromotionSchema = open({
  runId: z.string(),
  promotedAt: isoTime,
  effects: z.array(demoEffectSchema).meta({ description: "Every staged write, applied in plan order in one transaction" }),
  steps: z.array(open({ stepId: z.string(), status: z.literal("succeeded"), targetVersions: recordVersionsSchema })).meta({ description: "The outcome Plandesk reported for each step in the same transaction" }),
  run: open({ id: z.string(), status: z.string() }),
}).meta({ id: "DemoPromotion" });

const planVersionSummary = open({ version: z.number().int(), createdById: z.string().nullable(), createdAt: isoTime, stepCount: z.number().int() });

export const runDetailsSchema = open({
  run: runSchema,
  /** The task, with the desk's intent catalog (what a supervisor may set). */
  task: taskSchema.extend({
    intents: z.array(intentSchema).describe("The desk's intent catalog"),
    defaultIntent: z.string().nullable().describe("The desk's default intent, which a task without a contract gets; null: none (only replies and notes are permitted)"),
  }),
  ticket: open({ id: z.string(), subject: z.string(), accountId: z.string(), accountName: z.string() }),
  agent: open({ id: z.string(), name: z.string() }),
  planVersions: z.array(planVersionSummary),
  edits: z
    .array(editSummarySchema)
    .meta({ description: "Every edit a person made since the agent's plan, oldest first: who (editorId), when (at), plan version fromVersion → version, and per touched step what changed (added, removed, moved, changed with its fields before → after; money in minor units)" }),
  validation: open({ issues: z.array(validationIssueSchema) }),
  accountContext: open({
    account: open({ id: z.string(), name: z.string() }),
    invoices: z.array(open({ id: z.string(), status: z.string(), openBalance: money, total: money })),
    shipments: z.array(open({ id: z.string(), destination: z.string(), window: open({ from: z.string(), to: z.string() }), status: z.string() })),
  }),
  /** Names of the people the run's history mentions (approvers, editors, authors, reconcilers), by user id. */
  users: z.record(z.string(), z.string()),
  /** The run's tool catalog version and its imported tools (the form and card render them). */
  catalog: open({ version: z.number().int().nullable(), imported: z.array(importedToolSpecSchema) }),
  effects: z.array(stepEffectSchema).meta({ description: "Effects preview of the current plan version: per step, the account state after it" }),
  requiredFieldsByTool: z
    .record(z.string(), z.array(z.enum(STEP_REASON_KEYS)))
    .optional()
    .meta({ description: "The step fields the live gate policy requires of a step a person adds to this run, by tool (evaluated for the run's desk and account without an amount; the edit's validation decides with the amount). A tool that requires none is absent." }),
  concurrentRuns: z
    .array(concurrentRunSchema)
    .describe("Other runs of this run's task being executed now, newest first (empty for an ended run): approving this run needs each acknowledged (acknowledgedConcurrentRuns), else 409 concurrent_run_unacknowledged"),
}).meta({ id: "RunDetails" });
/**
 * What the run page loads: the API's run details plus `desk`, the account snapshot the page
 * renders and annotates ids with (the records the plan names and the ticket account's own), which
 * the API does not send.
 */
export type RunDetails = z.output<typeof runDetailsSchema> & { desk: AccountSnapshot };

export const planDiffResponseSchema = planDiffSchema.meta({ id: "PlanDiff" });

export const editResultSchema = open({
  planVersion: planSchema,
  diff: planDiffResponseSchema,
  validation: open({ issues: z.array(validationIssueSchema), gate: z.record(z.string(), z.enum(GATE_DECISIONS)) }),
  reapproval: z.string(),
  unchanged: z.boolean(),
});
/** What an accepted edit answers: the new plan version, its diff from the base, the validation and the re-approval it needs. */
export type EditResult = z.output<typeof editResultSchema>;

export const auditEventSchema = open({
  seq: z.number().int(),
  type: z.string(),
  actor: open({ kind: z.enum(["agent", "user", "integration", "system", "anonymous"]), id: z.string().nullable(), name: z.string().optional() }).describe("Who caused the event: a person, an agent, the ticketing integration (id: its key's id, name: the key's name), Plandesk itself or an unidentified caller"),
  at: isoTime,
  data: z.record(z.string(), z.unknown()),
}).meta({ id: "AuditEvent" });

export const runAuditSchema = open({
  events: z.array(auditEventSchema),
  run: open({ id: z.string(), status: runStatusSchema, ticketId: z.string() }),
  planVersions: z.array(open({ version: z.number().int(), steps: z.array(runStepSchema), issues: z.array(validationIssueSchema) })),
  edits: z.array(open({ fromVersion: z.number().int(), toVersion: z.number().int(), editorId: z.string(), diff: planDiffResponseSchema })),
  effectComparisons: z
    .array(open({ stepId: z.string(), approvalId: z.string(), expected: stepEffectSchema.nullable(), actual: open({ summary: z.string(), record: z.record(z.string(), z.unknown()).nullable() }).nullable() }))
    .meta({ description: "Expected vs actual effect of each succeeded step" }),
});

export const editDetailSchema = open({
  runId: z.string(),
  fromVersion: z.number().int(),
  toVersion: z.number().int(),
  editorId: z.string(),
  editorName: z.string(),
  createdAt: isoTime,
  before: planSchema,
  after: planSchema,
  diff: planDiffResponseSchema,
});

/** A grant ceiling: `{minor, currency}` (an ISO 4217 code the desk supports) or null for none. */
const ceiling = z.object({ minor: z.number().int(), currency: currencySchema }).nullable();
export const grantViewSchema = open({
  tool: z.string(),
  label: z.string(),
  movesMoney: z.boolean(),
  canApprove: z.boolean(),
  approveLimit: ceiling,
  canAuthor: z.boolean(),
  authorLimit: ceiling,
}).meta({ id: "Grant" });
/** One tool's grant for one person (absent grant = both permissions off). */
export type GrantView = z.output<typeof grantViewSchema>;

export const adminUserSchema = open({
  id: z.string(),
  name: z.string(),
  email: z.string(),
  role: z.enum(["operator", "supervisor", "admin"]),
  desk: z.string(),
  disabled: z.boolean(),
  createdAt: isoTime,
  /** Tools the person holds a grant for. */
  grantCount: z.number().int(),
  /** Sessions not yet expired or ended. */
  activeSessions: z.number().int(),
}).meta({ id: "AdminUser" });
/** A person as the admin pages list them. */
export type AdminUserView = z.output<typeof adminUserSchema>;

export const apiKeySchema = open({
  id: z.string(),
  prefix: z.string(),
  /** What the admin called the key; null for keys made before names. */
  name: z.string().nullable(),
  createdAt: isoTime,
  revokedAt: isoTime.nullable(),
  /** When the key stops being accepted; null: never. */
  expiresAt: isoTime.nullable(),
  /** The last accepted request with it, to the minute; null: never used. */
  lastUsedAt: isoTime.nullable(),
}).meta({ id: "ApiKey" });
/** An agent API key as admins see it: never the key, only its prefix. */
export type ApiKeyView = z.output<typeof apiKeySchema>;

/** A ticketing-integration key as admins see it: never the key, only its prefix. */
export const integrationKeySchema = open({
  id: z.string(),
  name: z.string(),
  prefix: z.string(),
  createdAt: isoTime,
  lastUsedAt: isoTime.nullable(),
  revokedAt: isoTime.nullable(),
  /** The desk whose tasks the key may post ticket events for; null: every desk. */
  desk: z.string().nullable(),
  /** What the key may do (lib/api/integration-scopes.ts): `tasks`, `records`. */
  scopes: z.array(integrationScopeSchema),
}).meta({ id: "IntegrationKey" });
/** An integration key as admins see it (`lastUsedAt` null = never used). */
export type IntegrationKeyView = z.output<typeof integrationKeySchema>;

export const agentViewSchema = open({
  id: z.string(),
  name: z.string(),
  desk: z.string(),
  allowedTools: z.array(z.string()),
  createdAt: isoTime,
  /** Runs the agent has submitted. */
  runCount: z.number().int(),
  keys: z.array(apiKeySchema),
}).meta({ id: "Agent" });
/** An agent with its desk, allowlist, run count and keys. */
export type AgentView = z.output<typeof agentViewSchema>;

/** The step shape agents submit (`id` optional; the console assigns one). */
export const stepInputSchema = stepSchema.partial({ id: true, provenance: true, author: true });
