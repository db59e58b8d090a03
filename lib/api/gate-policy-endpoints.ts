import { z } from "zod";
import { gatePolicyDraftSchema, gatePolicyDryRunSchema, GATE_RULE_DECISIONS, REQUIRABLE_FIELDS, type GateRule } from "../gate-policy/rules";
import { currencySchema } from "../money/money";
import { defineEndpoint } from "./contract";

/*
 * The gate policy's endpoints: an admin reads the live policy and its history, dry-runs
 * a draft over the last N runs and saves it as a new version. Declared once like every endpoint
 * (lib/api/contract.ts); listed in ENDPOINTS (lib/api/endpoints.ts).
 */

const ADMIN = { kind: "session", roles: ["admin"] } as const;

/**
 * A saved rule as the API returns it (money bounds in minor units; times in seconds): the fields of
 * `gateRuleInputSchema` (lib/gate-policy/rules.ts) as they come out of it, plus id and position.
 * Written out because the input's transforms cannot describe a response; the compiler holds the
 * two equal (`viewMatchesRule` below), so a field added to one and not the other fails the build.
 */
export const gateRuleViewSchema = z.object({
  id: z.string(),
  position: z.number().int(),
  tool: z.string().nullable(),
  desk: z.string().nullable(),
  accountId: z.string().nullable(),
  accountTag: z.string().nullable(),
  minAmountMinor: z.number().int().nullable(),
  maxAmountMinor: z.number().int().nullable(),
  currency: currencySchema.nullable(),
  decision: z.enum(GATE_RULE_DECISIONS),
  authorMayApprove: z.boolean(),
  expirySeconds: z.number().int().nullable(),
  escalateSeconds: z.number().int().nullable(),
  allowOutsideContract: z.enum(["supervisor"]).nullable().meta({ description: "\"supervisor\": a step outside the task's intent or accounts waits for a supervisor instead of being refused; null: refused." }),
  requiredFields: z.array(z.enum(REQUIRABLE_FIELDS)).meta({ description: "Step fields the agent must fill for steps this rule governs (missing_required_field / evidence_missing at submit)." }),
  dateHorizonDays: z.number().int().nullable().meta({ description: "Days after today (UTC) a date argument of a governed step may lie (beyond it window_beyond_horizon, or date_beyond_horizon for an imported tool's date); null: 366." }),
  maxRecordAgeMinutes: z.number().int().nullable().meta({ description: "Minutes since its last sync (syncedAt) a governed step's target record may be when a person approves the step or an executor claims it (older, or never synced: stale_account_data, 409); null: no bound." }),
  requireSignature: z.boolean().meta({ description: "True: approving a governed step needs the approver's WebAuthn assertion (user verification) over the run, plan version, step digests, approver and a server nonce (POST /api/runs/{runId}/signature-challenges); without one: signature_required (403)." }),
  note: z.string(),
});
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
/** Compile-time: the view is exactly a saved rule (`GateRule`). */
export const viewMatchesRule: Same<z.output<typeof gateRuleViewSchema>, GateRule> = true;
const policySchema = z.object({ version: z.number().int(), rules: z.array(gateRuleViewSchema) });
/** One saved version as the history lists it: who saved it, when (ISO UTC), why, how many rules. */
export const gatePolicyVersionSchema = z.object({
  version: z.number().int(),
  createdBy: z.object({ id: z.string(), name: z.string() }).nullable(),
  createdAt: z.string(),
  note: z.string(),
  ruleCount: z.number().int(),
});
/** A parsed {@link gatePolicyVersionSchema}. */
export type GatePolicyVersionView = z.output<typeof gatePolicyVersionSchema>;

export const getGatePolicyEndpoint = defineEndpoint({
  id: "getGatePolicy",
  method: "GET",
  path: "/api/admin/gate-policy",
  summary: "The live gate policy (its rules) and the newest versions",
  caller: ADMIN,
  success: { status: [200], schema: z.object({ live: policySchema, versions: z.array(gatePolicyVersionSchema) }), description: "{live: {version, rules}, versions}" },
  refusals: [],
});

export const saveGatePolicyEndpoint = defineEndpoint({
  id: "saveGatePolicy",
  method: "PUT",
  path: "/api/admin/gate-policy",
  summary: "Save a draft gate policy as the next version (all rules; audited with before and after)",
  description: "Runs already gated keep the version they recorded and approvals keep theirs; the new version governs new runs and new plan versions. `baseVersion` must be the live version (409 `stale_policy_version` otherwise).",
  caller: ADMIN,
  body: gatePolicyDraftSchema,
  success: { status: [200], schema: z.object({ policy: policySchema }), description: "{policy: {version, rules}}" },
  refusals: ["stale_policy_version"],
});

/** What a dry-run found: how many runs it replayed and those whose gating would change (per step: the gate's answer before and after, in words). */
export const dryRunResultSchema = z.object({
  liveVersion: z.number().int(),
  runsExamined: z.number().int(),
  changed: z.array(
    z.object({
      runId: z.string(),
      ticketId: z.string(),
      desk: z.string(),
      createdAt: z.string(),
      steps: z.array(z.object({ stepId: z.string(), tool: z.string(), amount: z.object({ minor: z.number().int(), currency: currencySchema }).nullable(), before: z.string(), after: z.string() })),
    }),
  ),
});
/** A parsed {@link dryRunResultSchema}. */
export type DryRunResult = z.output<typeof dryRunResultSchema>;

export const dryRunGatePolicyEndpoint = defineEndpoint({
  id: "dryRunGatePolicy",
  method: "POST",
  path: "/api/admin/gate-policy/dry-run",
  summary: "Which of the last N runs a draft gate policy would gate differently (saves nothing)",
  caller: ADMIN,
  body: gatePolicyDryRunSchema,
  success: {
    status: [200],
    schema: dryRunResultSchema,
    description: "{liveVersion, runsExamined, changed: [{runId, ticketId, desk, createdAt, steps: [{stepId, tool, amount, before, after}]}]}",
  },
  refusals: [],
});
