import { NextResponse } from "next/server";
import type { ZodType } from "zod";
import { DomainError } from "../../errors/domain-error";

/**
 * JSON error body of docs/api.md: `{error: {code, message, ...details}}` with the code's status.
 * `details.retryAfterSeconds` adds `Retry-After`; `details.replayed: true` (a refusal answered
 * from an idempotency key's saved answer) adds `Idempotent-Replayed: true`.
 */
export function errorResponse(err: DomainError): NextResponse {
  const headers: Record<string, string> = {};
  if (typeof err.details.retryAfterSeconds === "number") headers["Retry-After"] = String(err.details.retryAfterSeconds);
  if (err.details.replayed === true) headers["Idempotent-Replayed"] = "true";
  return NextResponse.json({ error: { code: err.code, message: err.message, ...err.details } }, { status: err.status, headers });
}

/** Largest JSON body accepted: 1 MiB (the largest valid plan is about a quarter of that). */
export const MAX_BODY_BYTES = 1024 * 1024;

/** Deepest nesting of arrays and objects accepted in a JSON body: 64 levels (a valid plan needs under 10). */
export const MAX_JSON_DEPTH = 64;

const tooLarge = () => new DomainError("payload_too_large", `The request body is larger than ${MAX_BODY_BYTES / 1024} KiB.`, { limitBytes: MAX_BODY_BYTES });
const tooDeep = () =>
  new DomainError("payload_too_large", `The request body nests arrays and objects more than ${MAX_JSON_DEPTH} levels deep.`, { limitDepth: MAX_JSON_DEPTH });

/** What one pass over JSON text found: the deepest nesting (stopping once past `maxDepth`) and whether a `\u0000` escape occurs inside a string. */
export interface JsonTextScan {
  /** The nesting depth reached (at most `maxDepth + 1`: the scan stops there). */
  depth: number;
  tooDeep: boolean;
  /** A string (value or key) holds the escape `\u0000`, i.e. a NUL character once parsed. */
  hasNul: boolean;
}

/**
 * One linear pass over JSON text, before it is parsed: nesting depth of `[`/`{` outside strings
 * (stopping as soon as it exceeds `maxDepth`) and whether any string holds a NUL escape. Costs one
 * look at each character and no allocation, so a hostile body (100,000 levels deep) is refused in
 * the time it takes to read it. Malformed text is not judged here; `JSON.parse` does that after.
 * (A raw NUL character cannot occur: JSON does not allow control characters in strings.)
 */
export function scanJsonText(text: string, maxDepth = MAX_JSON_DEPTH): JsonTextScan {
  let depth = 0;
  let hasNul = false;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c /* \\ */) {
        if (text.charCodeAt(i + 1) === 0x75 /* u */ && text.startsWith("0000", i + 2)) hasNul = true;
        i++; // the escaped character never ends the string
      } else if (c === 0x22 /* " */) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b /* [ */ || c === 0x7b /* { */) {
      if (++depth > maxDepth) return { depth, tooDeep: true, hasNul };
    } else if (c === 0x5d /* ] */ || c === 0x7d /* } */) depth--;
  }
  return { depth, tooDeep: false, hasNul };
}

/**
 * The path (e.g. "steps.0.args.reason") of the first string or object key in `value` that holds a
 * NUL character (U+0000), or null. PostgreSQL cannot store NUL in text or JSON, so such input is
 * refused up front on every database rather than failing differently on each.
 * Linear in the size of `value`: each node keeps a link to its parent and the path is spelled
 * only for the node found (no copy of the path per level).
 */
export function nulPath(value: unknown): string | null {
  // Iterative (a value may nest deeply; recursion would overflow the stack).
  type Node = { v: unknown; key: string | number | null; parent: Node | null };
  const spell = (n: Node | null, last?: string): string => {
    const parts: (string | number)[] = last === undefined ? [] : [last];
    for (let at = n; at && at.key !== null; at = at.parent) parts.push(at.key);
    return parts.reverse().join(".") || "(body)";
  };
  const stack: Node[] = [{ v: value, key: null, parent: null }];
  while (stack.length) {
    const node = stack.pop()!;
    const v = node.v;
    if (typeof v === "string") {
      if (v.includes("\u0000")) return spell(node);
    } else if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--) stack.push({ v: v[i], key: i, parent: node });
    } else if (v && typeof v === "object") {
      const entries = Object.entries(v);
      for (const [k] of entries) if (k.includes("\u0000")) return spell(node, k.replace(/\u0000/g, "\\u0000"));
      for (let i = entries.length - 1; i >= 0; i--) stack.push({ v: entries[i][1], key: entries[i][0], parent: node });
    }
  }
  return null;
}

