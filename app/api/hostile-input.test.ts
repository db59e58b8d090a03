/**
 * Hostile path and query values against every endpoint ("no page or endpoint
 * answers 500 for any path or query string a person can type"; the pages are covered by
 * e2e/security-headers.spec.ts). The endpoints are read from the filesystem: every `route.ts`
 * under app/api and every method it exports is probed, through its real route handler as its own
 * kind of caller (so it gets past authentication to the parsing), with
 * PLANDESK_STRICT_CONTRACT=1 (an undeclared refusal would be a 500 too). A new route file is
 * probed as soon as it exists — a method without a declaration in lib/api/endpoints.ts fails here
 * — and the two routes that are not declarations (better-auth's, the benchmark's) have their own
 * blocks. The oracle: never a 5xx, and every refusal is `{error: {code, message}}`.
 */
import fs from "node:fs";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import type { Endpoint } from "@/lib/api/contract";
import { ENDPOINTS } from "@/lib/api/endpoints";
import { prisma } from "@/lib/server/db/db";
import { DEMO_AGENT_ID, DEMO_AGENT_KEY, DEMO_INTEGRATION_KEY } from "@/lib/server/demo/seed";
import { apiRequest, routeCtx, signInCookie, TEST_ORIGIN, type Credentials } from "@/testing/test-auth";
import { prepareTestDatabase } from "@/testing/test-support";
import { liftRateLimits } from "@/testing/unlimited-rates";

type Handler = (req: Request, ctx: { params: Promise<Record<string, string>> }) => Promise<Response>;

/** What a person can type into a path segment or a query value. */
const HOSTILE = [
  "__proto__",
  "constructor",
  "prototype",
  "toString",
  "hasOwnProperty",
  "%00",
  "\u0000",
  "a\u0000b",
  "../../etc/passwd",
  "..%2F..%2Fetc%2Fpasswd",
  "x".repeat(5000),
  "ünïcødé-名前-🙂",
  "\u202e\u200b",
  "\ud800",
  "",
  " ",
  "-1",
  "0",
  "1.5",
  "1e400",
  "99999999999999999999999999",
  "2147483648",
  "NaN",
  "Infinity",
  "null",
  "undefined",
  "[object Object]",
  "' OR 1=1 --",
  "<script>alert(1)</script>",
  "%E0%A4%A",
  "{}",
  "[]",
];

const APP_DIR = path.resolve(__dirname, "..");
const METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE"] as const;

/** Every `route.ts` under app/api: its directory as a path template ("/api/runs/[runId]") and the methods its module exports. */
async function routeFiles(dir = __dirname): Promise<{ template: string; exports: Record<string, Handler> }[]> {
  const out: { template: string; exports: Record<string, Handler> }[] = [];
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) out.push(...(await routeFiles(full)));
    else if (entry.name === "route.ts") out.push({ template: `/${path.relative(APP_DIR, dir).split(path.sep).join("/")}`, exports: (await import(full)) as Record<string, Handler> });
  }
  return out;
}

/**
 * The routes that are not endpoint declarations, each probed by its own block below: better-auth's
 * catch-all and the benchmark's bare handler (404 unless PLANDESK_BENCH=1).
 */
