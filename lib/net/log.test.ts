/**
 * The server's log lines (lib/net/log.mjs): one JSON object each, the active span's trace id on
 * it, credentials censored by name, an error reduced to its kind, code, first message line and
 * stack frames; the level from PLANDESK_LOG_LEVEL.
 */
import { trace } from "@opentelemetry/api";
import { W3CTraceContextPropagator } from "@opentelemetry/core";
import { NodeTracerProvider } from "@opentelemetry/sdk-trace-node";
import { afterEach, describe, expect, it } from "vitest";
import { log, logLevelOf, setLogSink } from "./log.mjs";

new NodeTracerProvider().register({ propagator: new W3CTraceContextPropagator() });

/** The lines `fn` logs, parsed. */
function linesOf(fn: () => void): Record<string, unknown>[] {
  const lines: string[] = [];
  setLogSink((line) => lines.push(line));
  try {
    fn();
  } finally {
    setLogSink(null);
  }
  return lines.map((l) => JSON.parse(l) as Record<string, unknown>);
}

afterEach(() => {
  log.level = "warn";
});

describe("log lines", () => {
  it("are JSON with level, time and message; inside a span they carry its trace and span id", () => {
    log.level = "info";
    const outside = linesOf(() => log.info("plandesk: serving on http://localhost:3000"));
    expect(outside).toEqual([{ level: "info", time: expect.any(Number), pid: process.pid, msg: "plandesk: serving on http://localhost:3000" }]);
    const inside = linesOf(() => trace.getTracer("test").startActiveSpan("request", (s) => (log.warn({ route: "POST /api/v1/tasks/{taskId}/runs" }, "plandesk: slow"), s.end())));
    expect(inside[0]).toMatchObject({ level: "warn", trace_id: expect.stringMatching(/^[0-9a-f]{32}$/), span_id: expect.stringMatching(/^[0-9a-f]{16}$/), route: "POST /api/v1/tasks/{taskId}/runs" });
  });

  it("censor a credential by its field name, and say of an error only its kind, code, first line and frames", () => {
    const err = Object.assign(new Error("Invalid `prisma.ticketNote.create()` invocation:\n{ data: { note: \"Customer says the parcel was stolen\" } }"), { code: "P2009" });
    const [line] = linesOf(() => log.error({ err, apiKey: "pd_secret_key", headers: { authorization: "Bearer pd_secret_key", cookie: "session=abc" } }, "plandesk: unexpected error"));
    const text = JSON.stringify(line);
    expect(text).not.toContain("pd_secret_key");
    expect(text).not.toContain("session=abc");
    expect(text).not.toContain("parcel was stolen");
    expect(line.err).toMatchObject({ type: "Error", code: "P2009", message: "Invalid `prisma.ticketNote.create()` invocation:", stack: expect.stringMatching(/^at /) });
  });

  it("below the level are not written; PLANDESK_LOG_LEVEL sets it, warn in test runs, info otherwise", () => {
    log.level = "warn";
    expect(linesOf(() => log.info("plandesk: quiet"))).toEqual([]);
    expect(logLevelOf({ PLANDESK_LOG_LEVEL: "debug" })).toBe("debug");
    expect(logLevelOf({ PLANDESK_LOG_LEVEL: "silent" })).toBe("silent");
    expect(logLevelOf({ VITEST: "true" })).toBe("warn");
    expect(logLevelOf({})).toBe("info");
    expect(() => logLevelOf({ PLANDESK_LOG_LEVEL: "loud" })).toThrow(/PLANDESK_LOG_LEVEL/);
  });
});
