import { countRefusal, measureRequest } from "../metrics/metrics";
import { NextResponse } from "next/server";
import type { z } from "zod";
import { refusalsOf, type Endpoint } from "../../api/contract";
import { DomainError, isDomainError } from "../../errors/domain-error";
import { appendAudit, recordable } from "../audit-log/append-audit";
import { countCurrentAnonymousRefusal } from "../audit-log/refusal-counts";
import { prisma } from "../db/db";
import { databaseUnavailable, databaseUnavailableReason, errorResponse, nulPath, nulRefusal, readForm, readJson } from "../http/http";
import { idempotencyKeyOf } from "../http/idempotency";
import { currentRequest, runWithRequestContext, type RequestActor } from "../http/request-context";
import { takeCallerToken } from "../rate-limits/rate-limit";
import { requireAgent, requireIntegration, requireIntegrationScope, requireRole, requireViewer, type AgentCaller, type IntegrationCaller, type Viewer } from "../auth/session";
import { asForeground } from "../load/foreground";
import { inServerSpan, noteRefusal } from "../trace/span";
import { log } from "../../net/log.mjs";

/**
 * The one route wrapper: turns an endpoint declaration (lib/api/endpoints.ts) and a
 * handler body into a Next.js route handler. From the declaration it authenticates the caller
 * (agent key, integration key or session — a mutating session request must come from the
 * console's own Origin; a refused credential is counted, and audited once a minute, by
 * lib/server/auth/auth-refusals.ts), takes one token of the caller's rate limit (429
 * `rate_limited`; lib/server/rate-limits), authorises the role or the integration key's scope (a
 * refusal audited as `denied`),
 * parses path parameters (a malformed id is 404 `not_found`), the query (400 `bad_request`), the
 * `Idempotency-Key` header and the JSON body (400/413), calls the handler, and maps typed
 * refusals to docs/api.md's `{error: {code, message, …details}}` with their status; anything
 * unexpected is logged and answered as a generic 500 `internal`. Every request is measured
 * (lib/server/metrics/metrics.ts): its duration under its declared endpoint and answer status,
 * and each typed refusal by code. Every request is traced (lib/server/trace/span.ts): a server span
 * named by the endpoint template, the child of the caller's W3C `traceparent`, whose trace the
 * answer's `traceresponse` header names.
 *
 * The contract is enforced, not only documented: a refusal the declaration does not list (its
 * own or its caller kind's, `refusalsOf`) or a success body that does not match its declared
 * schema is a contract violation — logged always, and answered 500 `internal` when
 * PLANDESK_STRICT_CONTRACT=1 (the test suites set it), so a test fails on it.
 */

type Out<S> = S extends z.ZodType ? z.output<S> : undefined;
type CallerOf<E extends Endpoint> = E["caller"] extends { kind: "agent" }
  ? AgentCaller
  : E["caller"] extends { kind: "integration" }
    ? IntegrationCaller
    : E["caller"] extends { kind: "session" }
      ? Viewer
      : null;

/** What a handler receives: the authenticated caller and the parsed request. */
export interface RouteInput<E extends Endpoint> {
  req: Request;
  caller: CallerOf<E>;
  params: E["params"] extends z.ZodType ? z.output<E["params"]> : Record<string, never>;
  query: E["query"] extends z.ZodType ? z.output<E["query"]> : Record<string, never>;
  /** The JSON body by `body`, or the form-encoded one by `formBody.schema`. */
  body: E["body"] extends z.ZodType ? Out<E["body"]> : E["formBody"] extends { schema: infer S } ? Out<S> : undefined;
  idempotencyKey: string | null;
}

/** What a handler returns: a JSON body (with its status when the declaration allows several, and headers), or a ready Response (streams). */
export type RouteOutput<E extends Endpoint> = { status?: number; body: z.input<E["success"]["schema"]>; headers?: Record<string, string | undefined> } | Response;

type NextHandler = (req: Request, ctx?: { params: Promise<Record<string, string | string[]>> }) => Promise<Response>;

