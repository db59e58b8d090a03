import type { z } from "zod";
import type { ErrorCode } from "../errors/domain-error";
import type { IntegrationScope } from "./integration-scopes";

/*
 * How one HTTP endpoint is declared (docs/style.md §11): path and method, who may call
 * it, its path parameters, query, body, success response and typed refusals — once. The route
 * wrapper (lib/server/route/route.ts) authenticates, authorises, audits denials, parses and maps
 * errors from the declaration; the OpenAPI document (lib/api/openapi.ts) is generated from it, and
 * the typed client package (packages/client) from that; the authorisation-matrix test iterates it.
 * Client-safe: no server imports.
 */

/** The roles a person can hold (docs/design.md "People and machines"). */
export type Role = "operator" | "supervisor" | "admin";

/**
 * Who may call an endpoint:
 * - `agent`: an agent API key (`Authorization: Bearer`), never a session;
 * - `integration`: an integration key holding `scope` (lib/api/integration-scopes.ts: `tasks` to
 *   open and revise tasks and report ticket events, `records` for the records door); a key without
 *   it is refused 403 `key_scope_missing`;
 * - `session`: a signed-in person holding one of `roles` (mutating methods also need the
 *   console's own Origin);
 * - `public`: anyone (the OpenAPI document).
 */
export type Caller = { kind: "agent" } | { kind: "integration"; scope: IntegrationScope } | { kind: "session"; roles: readonly Role[] } | { kind: "public" };

/** One endpoint of the API. Type parameters carry the zod schemas so handlers and clients are typed from them. */
export interface Endpoint<
  P extends z.ZodType = z.ZodType,
  Q extends z.ZodType = z.ZodType,
  B extends z.ZodType = z.ZodType,
  R extends z.ZodType = z.ZodType,
> {
  /** operationId, e.g. "claimStep". */
  id: string;
  method: "GET" | "POST" | "PUT" | "PATCH" | "DELETE";
  /** OpenAPI path template, e.g. "/api/v1/runs/{runId}/steps/{stepId}/claim". */
  path: string;
  summary: string;
  description?: string;
  caller: Caller;
  params?: P;
  query?: Q;
  body?: B;
  /**
   * A body the handler reads itself as a stream (the wrapper does not buffer it): its content
   * type and the schema of one of its lines, for the OpenAPI document.
   */
  streamBody?: { contentType: "application/x-ndjson"; lineSchema: z.ZodType; description: string };
  /**
   * A form-encoded body (`application/x-www-form-urlencoded`, as a protocol another party calls us
   * with requires) in place of JSON: its fields by `schema` (each field's first value, as strings).
   */
  formBody?: { schema: z.ZodType; description: string };
  /** Whether the endpoint reads an `Idempotency-Key` header. */
  idempotencyKey?: "optional" | "required";
  /** The success status(es) and body. */
  success: { status: readonly number[]; schema: R; description: string; contentType?: "application/json" | "application/x-ndjson" | "text/plain" };
  /** The typed refusals this endpoint itself can answer (the wrapper adds those of its caller kind). */
  refusals: readonly ErrorCode[];
}

/** Identity helper keeping the literal types of a declaration (caller kind, schemas). */
export function defineEndpoint<const E extends Endpoint>(e: E): E {
  return e;
}

/**
 * Every refusal `e` can answer: its own, those any request can get (malformed input, a body too
 * large, an unexpected failure, a path id that names nothing), and those of its caller kind (no or a wrong credential; the
 * wrong role; a mutating request from another origin; more requests than the caller's rate limit).
 */
export function refusalsOf(e: Endpoint): ErrorCode[] {
  const codes = new Set<ErrorCode>(e.refusals);
  codes.add("bad_request");
  codes.add("internal");
  // Text with a NUL character (which PostgreSQL cannot store) in a body or query, or a number a
  // database column cannot hold, is refused as 422 on every endpoint (lib/server/http/http.ts).
  codes.add("validation_failed");
  // A decision that kept losing to concurrent ones (serialization conflicts beyond every retry):
  // 503 with Retry-After, nothing saved (lib/server/db/transaction.ts).
  if (e.method !== "GET") codes.add("busy");
  // The database connection lost mid-request: 503 with Retry-After (lib/server/http/http.ts).
  codes.add("database_unavailable");
  if (e.body || e.streamBody || e.formBody) {
    codes.add("invalid_json");
    codes.add("invalid_encoding");
    codes.add("payload_too_large");
  }
  if (e.params) codes.add("not_found"); // a path id that does not parse names nothing that exists
  if (e.caller.kind !== "public") codes.add("unauthorized");
  // Beyond the caller's rate (per agent key, integration key or person): 429 with Retry-After,
  // before anything of the request is read (lib/server/rate-limits/rate-limit.ts).
  if (e.caller.kind !== "public") codes.add("rate_limited");
  if (e.caller.kind === "session") {
    if (e.method !== "GET") codes.add("cross_origin");
    codes.add("forbidden");
  }
  if (e.caller.kind === "agent" || e.caller.kind === "integration") codes.add("forbidden");
  // an integration key that does not hold the endpoint's scope (lib/api/integration-scopes.ts)
  if (e.caller.kind === "integration") codes.add("key_scope_missing");
  return [...codes];
}
