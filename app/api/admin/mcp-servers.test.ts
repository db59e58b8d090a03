/**
 * A desk's upstream MCP servers (route level, SQLite and PostgreSQL; docs/api-extensions.md
 * "Upstream MCP servers of a desk"): the demo desk has the shipped carrier over stdio (its tools
 * imported by the seed); an admin registers it over Streamable HTTP with a bearer token (the
 * carrier runs as a real HTTP server on a free port for this file) and imports its tools into the
 * one tool catalog, and the credential never shows: not
 * in any API answer, audit event or console line. A wrong credential, a changed ciphertext, a
 * missing key, another desk's id and a caller who is not an admin are each refused, typed, with
 * nothing written.
 */
import type { ChildProcess } from "node:child_process";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { log, setLogSink } from "@/lib/net/log.mjs";
import { prisma } from "@/lib/server/db/db";
import { DEMO_INTEGRATION_KEY, DEMO_RETAIL_AGENT_KEY } from "@/lib/server/demo/seed";
import { apiRequest, routeCtx, signInCookie, TEST_ORIGIN } from "@/testing/test-auth";
import { startHttpCarrier } from "@/testing/http-carrier";
import { prepareTestDatabase } from "@/testing/test-support";
import { GET as listServers, POST as registerServer } from "./desks/[deskId]/mcp-servers/route";
import { DELETE as disableServer } from "./desks/[deskId]/mcp-servers/[upstreamId]/route";
import { POST as importServer } from "./desks/[deskId]/mcp-servers/[upstreamId]/import/route";
import { GET as listCatalog } from "./tools/route";

type Json = Record<string, any>;

const TOKEN = "carrier-test-token-9f8e7d6c5b4a";
const WRONG = "carrier-wrong-token-0a1b2c3d4e5f";
const HEADER_SECRET = "x-api-secret-value-77aa88bb99cc";
const SECRETS = [TOKEN, WRONG, HEADER_SECRET];

let admin: string;
let operator: string;
let carrier: ChildProcess;
let carrierUrl: string;
let workDir: string;
const answers: string[] = [];
const consoleLines: string[] = [];

/** Calls `handler`, keeps the answer's text (every answer is checked for secrets at the end) and parses it. */
async function call(res: Promise<Response> | Response): Promise<{ status: number; body: Json }> {
  const r = await res;
  const text = await r.text();
  answers.push(text);
  return { status: r.status, body: text ? JSON.parse(text) : {} };
}

const send = (method: string, url: string, body?: unknown, cookie = admin) => apiRequest(method, url, { cookie, origin: TEST_ORIGIN }, body);
const list = (desk: string, cookie = admin) => call(listServers(send("GET", `/api/admin/desks/${desk}/mcp-servers`, undefined, cookie), routeCtx({ deskId: desk })));
const register = (desk: string, body: unknown, cookie = admin) => call(registerServer(send("POST", `/api/admin/desks/${desk}/mcp-servers`, body, cookie), routeCtx({ deskId: desk })));
const disable = (desk: string, id: string) => call(disableServer(send("DELETE", `/api/admin/desks/${desk}/mcp-servers/${id}`), routeCtx({ deskId: desk, upstreamId: id })));
const importFrom = (desk: string, id: string, cookie = admin) => call(importServer(send("POST", `/api/admin/desks/${desk}/mcp-servers/${id}/import`, undefined, cookie), routeCtx({ deskId: desk, upstreamId: id })));

/** Starts the carrier as a Streamable HTTP server on a free port (testing/http-carrier.ts); resolves with its URL once it listens. */
async function startCarrier(): Promise<string> {
  const started = await startHttpCarrier(TOKEN, path.join(workDir, "calls.jsonl"));
  carrier = started.process;
  return started.url;
}

beforeAll(async () => {
  // the server's JSON log lines (lib/net/log.mjs), every level, are read like console lines
  log.level = "debug";
  setLogSink((line) => consoleLines.push(line));
  for (const m of ["log", "info", "warn", "error", "debug"] as const) {
    vi.spyOn(console, m).mockImplementation((...args: unknown[]) => {
      consoleLines.push(args.map((a) => (a instanceof Error ? `${a.message}\n${a.stack}` : typeof a === "string" ? a : JSON.stringify(a))).join(" "));
    });
  }
  workDir = mkdtempSync(path.join(tmpdir(), "plandesk-carrier-"));
  [carrierUrl] = await Promise.all([startCarrier(), prepareTestDatabase()]);
  admin = await signInCookie("admin@plandesk.test");
  operator = await signInCookie("operator@plandesk.test");
}, 120_000);

