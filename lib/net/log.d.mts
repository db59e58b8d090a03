/** Types of log.mjs (plain JavaScript so the custom server runs it without a compile step). */
import type { Logger } from "pino";

/** What a log line says of an error: its kind, code, first message line (≤ 300 characters) and stack frames. */
export declare function errorFields(e: unknown): { type: string; code?: string | number; message?: string; stack?: string };
/** The level of a new logger: PLANDESK_LOG_LEVEL, else `warn` in test runs, else `info`. Throws on an unknown level. */
export declare function logLevelOf(env?: Record<string, string | undefined>): string;
/** The process's logger: one JSON object a line, with the active span's `trace_id`/`span_id`. */
export declare const log: Logger;
/** Sends every line to `sink` instead of standard output (null: back); returns the previous sink. For tests. */
export declare function setLogSink(sink: ((line: string) => void) | null): ((line: string) => void) | null;