const strict = () => process.env.PLANDESK_STRICT_CONTRACT === "1";

/** Builds the Next.js handler of `endpoint` around `handler` (see the module comment). */
export function route<E extends Endpoint>(endpoint: E, handler: (input: RouteInput<E>) => Promise<RouteOutput<E>>): NextHandler {
  const declared = new Set(refusalsOf(endpoint));
  // Answers to an authenticated caller are never stored by a browser or proxy cache; nor are those
  // of a public endpoint that takes a body (a protocol call such as a back-channel logout).
  const privateAnswer = endpoint.caller.kind !== "public" || !!endpoint.formBody;
  const finish = (res: Response): Response => {
    if (privateAnswer && !res.headers.has("cache-control")) res.headers.set("Cache-Control", "no-store");
    return res;
  };
  // Streamed bulk endpoints (the records batch) are background work; every other answer is
  // waited on by a person or an agent, and bulk work on the instance yields to it.
  const foreground = !endpoint.streamBody;
  const label = `${endpoint.method} ${endpoint.path}`;
  return async (req, ctx) => {
    const respond = async () => {
      const raw = await rawParams(ctx);
      const res = await runWithRequestContext(
        req,
        raw,
        async () => finish(await answer(raw)),
        label,
      );
      // one line per answer at debug level (off by default): the template and status, never the path's values
      if (log.isLevelEnabled("debug")) log.debug({ route: label, status: res.status }, "plandesk: answered");
      return res;
    };
    return measureRequest(label, () => inServerSpan(endpoint.method, endpoint.path, req, () => (foreground ? asForeground(respond) : respond())));
    async function answer(raw: Record<string, string>): Promise<Response> {
      try {
        const caller = await authenticate(endpoint, req);
        // one token of the caller's rate limit, before anything of the request is read (429 beyond it);
        // taken before the role is checked, so the rate bounds a person's refused (audited) requests too
        await takeCallerToken(endpoint.caller.kind, caller);
        await authorise(endpoint, caller);
        const params = parseParams(endpoint, raw);
        const query = parseQuery(endpoint, req);
        const idempotencyKey = endpoint.idempotencyKey ? idempotencyKeyOf(req) : null;
        const body = endpoint.body ? await readJson(req, endpoint.body) : endpoint.formBody ? await readForm(req, endpoint.formBody.schema) : undefined;
        const out = await handler({ req, caller, params, query, body, idempotencyKey } as RouteInput<E>);
        if (out instanceof Response) return out;
        const status = out.status ?? endpoint.success.status[0];
        const headers = Object.fromEntries(Object.entries(out.headers ?? {}).filter((h): h is [string, string] => typeof h[1] === "string"));
        const res = NextResponse.json(out.body, { status, headers });
        const violation = checkSuccess(endpoint, status, out.body);
        return violation ? contractViolation(endpoint, violation, res) : res;
      } catch (thrown) {
        // A lost database connection is a retryable 503, not a 500 (the one mapping of it).
        const e = isDomainError(thrown) ? thrown : (databaseUnavailable(thrown) ?? thrown);
        if (e !== thrown) log.error({ err: thrown, route: label, reason: databaseUnavailableReason(thrown) }, `plandesk: database unavailable in ${label}`);
        if (isDomainError(e)) {
          countRefusal(label, e.code);
          noteRefusal(e.code);
          await auditUnrecordedDenial(e);
          await auditUnrecordedRefusal(e);
          const res = errorResponse(e);
          if (!declared.has(e.code)) return contractViolation(endpoint, `refusal "${e.code}" is not declared`, res);
          return res;
        }
        log.error({ err: e, route: label }, `plandesk: unexpected error in ${label}`);
        return NextResponse.json({ error: { code: "internal", message: "Something went wrong on our side." } }, { status: 500 });
      }
    }
  };
}

/**
 * Authenticates the caller the declaration names (a credential refused here is counted, and
 * audited once a minute, by session.ts / auth-refusals.ts).
 */