const NOT_DECLARED = new Set(["/api/auth/[...all]", "/api/bench/bare"]);
const templateOf = (e: Endpoint) => e.path.replace(/\{(\w+)\}/g, "[$1]");
const ROUTE_FILES = await routeFiles();
const handlers = new Map<Endpoint, Handler>();
/** `METHOD /api/…` of every exported method of a declared route file that has no declaration. */
const undeclaredMethods: string[] = [];
/** Declarations whose route file or method does not exist. */
const missingFiles: string[] = [];
for (const file of ROUTE_FILES) {
  if (NOT_DECLARED.has(file.template)) continue;
  for (const m of METHODS) {
    if (typeof file.exports[m] !== "function") continue;
    const e = ENDPOINTS.find((x) => x.method === m && templateOf(x) === file.template);
    if (e) handlers.set(e, file.exports[m]);
    else undeclaredMethods.push(`${m} ${file.template}`);
  }
}
for (const e of ENDPOINTS) if (!handlers.has(e)) missingFiles.push(`${e.method} ${templateOf(e)}`);
/** Every endpoint found on the filesystem, in the order of the declarations (the demo reset last). */
const PROBED: readonly Endpoint[] = ENDPOINTS.filter((e) => handlers.has(e));
/** The exported handlers of the routes that are not declarations, by template. */
const notDeclared = (template: string) => ROUTE_FILES.find((f) => f.template === template)!.exports;

describe("the endpoints probed here are the route files under app/api", () => {
  it("every exported method of every route file is probed: declared (so the blocks below reach it) or one of the two with their own block", () => {
    expect(ROUTE_FILES.length).toBeGreaterThan(40);
    expect(undeclaredMethods, "a route method with no declaration in lib/api/endpoints.ts is not probed: declare it").toEqual([]);
    expect(missingFiles, "a declaration whose route file or method is missing").toEqual([]);
    for (const t of NOT_DECLARED) expect(ROUTE_FILES.some((f) => f.template === t), t).toBe(true);
    expect(PROBED.length).toBe(ENDPOINTS.length);
  });
});

const cookies: Record<"supervisor" | "admin", string> = { supervisor: "", admin: "" };
/** Real values for every path parameter (so hostile QUERY values reach the query parser). */
const valid: Record<string, string> = {};

// thousands of probes from one key and one person: a deliberate flood, past any rate limit
liftRateLimits();

beforeAll(async () => {
  await prepareTestDatabase(new Date());
  cookies.supervisor = await signInCookie("supervisor@plandesk.test");
  cookies.admin = await signInCookie("admin@plandesk.test");
  const run = await prisma.run.findFirstOrThrow({ include: { planVersions: true }, orderBy: { createdAt: "asc" } });
  const steps = run.planVersions[0].steps as { id: string }[];
  Object.assign(valid, {
    runId: run.id,
    stepId: steps[0].id,
    version: "1",
    taskId: run.taskId,
    agentId: DEMO_AGENT_ID,
    userId: "usr_operator",
    tool: "issue_refund",
    kind: "invoice",
    token: "no-such-claim-token-0000",
    keyId: "no_such_key",
    suggestionId: "no_such_suggestion",
    deliveryId: "no_such_delivery",
    deskId: "freight",
    ruleId: "no_such_rule",
    upstreamId: "mcp_no_such_upstream",
    providerId: "oidc_no_such_provider",
    id: "in_74119",
  });
});

/** The caller an endpoint admits (a supervisor for the desk's endpoints, an admin for admin ones). */
function credentialsFor(e: Endpoint): Credentials {
  switch (e.caller.kind) {
    case "agent":
      return { key: DEMO_AGENT_KEY };
    case "integration":
      return { key: DEMO_INTEGRATION_KEY };
    case "public":
      return {};
    case "session":
      return { cookie: e.caller.roles.includes("supervisor") ? cookies.supervisor : cookies.admin, origin: e.method === "GET" ? null : TEST_ORIGIN };
  }
}

const paramNames = (e: Endpoint) => [...e.path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]);
const queryKeys = (e: Endpoint): string[] => {
  const shape = (e.query as unknown as { shape?: Record<string, unknown> } | undefined)?.shape;
  return shape ? Object.keys(shape) : [];
};
/** A URL-safe rendering of a value (a lone surrogate cannot be percent-encoded; it is sent as U+FFFD). */
const enc = (v: string) => {
  try {
    return encodeURIComponent(v);
  } catch {
    return encodeURIComponent(v.replace(/[\ud800-\udfff]/g, "\ufffd"));
  }
};