/** The typed refusal of text with a NUL character at `where` (422 `validation_failed`). */
export function nulRefusal(where: string): DomainError {
  return new DomainError("validation_failed", `Text may not contain NUL characters (U+0000); found one at ${where}.`, {
    issues: [{ path: where, message: "Text may not contain NUL characters (U+0000)" }],
  });
}

/** Decodes UTF-8 strictly: a byte sequence that is not UTF-8 throws instead of becoming U+FFFD. */
const strictUtf8 = new TextDecoder("utf-8", { fatal: true });

/**
 * The body's bytes, read chunk by chunk and abandoned as soon as they pass MAX_BODY_BYTES (so a
 * body without Content-Length cannot make the server buffer more than the limit).
 * Errors: `payload_too_large` (413); `invalid_json` (400) when the stream fails.
 */
async function readBodyBytes(req: Request): Promise<Uint8Array> {
  if (!req.body) return new Uint8Array(0);
  const reader = req.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.byteLength;
      if (size > MAX_BODY_BYTES) {
        void reader.cancel().catch(() => {});
        throw tooLarge();
      }
      chunks.push(value);
    }
  } catch (e) {
    if (e instanceof DomainError) throw e;
    throw new DomainError("invalid_json", "The request body could not be read.");
  }
  const out = new Uint8Array(size);
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.byteLength;
  }
  return out;
}

/**
 * The body as text, bounded before any parsing work: size (413 `payload_too_large` above
 * MAX_BODY_BYTES, by the declared Content-Length or while reading), encoding (400
 * `invalid_encoding`), nesting depth (413 `payload_too_large` {limitDepth}, one linear pass).
 */
async function readBoundedText(req: Request): Promise<{ bytes: Uint8Array; text: string; scan: JsonTextScan }> {
  const declared = Number(req.headers.get("content-length") ?? "0");
  if (declared > MAX_BODY_BYTES) throw tooLarge();
  const bytes = await readBodyBytes(req);
  let text: string;
  try {
    text = strictUtf8.decode(bytes);
  } catch {
    throw new DomainError("invalid_encoding", "The request body is not valid UTF-8 text.");
  }
  const scan = scanJsonText(text);
  if (scan.tooDeep) throw tooDeep();
  return { bytes, text, scan };
}

/**
 * A copy of `req` whose body passed the bounds every declared endpoint's body passes (size,
 * UTF-8, nesting depth; see {@link readJson}), for handlers that parse the body themselves
 * (better-auth's `/api/auth/*`): nothing past MAX_BODY_BYTES is buffered, and no text with bytes
 * that are not UTF-8 reaches them as U+FFFD. Errors: 413 `payload_too_large` (`limitBytes` or
 * `limitDepth`), 400 `invalid_encoding`. A request without a body is returned as it is.
 */
export async function boundedRequest(req: Request): Promise<Request> {
  if (!req.body) return req;
  const { bytes } = await readBoundedText(req);
  return new Request(req.url, { method: req.method, headers: req.headers, body: bytes.byteLength > 0 ? (bytes as Uint8Array<ArrayBuffer>) : undefined, signal: req.signal });
}

/**
 * Reads and parses a JSON body with `schema`, bounding the input before any parsing work:
 * size (`payload_too_large` 413 above MAX_BODY_BYTES, by the declared Content-Length or while
 * reading), encoding (`invalid_encoding` 400 for bytes that are not UTF-8 — never stored as U+FFFD),
 * nesting depth (`payload_too_large` 413 {limitDepth} beyond MAX_JSON_DEPTH, one linear pass over
 * the text), then `invalid_json` (400), a NUL character (422 `validation_failed`, found by the
 * same pass) and the schema: `bad_request` (400) {issues} with one plain message, or
 * `validation_failed` (422) when the only problems are numbers above their maximum.
 */