async function authenticate(endpoint: Endpoint, req: Request): Promise<AgentCaller | IntegrationCaller | Viewer | null> {
  const caller = endpoint.caller;
  switch (caller.kind) {
    case "public":
      return null;
    case "agent":
      return requireAgent(req);
    case "integration":
      return requireIntegration(req);
    case "session":
      return requireViewer(req, { mutating: endpoint.method !== "GET" });
  }
}

/**
 * Authorises the authenticated caller for the declaration: a person's role (403 `forbidden`), an
 * integration key's scope (403 `key_scope_missing`) — each audited as `denied` by session.ts.
 */
async function authorise(endpoint: Endpoint, caller: AgentCaller | IntegrationCaller | Viewer | null): Promise<void> {
  if (!caller) return;
  if (endpoint.caller.kind === "session" && !endpoint.caller.roles.includes((caller as Viewer).role)) {
    await requireRole(caller as Viewer, endpoint.caller.roles, `${endpoint.method} ${endpoint.path}`, { runId: currentRequest()?.params.runId ?? null });
  }
  if (endpoint.caller.kind === "integration") await requireIntegrationScope(caller as IntegrationCaller, endpoint.caller.scope, `${endpoint.method} ${endpoint.path}`);
}

/** Path parameters by their schema; one that does not parse names nothing that exists: 404. */
function parseParams(endpoint: Endpoint, raw: Record<string, string>): unknown {
  if (!endpoint.params) return {};
  const parsed = endpoint.params.safeParse(raw);
  if (!parsed.success) throw new DomainError("not_found", `Nothing exists at ${new URL("http://x" + endpoint.path).pathname.replace(/\{(\w+)\}/g, (_m, k: string) => raw[k] ?? k)}.`);
  return parsed.data;
}

/** The query string by its schema (first value of a repeated key). Errors: 400 `bad_request` {issues}; 422 `validation_failed` for a NUL character. */
function parseQuery(endpoint: Endpoint, req: Request): unknown {
  if (!endpoint.query) return {};
  const entries: Record<string, string> = {};
  for (const [k, v] of new URL(req.url).searchParams) if (!(k in entries)) entries[k] = v;
  const nul = nulPath(entries);
  if (nul !== null) throw nulRefusal(`query ${nul}`);
  const parsed = endpoint.query.safeParse(entries);
  if (!parsed.success) {
    const issues = parsed.error.issues.map((i) => ({ path: i.path.join("."), message: i.message }));
    throw new DomainError("bad_request", `The query is not valid: ${issues.map((i) => `${i.path || "query"}: ${i.message}`).join("; ")}.`, { issues });
  }
  return parsed.data;
}

/** The route's params (`ctx.params`, a promise in Next 16), as strings; `{}` when absent. */
async function rawParams(ctx: unknown): Promise<Record<string, string>> {
  try {
    const p = await (ctx as { params?: Promise<Record<string, unknown>> } | undefined)?.params;
    return Object.fromEntries(Object.entries(p ?? {}).filter(([, v]) => typeof v === "string")) as Record<string, string>;
  } catch {
    return {};
  }
}

/** Why a success answer breaks its declaration, or null. Checked only in strict mode (the schemas are large). */
function checkSuccess(endpoint: Endpoint, status: number, body: unknown): string | null {
  if (!endpoint.success.status.includes(status)) return `status ${status} is not a declared success status`;
  if (!strict() || endpoint.success.contentType === "application/x-ndjson") return null;
  const parsed = endpoint.success.schema.safeParse(body);
  if (parsed.success) return null;
  return `response body does not match its schema: ${parsed.error.issues
    .slice(0, 5)
    .map((i) => `${i.path.join(".")}: ${i.message}`)
    .join("; ")}`;
}