/** Sends one request; asserts no 5xx and the refusal shape. Returns the status. */
async function probe(e: Endpoint, params: Record<string, string>, query: string, what: string): Promise<number> {
  const urlPath = e.path.replace(/\{(\w+)\}/g, (_m, k: string) => enc(params[k] ?? ""));
  const body = e.method === "GET" ? undefined : {};
  const req = apiRequest(e.method, `${urlPath}${query}`, credentialsFor(e), body);
  const res = await handlers.get(e)!(req, routeCtx(params));
  const text = await res.text();
  expect(res.status, `${e.method} ${e.path} ${what}: ${text.slice(0, 300)}`).toBeLessThan(500);
  if (res.status >= 400) {
    const json = JSON.parse(text) as { error?: { code?: unknown; message?: unknown } };
    expect(typeof json.error?.code, `${e.method} ${e.path} ${what}`).toBe("string");
    expect(typeof json.error?.message, `${e.method} ${e.path} ${what}`).toBe("string");
  }
  return res.status;
}

describe.each(PROBED.filter((e) => paramNames(e).length > 0).map((e) => [`${e.method} ${e.path}`, e] as const))("hostile path values: %s", (_name, e) => {
  it("every parameter hostile, one at a time, never answers 5xx", async () => {
    for (const name of paramNames(e)) {
      for (const v of HOSTILE) {
        const params = Object.fromEntries(paramNames(e).map((n) => [n, n === name ? v : valid[n]]));
        // a mutating call with every other parameter real must not change real data: only GETs keep the others real
        if (e.method !== "GET") for (const n of paramNames(e)) if (n !== name) params[n] = "no_such_id";
        await probe(e, params, "", `${name}=${JSON.stringify(v.slice(0, 40))}`);
      }
    }
  });
});

describe.each(PROBED.filter((e) => e.method === "GET").map((e) => [`${e.method} ${e.path}`, e] as const))("hostile query values: %s", (_name, e) => {
  it("declared keys with hostile values, repeated keys and prototype keys never answer 5xx", async () => {
    const params = Object.fromEntries(paramNames(e).map((n) => [n, valid[n]]));
    // control: the caller gets through authentication, so the hostile values below reach the parsers
    expect([401, 403]).not.toContain(await probe(e, params, "", "control"));
    const keys = [...queryKeys(e), "__proto__", "constructor"];
    for (const k of keys) {
      for (const v of HOSTILE) await probe(e, params, `?${enc(k)}=${enc(v)}`, `?${k}=${JSON.stringify(v.slice(0, 40))}`);
      await probe(e, params, `?${enc(k)}=a&${enc(k)}=b`, `?${k}=a&${k}=b`);
      await probe(e, params, `?${enc(k)}[]=1&${enc(k)}[0]=2`, `?${k}[]=1`);
      await probe(e, params, `?${enc(k)}`, `?${k} (no value)`);
    }
    await probe(e, params, `?${"q".repeat(5000)}=${"v".repeat(5000)}`, "a 10,000-character query");
    await probe(e, params, "?%00=%00&&&=&%zz", "broken escapes");
  }, 120_000); // about 100 requests each (GET /api/openapi.json builds its document every time: ~30 s on a loaded machine)
});

/** Sends raw body bytes (not necessarily JSON, not necessarily UTF-8) to `e` with real path values. */
async function sendBody(e: Endpoint, body: Uint8Array<ArrayBuffer> | string): Promise<{ status: number; json: { error?: { code?: string; message?: string; limitDepth?: number } } }> {
  const params = Object.fromEntries(paramNames(e).map((n) => [n, valid[n]]));
  const creds = credentialsFor(e);
  const headers: Record<string, string> = { accept: "application/json", "content-type": "application/json" };
  if (creds.cookie) headers.cookie = creds.cookie;
  if (creds.key) headers.authorization = `Bearer ${creds.key}`;
  if (creds.origin) headers.origin = creds.origin;
  const urlPath = e.path.replace(/\{(\w+)\}/g, (_m, k: string) => enc(params[k] ?? ""));
  const res = await handlers.get(e)!(new Request(`${TEST_ORIGIN}${urlPath}`, { method: e.method, headers, body }), routeCtx(params));
  const text = await res.text();
  expect(res.status, `${e.method} ${e.path}: ${text.slice(0, 300)}`).toBeLessThan(500);
  return { status: res.status, json: JSON.parse(text) };
}

