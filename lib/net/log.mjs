// The server's one logger (docs/operations.md "Logs"): pino, one JSON object a line on
// standard output, for the route handlers (bundled by Next.js) and the custom server
// (scripts/server.mjs, run without a compile step — hence plain JavaScript here, like drain.mjs).
// Each copy of this module shares one logger through `globalThis`.
//
// A line carries `level` (a word), `time` (ms since the epoch), `msg`, and — while a traced request
// is being answered — `trace_id` and `span_id` of the active OpenTelemetry span, so a line and its
// trace find each other. It never carries a secret or customer text: code logs only what it names
// (ids, counts, codes, endpoint templates), errors are reduced to their kind, code, first message
// line and stack frames (`errorFields`), and any field named like a credential is censored.
// Level: PLANDESK_LOG_LEVEL (trace, debug, info, warn, error, fatal, silent); default info, and
// warn in test runs (VITEST set), where the suites answer thousands of requests.
import { trace } from "@opentelemetry/api";
import pino from "pino";

const KEY = Symbol.for("plandesk.log");

/** Field paths pino censors wherever a caller put them (a second line of defence: nothing logs them on purpose). */
const REDACT = [
  "authorization",
  "cookie",
  "password",
  "apiKey",
  "secret",
  "token",
  "clientSecret",
  "*.authorization",
  "*.cookie",
  "*.password",
  "*.apiKey",
  "*.secret",
  "*.token",
  "*.clientSecret",
  "headers.authorization",
  "headers.cookie",
  "req.headers.authorization",
  "req.headers.cookie",
];

/** Characters of an error's first message line kept in a log line. */
const MESSAGE_CHARS = 300;

/**
 * What a log line says of an error `e`: `{type, code?, message, stack?}` — the message cut to its
 * first line (a Prisma validation error goes on to print the query's arguments; a driver error may
 * quote values) and at most 300 characters, the stack reduced to its `at …` frames. Anything else
 * thrown becomes `{type: typeof e}`.
 */
export function errorFields(e) {
  if (!(e instanceof Error)) return { type: typeof e };
  const out = { type: e.name || "Error", message: String(e.message ?? "").split("\n", 1)[0].slice(0, MESSAGE_CHARS) };
  const code = /** @type {{code?: unknown}} */ (e).code;
  if (typeof code === "string" || typeof code === "number") out.code = code;
  if (e.stack) {
    const frames = e.stack.split("\n").filter((l) => l.trimStart().startsWith("at "));
    if (frames.length) out.stack = frames.slice(0, 12).map((l) => l.trim()).join("\n");
  }
  return out;
}

/** The level of a new logger: PLANDESK_LOG_LEVEL, else `warn` in test runs, else `info`. */
export function logLevelOf(env = process.env) {
  const set = String(env.PLANDESK_LOG_LEVEL ?? "").trim().toLowerCase();
  if (set) {
    if (!(set in pino.levels.values) && set !== "silent") throw new Error(`PLANDESK_LOG_LEVEL must be one of trace, debug, info, warn, error, fatal, silent (got "${set}")`);
    return set;
  }
  return env.VITEST ? "warn" : "info";
}

/** The trace and span id of the active span, when one is being recorded or propagated; else nothing. */
function traceFields() {
  const span = trace.getActiveSpan();
  if (!span) return {};
  const c = span.spanContext();
  if (!c.traceId || c.traceId === "00000000000000000000000000000000") return {};
  return { trace_id: c.traceId, span_id: c.spanId };
}

/** The process's logger state: the pino logger and where its lines go. */
function state() {
  const g = /** @type {Record<symbol, any>} */ (globalThis);
  if (!g[KEY]) {
    const s = { sink: null, logger: null };
    s.logger = pino(
      {
        level: logLevelOf(),
        base: { pid: process.pid },
        messageKey: "msg",
        formatters: { level: (label) => ({ level: label }) },
        serializers: { err: errorFields },
        redact: { paths: REDACT, censor: "[redacted]" },
        mixin: traceFields,
      },
      { write: (line) => (s.sink ? s.sink(line) : process.stdout.write(line)) },
    );
    g[KEY] = s;
  }
  return g[KEY];
}

/**
 * The process's logger (pino: `log.info({runId}, "message")`, `log.error({err}, "message")`).
 * Pass errors as `err` (reduced by `errorFields`), never request bodies, headers or record fields.
 */
export const log = state().logger;

/**
 * Sends every line to `sink` instead of standard output (null: back to standard output); for tests
 * that read what was logged. Returns the previous sink.
 */
export function setLogSink(sink) {
  const s = state();
  const before = s.sink;
  s.sink = sink;
  return before;
}
