import type { z } from "zod";
/**
 * Every typed refusal Plandesk returns, with its HTTP status. One enum, mapped in one place
 * (`lib/server/http/http.ts`). Source: docs/api.md (typed refusals), docs/style.md §4.
 */
export const ERROR_STATUS = {
  bad_request: 400,
  invalid_json: 400,
  invalid_encoding: 400, // a body whose bytes are not UTF-8
  unauthorized: 401,
  forbidden: 403,
  key_scope_missing: 403, // an integration key without the scope the endpoint declares ({scope, keyScopes}; lib/api/integration-scopes.ts)
  cross_origin: 403,
  authorship_denied: 403,
  approval_denied: 403,
  author_may_not_approve: 403,
  signature_required: 403, // a gate rule requires the approver's WebAuthn signature for a step and none came (or no session: a key cannot sign)
  signature_mismatch: 403, // the signature does not cover exactly this run, plan version, steps and approver, or does not verify with a passkey of the approver's
  signature_replayed: 409, // the signed challenge's nonce was already used by an approval
  not_found: 404,
  method_not_allowed: 405, // the path exists, the method does not (the answer lists `Allow`)
  stale_task: 409,
  stale_plan_version: 409,
  stopped_stale_task: 409,
  digest_mismatch: 409,
  approval_missing: 409,
  approval_revoked: 409,
  already_claimed: 409,
  prerequisite_pending: 409,
  prerequisite_failed: 409,
  stale_account_data: 409, // a step's target record was synced longer ago than its gate rule's maxRecordAgeMinutes (or never): sync it, then approve or claim
  claim_fenced: 409,
  target_changed: 409, // the fence: a record the step writes is at another source version than its approval saw
  run_not_approved: 409,
  run_not_pending: 409,
  expired: 409,
  invalid_claim_token: 409,
  outcome_already_reported: 409,
  nothing_to_reconcile: 409,
  nothing_to_undo: 409, // a gateway run's written steps cannot be undone (not stopped part-way, nothing written, no compensating tool)
  effect_failed: 409,
  idempotency_conflict: 409,
  task_has_live_run: 409, // another agent's plan for the task is still live (one task, one live plan, per agent)
  already_completed: 409, // the session's run already ended; its outcome is in the answer
  concurrent_run_unacknowledged: 409, // another plan for the run's task is being executed and the approval did not acknowledge it (acknowledgedConcurrentRuns)
  email_taken: 409,
  last_admin: 409,
  desk_taken: 409, // a desk with that id exists already
  task_exists: 409, // the ticket already has a task opened with another body (change it by a revision)
  ticket_taken: 409, // this desk's ticket of that id is on another account or subject and has no task (ticket ids are per desk: another desk's never counts)
  unknown_account: 422, // no live account with that id on the caller's desk (opening a task, the records door: absent or another desk's alike)
  unknown_desk: 422, // a person, agent or account assigned to a desk that does not exist
  unknown_owner: 422, // records door: a declared kind's record names an owner record (of a declared kind) this desk does not have
  stale_record_kind: 409, // a desk's record kind declaration was saved by someone else since baseVersion
  already_assigned: 409, // someone else has taken the run
  suggestion_closed: 409, // the suggestion was already accepted or declined
  already_approved_by_you: 409,
  stale_policy_version: 409,
  stale_intent_catalog: 409, // the desk's intent catalog changed since the editor opened it (baseDigest differs)
  stale_desk_rule: 409, // the desk rule was saved by someone else since the editor opened it (baseVersion differs)
  already_delivered: 409, // a webhook delivery that was delivered needs no retry
  not_labelable: 409, // only an edited run that executed (has an outcome record) is labelled better / same / worse
  record_id_taken: 409, // records door: no longer returned — every kind's ids are per desk, so no id is ever taken; kept because the published contract lists it
  mcp_upstream_taken: 409, // the desk already has an upstream MCP server of that name (a disabled one keeps its name)
  mcp_upstream_disabled: 409, // the upstream MCP server was disabled; its tools cannot be imported from it
  secrets_key_missing: 409, // PLANDESK_SECRETS_KEY is unset (outside demo mode) or not 32 bytes of base64: no credential can be stored or used
  credential_unreadable: 409, // a stored credential failed AES-GCM authentication (changed, or sealed under another key)
  upstream_auth_failed: 422, // the upstream MCP server refused the stored credential (it answered 401 or 403)
  payload_too_large: 413,
  rate_limited: 429,
  validation_failed: 422,
  invalid_record: 422, // records door: a field missing, mistyped, out of range, or not the kind's
  currency_mismatch: 422, // records door: a fee in another currency than its invoice
  acknowledgement_required: 422,
  busy: 503,
  database_unavailable: 503, // the database connection was lost; retry after Retry-After seconds
  internal: 500,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

/**
 * A refusal a person or program can act on: `code` from ERROR_STATUS, a message written for
 * people, and extra `details` spread into the API error body (`{error: {code, message, ...details}}`).
 */
export class DomainError extends Error {
  readonly code: ErrorCode;
  readonly details: Record<string, unknown>;

  constructor(code: ErrorCode, message: string, details: Record<string, unknown> = {}) {
    super(message);
    this.name = "DomainError";
    this.code = code;
    this.details = details;
  }

  /** HTTP status for this code. */
  get status(): number {
    return ERROR_STATUS[this.code];
  }
}

/** Type guard for DomainError (also across module copies, by shape). */
export function isDomainError(e: unknown): e is DomainError {
  return e instanceof DomainError || (typeof e === "object" && e !== null && (e as { name?: string }).name === "DomainError");
}

/**
 * `schema.parse(input)` for service inputs: the parsed value, or 400 `bad_request` whose message
 * lists "path: message" per zod issue and whose details carry `{issues: [{path, message}]}` (path
 * dotted, e.g. "rules.3.maxAmountMinor"), so a form can put each message on its field.
 * Source: docs/api.md, general rules (typed errors).
 */
export function parseOrBadRequest<S extends z.ZodType>(schema: S, input: unknown): z.output<S> {
  const parsed = schema.safeParse(input);
  if (parsed.success) return parsed.data;
  throw new DomainError("bad_request", parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; "), {
    issues: parsed.error.issues.map((i) => ({ path: i.path.map(String).join("."), message: i.message })),
  });
}