/** `{"ids": [[[…"x"…]]]}` nested `levels` deep (what froze an instance when the NUL check copied its path per level). */
const nested = (levels: number, leaf = '"x"') => `{"ids": ${"[".repeat(levels)}${leaf}${"]".repeat(levels)}}`;

describe.each(PROBED.filter((e) => e.body).map((e) => [`${e.method} ${e.path}`, e] as const))("hostile bodies: %s", (_name, e) => {
  it("a body nested deeper than 64 levels is refused 413 before parsing, however deep", async () => {
    for (const levels of [65, 30_000, 100_000]) {
      const { status, json } = await sendBody(e, nested(levels));
      expect(status, `${levels} levels`).toBe(413);
      expect(json.error?.code).toBe("payload_too_large");
      expect(json.error?.limitDepth).toBe(64);
    }
  });

  it("bytes that are not UTF-8 are refused 400 invalid_encoding, never stored as U+FFFD", async () => {
    const head = new TextEncoder().encode('{"reason": "caf');
    const tail = new TextEncoder().encode('", "note": "x"}');
    for (const bad of [[0xff], [0xc3], [0xed, 0xa0, 0x80] /* an encoded surrogate */, [0xe9]]) {
      const { status, json } = await sendBody(e, new Uint8Array([...head, ...bad, ...tail]));
      expect(status, `bytes ${bad}`).toBe(400);
      expect(json.error?.code).toBe("invalid_encoding");
    }
  });

  it("a NUL character 60 levels deep is found and refused 422 with its path", async () => {
    const { status, json } = await sendBody(e, nested(60, '"a\\u0000b"'));
    expect(status).toBe(422);
    expect(json.error?.code).toBe("validation_failed");
    expect(json.error?.message).toContain(`ids${".0".repeat(60)}`);
  });
});

describe.each(PROBED.filter((e) => e.body).map((e) => [`${e.method} ${e.path}`, e] as const))("oversized bodies: %s", (_name, e) => {
  it("a body one byte over 1 MiB is refused 413 with the limit, read no further", async () => {
    const over = `{"x": "${"a".repeat(1024 * 1024 - 8)}"}`; // 1 MiB + 1 byte
    expect(new TextEncoder().encode(over).byteLength).toBe(1024 * 1024 + 1);
    const { status, json } = await sendBody(e, over);
    expect(status).toBe(413);
    expect(json.error?.code).toBe("payload_too_large");
    expect((json.error as { limitBytes?: number }).limitBytes).toBe(1024 * 1024);
  });
});

/** Raw `body` bytes to `e` (with real path values) as `application/x-www-form-urlencoded`, as its caller. */
async function sendForm(e: Endpoint, body: Uint8Array<ArrayBuffer> | string, contentType = "application/x-www-form-urlencoded"): Promise<{ status: number; json: { error?: { code?: string; message?: string; limitBytes?: number } } }> {
  const params = Object.fromEntries(paramNames(e).map((n) => [n, valid[n]]));
  const urlPath = e.path.replace(/\{(\w+)\}/g, (_m, k: string) => enc(params[k] ?? ""));
  const res = await handlers.get(e)!(new Request(`${TEST_ORIGIN}${urlPath}`, { method: e.method, headers: { accept: "application/json", "content-type": contentType }, body }), routeCtx(params));
  const text = await res.text();
  expect(res.status, `${e.method} ${e.path}: ${text.slice(0, 300)}`).toBeLessThan(500);
  return { status: res.status, json: JSON.parse(text) };
}

