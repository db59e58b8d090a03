/**
 * Hostile path and query values against every declared endpoint ("no page or endpoint
 * answers 500 for any path or query string a person can type"; the pages are covered by
 * e2e/security-headers.spec.ts). Every request goes through the endpoint's real route handler as
 * its own kind of caller (so it gets past authentication to the parsing), with
 * PLANDESK_STRICT_CONTRACT=1 (an undeclared refusal would be a 500 too). The oracle: never a 5xx,
 * and every refusal is `{error: {code, message}}`.
 */
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import type { Endpoint } from "@/lib/api/contract";
import { ENDPOINTS } from "@/lib/api/endpoints";
import { prisma } from "@/lib/server/db/db";
import { DEMO_AGENT_ID, DEMO_AGENT_KEY, DEMO_INTEGRATION_KEY } from "@/lib/server/demo/seed";
import { apiRequest, routeCtx, signInCookie, TEST_ORIGIN, type Credentials } from "@/testing/test-auth";
import { prepareTestDatabase } from "@/testing/test-support";

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
const handlers = new Map<Endpoint, Handler>();
for (const e of ENDPOINTS) {
  const mod = (await import(path.join(APP_DIR, e.path.replace(/\{(\w+)\}/g, "[$1]"), "route.ts"))) as Record<string, Handler>;
  handlers.set(e, mod[e.method]);
}

const cookies: Record<"supervisor" | "admin", string> = { supervisor: "", admin: "" };
/** Real values for every path parameter (so hostile QUERY values reach the query parser). */
const valid: Record<string, string> = {};

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

describe.each(ENDPOINTS.filter((e) => paramNames(e).length > 0).map((e) => [`${e.method} ${e.path}`, e] as const))("hostile path values: %s", (_name, e) => {
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

describe.each(ENDPOINTS.filter((e) => e.method === "GET").map((e) => [`${e.method} ${e.path}`, e] as const))("hostile query values: %s", (_name, e) => {
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
  });
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

describe.each(ENDPOINTS.filter((e) => e.body).map((e) => [`${e.method} ${e.path}`, e] as const))("hostile bodies: %s", (_name, e) => {
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

describe.each(ENDPOINTS.filter((e) => e.body).map((e) => [`${e.method} ${e.path}`, e] as const))("oversized bodies: %s", (_name, e) => {
  it("a body one byte over 1 MiB is refused 413 with the limit, read no further", async () => {
    const over = `{"x": "${"a".repeat(1024 * 1024 - 8)}"}`; // 1 MiB + 1 byte
    expect(new TextEncoder().encode(over).byteLength).toBe(1024 * 1024 + 1);
    const { status, json } = await sendBody(e, over);
    expect(status).toBe(413);
    expect(json.error?.code).toBe("payload_too_large");
    expect((json.error as { limitBytes?: number }).limitBytes).toBe(1024 * 1024);
  });
});

// Endpoints that take no body ignore whatever is sent: a hostile one never reaches a parser, so it
// can neither freeze the instance nor be stored. Every path value names nothing, and an endpoint
// without path values (the demo reset) is called signed out, so no real data changes.
describe.each(ENDPOINTS.filter((e) => !e.body && e.method !== "GET").map((e) => [`${e.method} ${e.path}`, e] as const))("bodies sent where none is read: %s", (_name, e) => {
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
});