export async function readJson<T>(req: Request, schema: ZodType<T>): Promise<T> {
  const { text, scan } = await readBoundedText(req);
  let raw: unknown;
  try {
    raw = text.trim() === "" ? {} : JSON.parse(text);
  } catch {
    throw new DomainError("invalid_json", "The request body is not valid JSON.");
  }
  if (scan.hasNul) {
    const nul = nulPath(raw);
    if (nul !== null) throw nulRefusal(nul);
  }
  const parsed = schema.safeParse(raw);
  if (!parsed.success) {
    const issues = parsed.error.issues.map((i) => ({ path: i.path.join("."), message: i.message }));
    // Only numbers above their maximum (e.g. a grant ceiling beyond what a money column holds): 422.
    if (parsed.error.issues.every((i) => i.code === "too_big" && (i as { origin?: string }).origin === "number")) {
      throw new DomainError("validation_failed", issues.map((i) => `${i.path}: ${i.message}`).join("; "), { issues });
    }
    // One message per problem in plain words: the schema's own message when there is one problem
    // ("Give the agent a reason (at least 3 characters)"), else the first and a count.
    const first = issues[0];
    const plain = first && !/^(Invalid input|Too (big|small)|Expected|Unrecognized)/i.test(first.message) ? first.message : null;
    const message = plain ? (issues.length === 1 ? `${plain}.`.replace(/\.\.$/, ".") : `${plain} (and ${issues.length - 1} more problem${issues.length === 2 ? "" : "s"} in the request).`) : "The request body has the wrong shape.";
    throw new DomainError("bad_request", message, { issues });
  }
  return parsed.data;
}

/**
 * Reads and parses a form-encoded body (`application/x-www-form-urlencoded`) with `schema`, within
 * the same bounds as {@link readJson} (413 `payload_too_large`, 400 `invalid_encoding`). The object
 * parsed holds each field's first value as a string. Errors: 400 `bad_request` for another content
 * type or a body the schema refuses {issues}; 422 `validation_failed` for a NUL character.
 */
export async function readForm<T>(req: Request, schema: ZodType<T>): Promise<T> {
  const type = (req.headers.get("content-type") ?? "").split(";")[0].trim().toLowerCase();
  if (type !== "application/x-www-form-urlencoded") throw new DomainError("bad_request", "The request body must be application/x-www-form-urlencoded.");
  const { text } = await readBoundedText(req);
  const fields: Record<string, string> = {};
  for (const [k, v] of new URLSearchParams(text)) if (!Object.prototype.hasOwnProperty.call(fields, k)) fields[k] = v;
  const nul = nulPath(fields);
  if (nul !== null) throw nulRefusal(nul);
  const parsed = schema.safeParse(fields);
  if (!parsed.success) {
    const issues = parsed.error.issues.map((i) => ({ path: i.path.join("."), message: i.message }));
    throw new DomainError("bad_request", `The form is not valid: ${issues.map((i) => `${i.path || "body"}: ${i.message}`).join("; ")}.`, { issues });
  }
  return parsed.data;
}

/** Seconds a client is asked to wait (`Retry-After`) after the database connection was lost, when PLANDESK_DB_RETRY_AFTER_SECONDS is unset. */
export const DATABASE_RETRY_AFTER_SECONDS = 5;

/**
 * The `Retry-After` of a `database_unavailable` answer in whole seconds: env
 * PLANDESK_DB_RETRY_AFTER_SECONDS (0–300; set it near the time the database's failover or restart
 * takes), else {@link DATABASE_RETRY_AFTER_SECONDS}.
 */
export function databaseRetryAfterSeconds(env: Record<string, string | undefined> = process.env): number {
  const n = Number(env.PLANDESK_DB_RETRY_AFTER_SECONDS);
  return env.PLANDESK_DB_RETRY_AFTER_SECONDS?.trim() && Number.isInteger(n) && n >= 0 && n <= 300 ? n : DATABASE_RETRY_AFTER_SECONDS;
}

/** Prisma error codes of a database that cannot be reached or dropped the connection (not a conflict). */
const PRISMA_CONNECTION_CODES = new Set(["P1001", "P1002", "P1003", "P1010", "P1011", "P1017", "P2024"]);
/**
 * PostgreSQL SQLSTATEs of a database that cannot take the request now: class 08 (connection
 * exception), 57P01–57P03 (administrator shutdown, crash shutdown, cannot connect now — also a
 * server still in recovery), 53300 (too many connections) and 25006 (read-only SQL transaction:
 * a write that reached a standby, e.g. when the stable address still leads to a demoted or
 * not-yet-promoted server during a failover).
 */
