import { context, propagation, SpanKind, SpanStatusCode, trace, type Span, type TextMapGetter } from "@opentelemetry/api";
import { isDomainError } from "../../errors/domain-error";

/**
 * Spans of the server's work (docs/operations.md "Traces"), through the OpenTelemetry
 * API only: the SDK is set up once per process by lib/server/trace/start-tracing.ts, and until then
 * (or when a process never sets it up: a CLI script, a test file without its own provider) every
 * call here is the API's no-op, costing a function call. A span carries names, endpoint
 * templates, statuses and refusal codes, never a request body, header value, record field or
 * error message (those may hold customer text or a credential).
 */

const tracer = trace.getTracer("plandesk");

/** Reads the W3C `traceparent`/`tracestate` of a Fetch `Headers`. */
const headerGetter: TextMapGetter<Headers> = {
  get: (h, key) => h.get(key) ?? undefined,
  keys: (h) => [...h.keys()],
};

/** Marks `span` as ended by `e`: a typed refusal by its code (not a failure of the server), anything else as an error of its kind. */
function noteThrown(span: Span, e: unknown): void {
  if (isDomainError(e)) {
    span.setAttribute("plandesk.refusal", e.code);
    if (e.status >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
    return;
  }
  span.setAttribute("error.type", e instanceof Error ? e.name || "Error" : typeof e);
  span.setStatus({ code: SpanStatusCode.ERROR });
}

/**
 * Runs `fn` in a child span `name` of the active span (a decision step: validate, gate, approve,
 * claim, fence, outcome) and returns its result; a throw is noted on the span (`noteThrown`) and
 * rethrown.
 */
export function inSpan<T>(name: string, fn: () => Promise<T>): Promise<T> {
  return tracer.startActiveSpan(name, async (span) => {
    try {
      return await fn();
    } catch (e) {
      noteThrown(span, e);
      throw e;
    } finally {
      span.end();
    }
  });
}

/** `inSpan` for synchronous work (the validation pipeline and its gate stage). */
export function inSpanSync<T>(name: string, fn: () => T): T {
  return tracer.startActiveSpan(name, (span) => {
    try {
      return fn();
    } catch (e) {
      noteThrown(span, e);
      throw e;
    } finally {
      span.end();
    }
  });
}

/** The validation pipeline's gate stage as a `gate` span (the gate policy's evaluation for every step; ValidationContext `observeGate`). */
export function traceGate<T>(evaluate: () => T): T {
  return inSpanSync("gate", evaluate);
}

/** The response header that names the request's trace (W3C Trace Context Level 2): `00-<trace id>-<span id>-<flags>`. */
export const TRACE_RESPONSE_HEADER = "traceresponse";

/**
 * Answers one API request inside a SERVER span named by its endpoint template (`POST
 * /api/v1/runs/{runId}/steps/{stepId}/claim`). Its parent is the span already active (the one
 * Next.js starts for the request, itself a child of the caller's `traceparent`) or, when none is,
 * the W3C `traceparent` of `req` — so an agent's trace continues here either way. Sets
 * `http.request.method`, `http.route` and `http.response.status_code` (a 5xx marks the span an
 * error) and the answer's `traceresponse` header, so the caller can find its trace (also when no
 * span is recorded: the trace id is still propagated).
 */
export async function inServerSpan(method: string, template: string, req: Request, fn: () => Promise<Response>): Promise<Response> {
  const active = context.active();
  const parent = trace.getSpanContext(active) ? active : propagation.extract(active, req.headers, headerGetter);
  const span = tracer.startSpan(`${method} ${template}`, { kind: SpanKind.SERVER, attributes: { "http.request.method": method, "http.route": template } }, parent);
  try {
    const res = await context.with(trace.setSpan(parent, span), fn);
    span.setAttribute("http.response.status_code", res.status);
    if (res.status >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
    const c = span.spanContext();
    if (trace.isSpanContextValid(c)) {
      try {
        res.headers.set(TRACE_RESPONSE_HEADER, `00-${c.traceId}-${c.spanId}-0${c.traceFlags & 1}`);
      } catch {
        // a Response with immutable headers (a proxied fetch answer) goes out without it
      }
    }
    return res;
  } catch (e) {
    noteThrown(span, e);
    throw e;
  } finally {
    span.end();
  }
}

/** Notes a typed refusal `code` on the active span (the route wrapper maps refusals to answers, so they never reach `inServerSpan` as throws). */
export function noteRefusal(code: string): void {
  trace.getActiveSpan()?.setAttribute("plandesk.refusal", code);
}