afterAll(async () => {
  setLogSink(null);
  if (carrier && carrier.exitCode === null) {
    const exited = new Promise((r) => carrier.once("exit", r));
    carrier.kill("SIGTERM");
    await exited;
  }
  rmSync(workDir, { recursive: true, force: true });
  vi.restoreAllMocks();
});

describe("upstream MCP servers of a desk", () => {
  it("the demo desk has the shipped carrier registered over stdio, its tools imported by the seed: get_tracking (read-only, auto) and book_redelivery (a write, approval); importing again changes nothing", async () => {
    const listed = await list("freight");
    expect(listed.status).toBe(200);
    const carrierRow = (listed.body.servers as Json[]).find((s) => s.name === "carrier");
    expect(carrierRow).toMatchObject({ desk: "freight", transport: "stdio", command: "node", url: null, credential: null, disabledAt: null });
    expect(carrierRow!.args).toContain("examples/carrier-mcp/server.ts");

    const catalog = (await call(listCatalog(send("GET", "/api/admin/tools")))).body;
    const tool = (name: string) => (catalog.imported as Json[]).find((t) => t.name === name);
    expect(tool("get_tracking")).toMatchObject({ gate: "auto", annotations: { readOnlyHint: true }, sourceRef: "mcp server freight/carrier" });
    expect(tool("book_redelivery")).toMatchObject({ gate: "approval" });
    expect(tool("book_redelivery")!.inputSchema.required.sort()).toEqual(["date", "shipmentId"]);
    // the seed imported them as the demo admin, through the same import
    const seeded = await prisma.auditEvent.findMany({ where: { type: "admin_change", actorId: "usr_admin" }, orderBy: { seq: "asc" } });
    expect(seeded.map((e) => e.data as Json).find((d) => d.what === "tool_catalog.import")).toMatchObject({ source: "mcp", sourceRef: "mcp server freight/carrier", added: expect.arrayContaining(["book_redelivery", "get_tracking"]) });

    // an admin imports again: the carrier is started and listed, the catalog does not change (no new version, no event)
    const events = await prisma.auditEvent.count({ where: { type: "admin_change" } });
    const imported = await importFrom("freight", carrierRow!.id);
    expect(imported.status).toBe(201);
    expect(imported.body).toMatchObject({ created: false, added: [], changed: [], problems: [] });
    expect([...imported.body.unchanged].sort()).toEqual(["book_redelivery", "get_tracking"]);
    expect(await prisma.auditEvent.count({ where: { type: "admin_change" } })).toBe(events);
  }, 60_000);

  it("an HTTP server with a bearer token: the answer shows only the token's last 4 characters, the row holds only ciphertext, the audit event no token; its import lists the same tools (unchanged)", async () => {
    const res = await register("freight", { transport: "http", name: "carrier-http", url: carrierUrl, credential: { kind: "bearer", token: TOKEN } });
    expect(res.status).toBe(201);
    const server = res.body.server as Json;
    expect(server).toMatchObject({ desk: "freight", name: "carrier-http", transport: "http", url: carrierUrl, command: null, credential: { kind: "bearer", header: "authorization", last4: TOKEN.slice(-4) } });
    const row = await prisma.mcpUpstream.findUniqueOrThrow({ where: { id: server.id } });
    expect(row.credentialCiphertext).toMatch(/^v1\./);
    expect(row.credentialCiphertext).not.toContain(TOKEN);
    const audit = await prisma.auditEvent.findFirst({ where: { type: "admin_change" }, orderBy: { seq: "desc" } });
    expect(audit?.data).toMatchObject({ what: "desk.mcp_server.register", target: { kind: "mcp_server", id: server.id }, desk: "freight", before: null, after: { name: "carrier-http", credential: { kind: "bearer", last4: TOKEN.slice(-4) } } });

    const imported = await importFrom("freight", server.id);
    expect(imported.status).toBe(201);
    expect(imported.body).toMatchObject({ created: false, added: [], changed: [] });
    expect([...imported.body.unchanged].sort()).toEqual(["book_redelivery", "get_tracking"]);

    // a header credential, short enough that not even its last 4 characters are shown
    const header = await register("freight", { transport: "http", name: "carrier-header", url: carrierUrl, credential: { kind: "header", header: "X-Api-Key", value: "short-key" } });
    expect(header.status).toBe(201);
    expect(header.body.server.credential).toEqual({ kind: "header", header: "x-api-key", last4: null });
  }, 60_000);

  it("a wrong token is refused upstream_auth_failed, in words that do not carry it; the catalog does not change", async () => {
    const before = await prisma.toolCatalogVersion.count();
    const res = await register("freight", { transport: "http", name: "carrier-wrong", url: carrierUrl, credential: { kind: "bearer", token: WRONG } });
    expect(res.status).toBe(201);
    const refusedImport = await importFrom("freight", res.body.server.id);
    expect(refusedImport.status).toBe(422);
    expect(refusedImport.body.error).toMatchObject({ code: "upstream_auth_failed", upstreamStatus: 401 });
    // no credential at all: the same refusal
    const none = await register("freight", { transport: "http", name: "carrier-none", url: carrierUrl });
    expect(none.body.server.credential).toBeNull();
    expect((await importFrom("freight", none.body.server.id)).body.error.code).toBe("upstream_auth_failed");
    // nothing listening there: a typed bad_request
    const closed = await register("freight", { transport: "http", name: "carrier-closed", url: "http://127.0.0.1:9/mcp", credential: { kind: "header", header: "x-api-key", value: HEADER_SECRET } });
    const unreachable = await importFrom("freight", closed.body.server.id);
    expect(unreachable.status).toBe(400);
    expect(unreachable.body.error.code).toBe("bad_request");
    expect(await prisma.toolCatalogVersion.count()).toBe(before);
    const refusals = await prisma.auditEvent.findMany({ where: { type: "refused" }, orderBy: { seq: "desc" }, take: 3 });
    expect(refusals.map((r) => (r.data as Json).code)).toEqual(expect.arrayContaining(["upstream_auth_failed", "bad_request"]));
  }, 60_000);

  it("an upstream that echoes the credential in its error text: the refusal says [credential] instead", async () => {
    const echo = createServer((req, res) => res.writeHead(500, { "content-type": "text/plain" }).end(`cannot serve ${req.headers["x-api-key"]} (${encodeURIComponent(String(req.headers["x-api-key"]))})`));
    await new Promise<void>((r) => echo.listen(0, "127.0.0.1", r));
    try {
      const url = `http://127.0.0.1:${(echo.address() as AddressInfo).port}/mcp`;
      const server = (await register("freight", { transport: "http", name: "echoing", url, credential: { kind: "header", header: "x-api-key", value: HEADER_SECRET } })).body.server;
      const res = await importFrom("freight", server.id);
      expect(res.status).toBe(400);
      expect(res.body.error.message).toContain("cannot serve [credential] ([credential])");
    } finally {
      await new Promise((r) => echo.close(r));
    }
  }, 60_000);

  it("a changed ciphertext, or one moved to another server, is refused credential_unreadable", async () => {
    const a = (await register("freight", { transport: "http", name: "tamper-a", url: carrierUrl, credential: { kind: "bearer", token: TOKEN } })).body.server;
    const b = (await register("freight", { transport: "http", name: "tamper-b", url: carrierUrl, credential: { kind: "bearer", token: WRONG } })).body.server;
    const rowA = await prisma.mcpUpstream.findUniqueOrThrow({ where: { id: a.id } });
    // b gets a's ciphertext: it does not open under b's id
    await prisma.mcpUpstream.update({ where: { id: b.id }, data: { credentialCiphertext: rowA.credentialCiphertext } });
    expect((await importFrom("freight", b.id)).body.error.code).toBe("credential_unreadable");
    // a's ciphertext with one character changed
    const parts = rowA.credentialCiphertext!.split(".");
    parts[3] = (parts[3][0] === "A" ? "B" : "A") + parts[3].slice(1);
    await prisma.mcpUpstream.update({ where: { id: a.id }, data: { credentialCiphertext: parts.join(".") } });
    const res = await importFrom("freight", a.id);
    expect(res.status).toBe(409);
    expect(res.body.error.code).toBe("credential_unreadable");
  }, 60_000);

  it("without PLANDESK_SECRETS_KEY outside demo mode a credential is refused secrets_key_missing with nothing stored; a malformed key likewise", async () => {
    const saved = { demo: process.env.PLANDESK_DEMO, key: process.env.PLANDESK_SECRETS_KEY };
    const count = await prisma.mcpUpstream.count();
    try {
      process.env.PLANDESK_DEMO = "0";
      delete process.env.PLANDESK_SECRETS_KEY;
      const res = await register("freight", { transport: "http", name: "no-key", url: carrierUrl, credential: { kind: "bearer", token: TOKEN } });
      expect(res.status).toBe(409);
      expect(res.body.error.code).toBe("secrets_key_missing");
      process.env.PLANDESK_SECRETS_KEY = "dG9vLXNob3J0";
      expect((await register("freight", { transport: "http", name: "bad-key", url: carrierUrl, credential: { kind: "bearer", token: TOKEN } })).body.error.code).toBe("secrets_key_missing");
      expect(await prisma.mcpUpstream.count()).toBe(count);
      // the shipped carrier is a demo-mode stdio server only
      expect((await register("freight", { transport: "stdio", name: "carrier-prod", server: "carrier" })).status).toBe(422);
    } finally {
      if (saved.demo === undefined) delete process.env.PLANDESK_DEMO;
      else process.env.PLANDESK_DEMO = saved.demo;
      if (saved.key === undefined) delete process.env.PLANDESK_SECRETS_KEY;
      else process.env.PLANDESK_SECRETS_KEY = saved.key;
    }
  });

  it("bad input is refused with nothing stored: a command nobody configured, a URL with a password, a reserved header, a taken name (also by two registrations at once)", async () => {
    const count = await prisma.mcpUpstream.count();
    const stdio = await register("freight", { transport: "stdio", name: "shell", server: "bash" });
    expect(stdio.status).toBe(422);
    expect(stdio.body.error.code).toBe("validation_failed");
    expect((await register("freight", { transport: "stdio", name: "shell", command: "bash", args: ["-c", "id"] })).status).toBe(400);
    expect((await register("freight", { transport: "http", name: "userinfo", url: `http://user:${TOKEN}@127.0.0.1:9/mcp` })).status).toBe(400);
    expect((await register("freight", { transport: "http", name: "ftp", url: "ftp://127.0.0.1/mcp" })).status).toBe(400);
    expect((await register("freight", { transport: "http", name: "host-header", url: carrierUrl, credential: { kind: "header", header: "Host", value: HEADER_SECRET } })).status).toBe(400);
    expect((await register("freight", { transport: "http", name: "newline", url: carrierUrl, credential: { kind: "bearer", token: "abc\r\nx-evil: 1" } })).status).toBe(400);
    expect((await register("freight", { transport: "http", name: "Not A Name", url: carrierUrl })).status).toBe(400);
    expect((await register("nowhere", { transport: "http", name: "x", url: carrierUrl })).status).toBe(404);
    expect(await prisma.mcpUpstream.count()).toBe(count);

    const taken = await register("freight", { transport: "stdio", name: "carrier", server: "carrier" });
    expect(taken.status).toBe(409);
    expect(taken.body.error.code).toBe("mcp_upstream_taken");
    const body = { transport: "http", name: "race", url: carrierUrl, credential: { kind: "bearer", token: TOKEN } };
    const both = await Promise.all([register("freight", body), register("freight", body)]);
    expect(both.map((r) => r.status).sort()).toEqual([201, 409]);
    expect(await prisma.mcpUpstream.count({ where: { desk: "freight", name: "race" } })).toBe(1);
  }, 60_000);

  it("a desk sees only its own servers; another desk's id is not found; agent and integration keys and operators reach none of it", async () => {
    const retail = await register("retail", { transport: "http", name: "retail-carrier", url: carrierUrl, credential: { kind: "bearer", token: TOKEN } });
    expect(retail.status).toBe(201);
    const id = retail.body.server.id as string;
    expect(((await list("freight")).body.servers as Json[]).map((s) => s.name)).not.toContain("retail-carrier");
    expect(((await list("retail")).body.servers as Json[]).map((s) => s.name)).toEqual(["retail-carrier"]);
    expect((await importFrom("freight", id)).status).toBe(404);
    expect((await disable("freight", id)).status).toBe(404);
    expect((await list("nowhere")).status).toBe(404);

    const asKey = (key: string) => call(listServers(apiRequest("GET", "/api/admin/desks/retail/mcp-servers", { key }), routeCtx({ deskId: "retail" })));
    for (const key of [DEMO_RETAIL_AGENT_KEY, DEMO_INTEGRATION_KEY]) {
      const res = await asKey(key);
      expect(res.status).toBe(401);
      expect(JSON.stringify(res.body)).not.toContain("retail-carrier");
    }
    const importAsKey = await call(importServer(apiRequest("POST", `/api/admin/desks/retail/mcp-servers/${id}/import`, { key: DEMO_RETAIL_AGENT_KEY, origin: TEST_ORIGIN }), routeCtx({ deskId: "retail", upstreamId: id })));
    expect(importAsKey.status).toBe(401);
    expect((await list("retail", operator)).status).toBe(403);
    expect((await register("retail", { transport: "http", name: "by-operator", url: carrierUrl }, operator)).status).toBe(403);
    expect((await importFrom("retail", id, operator)).status).toBe(403);
  });

  it("disabling erases the stored credential (audited once); a disabled server is not imported from and keeps its name", async () => {
    const server = (await register("freight", { transport: "http", name: "to-disable", url: carrierUrl, credential: { kind: "bearer", token: TOKEN } })).body.server;
    const res = await disable("freight", server.id);
    expect(res.status).toBe(200);
    expect(res.body.server).toMatchObject({ id: server.id, credential: null });
    expect(res.body.server.disabledAt).not.toBeNull();
    const row = await prisma.mcpUpstream.findUniqueOrThrow({ where: { id: server.id } });
    expect(row).toMatchObject({ credentialCiphertext: null, credentialHint: null, disabledById: "usr_admin" });
    const events = () => prisma.auditEvent.count({ where: { type: "admin_change" } });
    const n = await events();
    expect((await disable("freight", server.id)).status).toBe(200);
    expect(await events()).toBe(n);
    expect((await importFrom("freight", server.id)).body.error.code).toBe("mcp_upstream_disabled");
    expect((await register("freight", { transport: "http", name: "to-disable", url: carrierUrl })).body.error.code).toBe("mcp_upstream_taken");
  });

  it("the carrier logs every call it receives, with its arguments and _meta (the idempotency key), once per call", async () => {
    const client = new Client({ name: "carrier-log-test", version: "1.0.0" });
    await client.connect(new StreamableHTTPClientTransport(new URL(carrierUrl), { requestInit: { headers: { authorization: `Bearer ${TOKEN}` } } }));
    try {
      const booked = await client.callTool({ name: "book_redelivery", arguments: { shipmentId: "sh_5531", date: "2026-01-09" }, _meta: { "plandesk/idempotencyKey": "step-key-1" } });
      expect(JSON.parse((booked.content as { text: string }[])[0].text)).toMatchObject({ shipmentId: "sh_5531", date: "2026-01-09", status: "booked" });
      await client.callTool({ name: "get_tracking", arguments: { shipmentId: "sh_5531" } });
    } finally {
      await client.close();
    }
    const lines = readFileSync(path.join(workDir, "calls.jsonl"), "utf8").trim().split("\n").map((l) => JSON.parse(l) as Json);
    expect(lines.map((l) => [l.tool, l.arguments, l._meta?.["plandesk/idempotencyKey"] ?? null])).toEqual([
      ["book_redelivery", { shipmentId: "sh_5531", date: "2026-01-09" }, "step-key-1"],
      ["get_tracking", { shipmentId: "sh_5531" }, null],
    ]);
  });

  it("no credential appears in any answer, audit event or console line of this file", async () => {
    expect(answers.length).toBeGreaterThan(20);
    const audit = await prisma.auditEvent.findMany({ select: { data: true } });
    const texts = [...answers, ...consoleLines, ...audit.map((e) => JSON.stringify(e.data))];
    for (const secret of SECRETS) {
      expect(texts.filter((t) => t.includes(secret))).toEqual([]);
      expect(texts.filter((t) => t.includes(encodeURIComponent(secret)))).toEqual([]);
    }
  });
});