const PG_CONNECTION_STATE = /^(08\w{3}|57P0[1-3]|53300|25006)$/;
/** Node.js socket errors. */
const SOCKET_CODES = new Set(["ECONNREFUSED", "ECONNRESET", "ETIMEDOUT", "EPIPE", "ENOTFOUND", "EHOSTUNREACH", "ENETUNREACH", "EAI_AGAIN"]);
/** Driver-adapter error kinds (Prisma's adapters) that mean the connection, not the query. */
const ADAPTER_KINDS = new Set(["DatabaseNotReachable", "ConnectionClosed", "SocketTimeout", "TooManyConnections", "DatabaseDoesNotExist", "DatabaseAccessDenied"]);
const CONNECTION_MESSAGE =
  /Can't reach database server|Server has closed the connection|Connection terminated|terminating connection due to administrator command|the database system is (starting up|shutting down|in recovery mode|not yet accepting connections)|connection is not open|Cannot open database|unable to open database file|Timed out fetching a new connection|timeout exceeded when trying to connect|Connection terminated due to connection timeout|Client has encountered a connection error and is not queryable|Client was closed and is not queryable/i;

/**
 * The typed refusal for an error that means the database connection is lost or refused —
 * whether from Prisma (P1001 can't reach, P1017 connection closed, P2024 pool timeout…, or its
 * initialisation error), node-postgres (SQLSTATE class 08, 57P01–57P03, 53300, 25006 read-only
 * after a failover, socket errors, a pool checkout that timed out, a query sent on a connection
 * that already failed — pg's plain "not queryable" Error, without a code) or
 * better-sqlite3 (cannot open, I/O error) — by code and class, looking through `cause` chains and Prisma's
 * `meta.driverAdapterError` (the message text is a last resort only); null for any other
 * error. The answer is 503 `database_unavailable` with `Retry-After`: nothing was saved and the
 * same request may be sent again (with its idempotency key where the endpoint takes one).
 */
export function databaseUnavailable(e: unknown): DomainError | null {
  if (databaseUnavailableReason(e) === null) return null;
  return new DomainError("database_unavailable", "The database cannot be reached right now; nothing was saved. Try again in a few seconds.", {
    retryAfterSeconds: databaseRetryAfterSeconds(),
  });
}

/**
 * Why `e` means the database is unavailable (see `databaseUnavailable`), for the log line of such
 * a refusal: the code that matched (`25006`, `57P01`, `P1001`, `ECONNREFUSED`, an adapter error
 * kind…), `PrismaClientInitializationError`, or `message` when only the text matched; null when
 * the error means something else. Never customer data: codes and kinds only.
 */
export function databaseUnavailableReason(e: unknown): string | null {
  // Breadth-first through `cause` and Prisma's `meta.driverAdapterError` (where a driver adapter's
  // error sits on a PrismaClientKnownRequestError, e.g. P2010 with {kind: "postgres", code: "57P01"}).
  const queue: unknown[] = [e];
  for (let seen = 0; seen < 12 && queue.length > 0; seen++) {
    const at = queue.shift();
    if (!at || typeof at !== "object") continue;
    const o = at as { name?: unknown; code?: unknown; kind?: unknown; errorCode?: unknown; originalCode?: unknown; message?: unknown; cause?: unknown; meta?: unknown };
    const codes = [o.code, o.errorCode, o.originalCode].filter((c): c is string => typeof c === "string");
    if (o.name === "PrismaClientInitializationError") return "PrismaClientInitializationError";
    const code = codes.find((c) => PRISMA_CONNECTION_CODES.has(c) || PG_CONNECTION_STATE.test(c) || SOCKET_CODES.has(c) || c === "SQLITE_CANTOPEN" || c.startsWith("SQLITE_IOERR"));
    if (code) return code;
    if (typeof o.kind === "string" && ADAPTER_KINDS.has(o.kind)) return o.kind;
    if (typeof o.message === "string" && CONNECTION_MESSAGE.test(o.message)) return "message";
    queue.push(o.cause);
    if (o.meta && typeof o.meta === "object") queue.push((o.meta as { driverAdapterError?: unknown }).driverAdapterError);
  }
  return null;
}