/** Logs a contract violation; in strict mode answers 500 so a test fails, otherwise lets `res` through. */
function contractViolation(endpoint: Endpoint, what: string, res: Response): Response {
  log.error({ route: `${endpoint.method} ${endpoint.path}` }, `plandesk: contract violation in ${endpoint.method} ${endpoint.path}: ${what}`);
  if (!strict()) return res;
  return NextResponse.json({ error: { code: "internal", message: `Contract violation in ${endpoint.method} ${endpoint.path}: ${what}.` } }, { status: 500 });
}

/**
 * Every refusal of an AUTHENTICATED caller is on the record: one that no service wrote
 * is audited here — a 404 as `denied` (a run of another desk is simply not found, and that is a
 * refusal of scope), anything else (stale versions, validation, bad input…) as `refused`
 * {action, code, message}. Callers nobody identified are covered by `auditUnrecordedDenial`.
 */
async function auditUnrecordedRefusal(err: DomainError): Promise<void> {
  const ctx = currentRequest();
  if (!ctx?.actor || ctx.refusalRecorded || ctx.denialHandled || err.status === 401 || err.status === 403 || err.status >= 500) return;
  try {
    const runId = await refusedRunOnRecord(ctx.params.runId, ctx.actor);
    const action = recordable(`${ctx.method} ${ctx.path}`);
    const stepId = ctx.params.stepId ? { stepId: recordable(ctx.params.stepId) } : {};
    if (err.status === 404) {
      await appendAudit(prisma, { runId, type: "denied", actor: ctx.actor, data: { action, code: err.code, reason: recordable(err.message), ...stepId } });
    } else {
      await appendAudit(prisma, { runId, type: "refused", actor: ctx.actor, data: { action, code: err.code, message: recordable(err.message), ...stepId } });
    }
  } catch (e) {
    log.error({ err: e }, "plandesk: could not audit a refusal");
  }
}

/**
 * The run a refusal is put on the timeline of: the run the path names, when it exists and the
 * caller's key may reach it. A key bound to a desk (an agent's key; a desk-bound integration key)
 * that named another desk's run was refused as if the run did not exist, and its refusal is
 * recorded without a run (on the denials page, not on that desk's run timeline): another desk's
 * probing changes nothing of the run. A path value no run id can be (NUL, which PostgreSQL cannot
 * even compare, or thousands of characters) names no run. One indexed read (two for a key).
 */
async function refusedRunOnRecord(candidate: string | undefined, actor: RequestActor): Promise<string | null> {
  if (!candidate || candidate.length > 200 || candidate.includes("\u0000")) return null;
  const run = await prisma.run.findUnique({ where: { id: candidate }, select: { desk: true } });
  if (!run) return null;
  if (actor.kind === "agent") {
    const agent = await prisma.agent.findUnique({ where: { id: actor.id }, select: { desk: true } });
    return agent?.desk === run.desk ? candidate : null;
  }
  if (actor.kind === "integration") {
    const key = await prisma.integrationKey.findUnique({ where: { id: actor.id }, select: { desk: true } });
    return !key?.desk || key.desk === run.desk ? candidate : null;
  }
  return candidate;
}

/** Audits a 401/403 refusal of the current request unless it is already on the record (denials are data); an unidentified caller's is counted instead. */
async function auditUnrecordedDenial(err: DomainError): Promise<void> {
  const ctx = currentRequest();
  if (!ctx || ctx.denialHandled || (err.status !== 401 && err.status !== 403)) return;
  if (!ctx.actor) {
    // Nobody identified: counted per (address, route, minute), not audited one by one.
    await countCurrentAnonymousRefusal(err.code, "credential", null, `${ctx.method} ${ctx.path}`);
    return;
  }
  try {
    const runId = await refusedRunOnRecord(ctx.params.runId, ctx.actor);
    await appendAudit(prisma, {
      runId,
      type: "denied",
      actor: ctx.actor,
      data: { action: `${ctx.method} ${ctx.path}`, code: err.code, reason: err.message, ...(ctx.params.stepId ? { stepId: ctx.params.stepId } : {}) },
    });
  } catch (e) {
    log.error({ err: e }, "plandesk: could not audit a denial");
  }
}
