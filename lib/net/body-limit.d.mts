/** Types of body-limit.mjs (plain JavaScript so the custom server runs it without a compile step). */
import type { IncomingMessage, Server, ServerResponse } from "node:http";

/** Largest request body on every path but the streamed ones: 1 MiB. */
export declare const MAX_BODY_BYTES: number;
/** Default largest body of a records batch (NDJSON import): 256 MiB. */
export declare const DEFAULT_RECORDS_BATCH_MAX_BYTES: number;
/** How long a refused upload's connection stays open after the 413, discarding what arrives (ms). */
export declare const LINGER_MS: number;
/** "/api/v1/records/batch". */
export declare const RECORDS_BATCH_PATH: "/api/v1/records/batch";
/** Paths whose bodies stream past the proxy, with the methods they answer. */
export declare const STREAMED_PATHS: Readonly<Record<string, readonly string[]>>;

/** The limits in force (bytes). */
export interface BodyLimits {
  readonly defaultBytes: number;
  readonly recordsBatchBytes: number;
}

/** The API answers' security headers (HSTS when `https`). */
export declare function apiSecurityHeaders(https?: boolean): Record<string, string>;
/** Reads PLANDESK_RECORDS_BATCH_MAX_BYTES (default 256 MiB); throws naming it when invalid. */
export declare function parseBodyLimits(env?: Record<string, string | undefined>): BodyLimits;
/** Largest body `method` on `url` may send. */
export declare function bodyLimitFor(method: string, url: string, limits?: BodyLimits): number;
/** The typed 413 body `{error: {code: "payload_too_large", message, limitBytes}}` as JSON text. */
export declare function payloadTooLargeBody(limitBytes: number): string;

type Handler = (req: IncomingMessage, res: ServerResponse) => unknown;
/** Wraps `handle` so that no body over its limit is read (see the module). */
export declare function withBodyLimit(handle: Handler, options?: { limits?: BodyLimits; https?: boolean }): (req: IncomingMessage, res: ServerResponse) => unknown;
/** An http server running `withBodyLimit(handle)`, refusing an over-limit `Expect: 100-continue` upload before its body is sent. */
export declare function createBodyLimitedServer(handle: Handler, options?: { limits?: BodyLimits; https?: boolean }): Server;
