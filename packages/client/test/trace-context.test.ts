/**
 * The client carries the caller's trace to the console: a `traceparent` given in its options, or
 * — with `@opentelemetry/api` installed and a span active — the caller's own, so the console's
 * server span is a child of the agent's. Without either, no trace header is sent.
 */
import { trace } from "@opentelemetry/api";
import { W3CTraceContextPropagator } from "@opentelemetry/core";
import { InMemorySpanExporter, NodeTracerProvider, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-node";
import { describe, expect, it } from "vitest";
import { createAgentClient } from "@plandesk/client";

/** A fetch stub that records each request's headers and answers an empty task list. */
function stub() {
  const headers: Record<string, string>[] = [];
  const fetch = (async (input: RequestInfo | URL, init?: RequestInit) => {
    const req = input instanceof Request ? input : new Request(input, init);
    headers.push(Object.fromEntries(req.headers.entries()));
    return new Response(JSON.stringify({ tasks: [], nextCursor: null }), { status: 200, headers: { "content-type": "application/json" } });
  }) as typeof globalThis.fetch;
  return { fetch, headers };
}

const provider = new NodeTracerProvider({ spanProcessors: [new SimpleSpanProcessor(new InMemorySpanExporter())] });
provider.register({ propagator: new W3CTraceContextPropagator() });

describe("trace context of the client's calls", () => {
  it("sends the traceparent given in the options (a string, or a function asked per call)", async () => {
    const given = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";
    const s = stub();
    await createAgentClient({ baseUrl: "http://c", apiKey: "k", fetch: s.fetch, traceparent: given }).listTasks();
    await createAgentClient({ baseUrl: "http://c", apiKey: "k", fetch: s.fetch, traceparent: () => given }).listTasks();
    expect(s.headers.map((h) => h.traceparent)).toEqual([given, given]);
  });

  it("propagates the caller's active OpenTelemetry span; sends nothing outside a span", async () => {
    const s = stub();
    const pd = createAgentClient({ baseUrl: "http://c", apiKey: "k", fetch: s.fetch });
    await trace.getTracer("agent").startActiveSpan("plan a refund", async (active) => {
      await pd.listTasks();
      const { traceId, spanId } = active.spanContext();
      expect(s.headers[0].traceparent).toBe(`00-${traceId}-${spanId}-01`);
      active.end();
    });
    await pd.listTasks();
    expect(s.headers[1].traceparent).toBeUndefined();
  });
});