// Endpoints a protocol calls with a form-encoded body (the back-channel logout): the same bounds as JSON bodies.
describe.each(PROBED.filter((e) => e.formBody).map((e) => [`${e.method} ${e.path}`, e] as const))("hostile form bodies: %s", (_name, e) => {
  it("bytes that are not UTF-8: 400 invalid_encoding; a NUL: 422; over 1 MiB: 413; another content type, repeated, empty and prototype keys: 400; never a 5xx", async () => {
    expect((await sendForm(e, new Uint8Array([...new TextEncoder().encode("logout_token=caf"), 0xff]))).json.error?.code).toBe("invalid_encoding");
    const nul = await sendForm(e, "logout_token=a%00b");
    expect({ status: nul.status, code: nul.json.error?.code }).toEqual({ status: 422, code: "validation_failed" });
    const over = await sendForm(e, `logout_token=${"a".repeat(1024 * 1024)}`);
    expect({ status: over.status, code: over.json.error?.code, limit: over.json.error?.limitBytes }).toEqual({ status: 413, code: "payload_too_large", limit: 1024 * 1024 });
    for (const body of ["", "logout_token=", "logout_token=a&logout_token=b", "__proto__=x&constructor=y", "%zz=%zz", `${"[".repeat(10_000)}=1`]) {
      expect((await sendForm(e, body)).status, JSON.stringify(body.slice(0, 40))).toBe(body.startsWith("[") ? 413 : 400);
    }
    expect((await sendForm(e, '{"logout_token": "x"}', "application/json")).status).toBe(400);
  });
});

// Endpoints that take no body ignore whatever is sent: a hostile one never reaches a parser, so it
// can neither freeze the instance nor be stored. Every path value names nothing, and an endpoint
// without path values (the demo reset) is called signed out, so no real data changes.
describe.each(PROBED.filter((e) => !e.body && !e.formBody && e.method !== "GET").map((e) => [`${e.method} ${e.path}`, e] as const))("bodies sent where none is read: %s", (_name, e) => {
  it("100,000 levels, bytes that are not UTF-8 and 2 MiB are ignored: never a 5xx, answered at once", async () => {
    const params = Object.fromEntries(paramNames(e).map((n) => [n, "no_such_id"]));
    for (const body of [nested(100_000), new Uint8Array([0x7b, 0xff, 0xfe, 0x7d]), "x".repeat(2 * 1024 * 1024)]) {
      const urlPath = e.path.replace(/\{(\w+)\}/g, (_m, k: string) => enc(params[k]));
      const started = Date.now();
      const res = await handlers.get(e)!(apiRequestWithBody(e, urlPath, body, paramNames(e).length === 0), routeCtx(params));
      const text = await res.text();
      expect(res.status, `${e.method} ${e.path}: ${text.slice(0, 300)}`).toBeLessThan(500);
      expect(Date.now() - started, `${e.method} ${e.path}`).toBeLessThan(5_000);
    }
  });
});

/** A request to `e` as its caller (or signed out, `anonymous`) with raw `body` bytes. */
function apiRequestWithBody(e: Endpoint, urlPath: string, body: Uint8Array<ArrayBuffer> | string, anonymous = false): Request {
  const creds: Credentials = anonymous ? { origin: TEST_ORIGIN } : credentialsFor(e);
  const headers: Record<string, string> = { accept: "application/json", "content-type": "application/json" };
  if (creds.cookie) headers.cookie = creds.cookie;
  if (creds.key) headers.authorization = `Bearer ${creds.key}`;
  if (creds.origin) headers.origin = creds.origin;
  return new Request(`${TEST_ORIGIN}${urlPath}`, { method: e.method, headers, body });
}

