import { SpanKind } from "@opentelemetry/api";
import { W3CTraceContextPropagator } from "@opentelemetry/core";
import { OTLPTraceExporter } from "@opentelemetry/exporter-trace-otlp-http";
import { resourceFromAttributes } from "@opentelemetry/resources";
import { AlwaysOffSampler, BatchSpanProcessor, NodeTracerProvider, ParentBasedSampler, SamplingDecision, type Sampler, type SpanProcessor } from "@opentelemetry/sdk-trace-node";
import { PrismaInstrumentation, registerInstrumentations } from "@prisma/instrumentation";
import { onDrainRelease } from "../../net/drain.mjs";
import { log } from "../../net/log.mjs";

const KEY = Symbol.for("plandesk.tracing");

/** What `startTracing` may be given instead of the environment: where spans go (tests pass an in-memory exporter's processor). */
export interface TracingOptions {
  /** Span processors to record into; when given, spans are recorded and sent there, and OTEL_EXPORTER_OTLP_ENDPOINT is not read. */
  spanProcessors?: SpanProcessor[];
  /** The environment (default `process.env`). */
  env?: Record<string, string | undefined>;
}

/** Whether this process records spans (and so whether SQL statements are traced). */
export interface TracingState {
  recording: boolean;
  provider: NodeTracerProvider;
}

/**
 * The root sampler: a trace starts at a request (a SERVER span: Next.js' request span, or the route
 * wrapper's) and nowhere else, so the background loops (deadline sweep, webhook and gateway workers,
 * each polling the database every few seconds) send no trace of their own.
 */
const requestsOnly: Sampler = {
  shouldSample: (_context, _traceId, _name, kind) => ({ decision: kind === SpanKind.SERVER ? SamplingDecision.RECORD_AND_SAMPLED : SamplingDecision.NOT_RECORD }),
  toString: () => "RequestsOnlySampler",
};

/**
 * Sets up OpenTelemetry tracing once per server process (instrumentation.ts; docs/operations.md
 * "Traces"): the W3C Trace Context propagator, an AsyncLocalStorage context manager
 * and a tracer provider named by OTEL_SERVICE_NAME (default `plandesk`).
 *
 * With OTEL_EXPORTER_OTLP_ENDPOINT (or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) set, spans are
 * recorded — every request whose caller sent a sampled `traceparent`, and every request without
 * one (parent-based; a trace starts only at a request, `requestsOnly`) — and sent in batches over OTLP/HTTP (protobuf-free JSON,
 * the exporter's own OTEL_EXPORTER_OTLP_* settings apply), and Prisma's instrumentation adds a span
 * per query operation and per SQL statement (`db_query`, with the statement's text; its parameters
 * are never attached). Without it nothing is recorded or sent: trace ids are still taken from a
 * caller's `traceparent` (or made up) and propagated, so log lines and the `traceresponse` header
 * carry them at the cost of a few object allocations per request. A second call returns the first
 * call's state. The provider is flushed and shut down last in a drain (lib/net/drain.mjs).
 */
export function startTracing(opts: TracingOptions = {}): TracingState {
  const g = globalThis as unknown as Record<symbol, TracingState | undefined>;
  const existing = g[KEY];
  if (existing) return existing;
  const env = opts.env ?? process.env;
  const endpoint = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT || env.OTEL_EXPORTER_OTLP_ENDPOINT;
  const spanProcessors = opts.spanProcessors ?? (endpoint ? [new BatchSpanProcessor(new OTLPTraceExporter())] : []);
  const recording = spanProcessors.length > 0;
  const provider = new NodeTracerProvider({
    resource: resourceFromAttributes({ "service.name": env.OTEL_SERVICE_NAME || "plandesk" }),
    sampler: recording ? new ParentBasedSampler({ root: requestsOnly }) : new AlwaysOffSampler(),
    spanProcessors,
  });
  provider.register({ propagator: new W3CTraceContextPropagator() });
  if (recording) {
    // Prisma 7's client calls the instrumentation through a process-wide hook (no module patching),
    // so the driver adapters (better-sqlite3, pg) are traced alike. Serialisation spans add nothing.
    registerInstrumentations({ tracerProvider: provider, instrumentations: [new PrismaInstrumentation({ ignoreSpanTypes: ["prisma:client:serialize"] })] });
    onDrainRelease("the trace exporter", () => provider.shutdown());
    if (endpoint) log.info({ endpoint: URL.canParse(endpoint) ? new URL(endpoint).origin : "(unparsable)" }, "plandesk: tracing: sending spans over OTLP/HTTP");
  }
  const state = { recording, provider };
  g[KEY] = state;
  return state;
}