// better-auth's own endpoints (the one API route that is not an endpoint declaration, besides the
// benchmark's, which answers 404 unless benchmarking) get the same body bounds before better-auth
// reads the body.
describe("hostile bodies: POST /api/auth/{...all}", () => {
  const authPaths = ["/api/auth/sign-in/email", "/api/auth/sign-up/email", "/api/auth/update-user", "/api/auth/sign-out"];
  const sendAuth = async (p: string, body: Uint8Array<ArrayBuffer> | string, headers: Record<string, string> = {}) => {
    const { POST } = await import("@/app/api/auth/[...all]/route");
    const res = await POST(new Request(`${TEST_ORIGIN}${p}`, { method: "POST", headers: { origin: TEST_ORIGIN, "content-type": "application/json", cookie: cookies.supervisor, ...headers }, body }));
    const text = await res.text();
    expect(res.status, `${p}: ${text.slice(0, 300)}`).toBeLessThan(500);
    return { status: res.status, json: JSON.parse(text) as { error?: { code?: string; limitDepth?: number; limitBytes?: number } } };
  };

  it("deeper than 64 levels: 413 limitDepth, however deep", async () => {
    for (const p of authPaths) {
      for (const levels of [65, 100_000]) {
        const { status, json } = await sendAuth(p, `{"email": "a@plandesk.test", "password": ${"[".repeat(levels)}1${"]".repeat(levels)}}`);
        expect(status, `${p} ${levels} levels`).toBe(413);
        expect(json.error?.limitDepth).toBe(64);
      }
    }
  });

  it("bytes that are not UTF-8: 400 invalid_encoding, never U+FFFD", async () => {
    const enc8 = (s: string) => new TextEncoder().encode(s);
    for (const p of authPaths) {
      const { status, json } = await sendAuth(p, new Uint8Array([...enc8('{"name": "caf'), 0xe9, ...enc8('", "email": "x@plandesk.test", "password": "plandesk-demo"}')]));
      expect(status, p).toBe(400);
      expect(json.error?.code).toBe("invalid_encoding");
    }
  });

  it("over 1 MiB, counted or declared: 413 limitBytes", async () => {
    for (const p of authPaths) {
      const counted = await sendAuth(p, `{"email": "a@plandesk.test", "password": "${"x".repeat(1024 * 1024)}"}`);
      expect(counted.status, p).toBe(413);
      expect(counted.json.error?.limitBytes).toBe(1024 * 1024);
      const declared = await sendAuth(p, "{}", { "content-length": String(2 * 1024 * 1024) });
      expect(declared.status, `${p} declared`).toBe(413);
    }
  });

  it("a well-formed sign-in still signs in", async () => {
    const { status } = await sendAuth("/api/auth/sign-in/email", JSON.stringify({ email: "operator@plandesk.test", password: "plandesk-demo" }), { cookie: "" });
    expect(status).toBe(200);
  });
});

// Every mutating method of a route that is not a declaration (better-auth's catch-all, the
// benchmark's handler, and any route file added without a declaration, which the first block also
// fails), found on the filesystem: hostile bodies signed out and as an admin, never a 5xx,
// answered at once, a refusal in the API's error shape. The benchmark's handler is probed off
// (404) and on (PLANDESK_BENCH=1: it reads the body as text and parses nothing).
const undeclaredRoutes = ROUTE_FILES.flatMap((f) =>
  METHODS.filter((m) => m !== "GET" && typeof f.exports[m] === "function" && (NOT_DECLARED.has(f.template) || undeclaredMethods.includes(`${m} ${f.template}`))).map((m) => [`${m} ${f.template}`, f.template, m] as const),
);

describe.each(undeclaredRoutes)("hostile bodies, a route that is not a declaration: %s", (_name, template, method) => {
  it("100,000 levels, bytes that are not UTF-8 and 2 MiB: never a 5xx, answered at once, refusals in the error shape", async () => {
    const urlPath = template.replace(/\[\.\.\.\w+\]/g, "no/such/path").replace(/\[(\w+)\]/g, "no_such_id");
    const bench = process.env.PLANDESK_BENCH;
    try {
      for (const benchOn of template === "/api/bench/bare" ? [false, true] : [false]) {
        if (benchOn) process.env.PLANDESK_BENCH = "1";
        else delete process.env.PLANDESK_BENCH;
        for (const cookie of ["", cookies.admin]) {
          for (const body of [nested(100_000), new Uint8Array([0x7b, 0xff, 0xfe, 0x7d]), `{"x": "${"a".repeat(2 * 1024 * 1024)}"}`]) {
            const headers: Record<string, string> = { accept: "application/json", "content-type": "application/json", origin: TEST_ORIGIN };
            if (cookie) headers.cookie = cookie;
            const started = Date.now();
            const res = await notDeclared(template)[method](new Request(`${TEST_ORIGIN}${urlPath}`, { method, headers, body }), routeCtx({}));
            const text = await res.text();
            const what = `${method} ${urlPath}${benchOn ? " (PLANDESK_BENCH=1)" : ""}${cookie ? " as an admin" : " signed out"}`;
            expect(res.status, `${what}: ${text.slice(0, 300)}`).toBeLessThan(500);
            expect(Date.now() - started, what).toBeLessThan(5_000);
            if (res.status >= 400) expect(typeof (JSON.parse(text) as { error?: { code?: unknown } }).error?.code, what).toBe("string");
          }
        }
      }
    } finally {
      if (bench === undefined) delete process.env.PLANDESK_BENCH;
      else process.env.PLANDESK_BENCH = bench;
    }
  });
});

describe("hostile values stay on the record", () => {
  it("a refusal of a path value holding NUL or 5,000 characters is audited, bounded, on both databases", async () => {
    const e = ENDPOINTS.find((x) => x.method === "POST" && x.path === "/api/runs/{runId}/steps/{stepId}/reconcile")!;
    for (const stepId of ["a\u0000b", "s".repeat(5000)]) {
      const before = await prisma.auditEvent.count({ where: { type: { in: ["denied", "refused"] }, actorId: "usr_supervisor" } });
      const status = await probe(e, { runId: valid.runId, stepId }, "", `stepId=${JSON.stringify(stepId.slice(0, 20))}`);
      expect(status).toBeGreaterThanOrEqual(400);
      const events = await prisma.auditEvent.findMany({ where: { type: { in: ["denied", "refused"] }, actorId: "usr_supervisor" }, orderBy: { seq: "asc" } });
      expect(events.length, "the refusal is on the record").toBe(before + 1);
      const text = JSON.stringify(events.at(-1)!.data);
      expect(text).not.toContain("\\u0000");
      expect(text.length, text.slice(0, 3000)).toBeLessThan(2_000);
    }
  });

  it("a refusal of a run id holding NUL or 5,000 characters is audited too (PostgreSQL cannot compare NUL: it is never looked up)", async () => {
    const e = ENDPOINTS.find((x) => x.method === "GET" && x.path === "/api/runs/{runId}")!;
    for (const runId of ["\u0000", "a\u0000b", "r".repeat(5000)]) {
      const where = { type: { in: ["denied", "refused"] }, actorId: "usr_supervisor" };
      const before = await prisma.auditEvent.count({ where });
      expect(await probe(e, { runId }, "", `runId=${JSON.stringify(runId.slice(0, 20))}`)).toBe(404);
      const events = await prisma.auditEvent.findMany({ where, orderBy: { seq: "asc" } });
      expect(events.length, "the refusal is on the record").toBe(before + 1);
      expect(events.at(-1)!.runId).toBeNull();
      expect(JSON.stringify(events.at(-1)!.data)).not.toContain("\\u0000");
    }
  });
});
