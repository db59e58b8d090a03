import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { test, expect, request as playwrightRequest, type APIRequestContext, type Browser } from "@playwright/test";
import { startHttpCarrier } from "../testing/http-carrier";
import { DEMO_KEYS, STORAGE, type Role } from "./helpers";

/*
 * An upstream MCP server's credential never reaches a page (docs/api-extensions.md "Upstream MCP
 * servers of a desk"; the API answers, log lines and audit events are app/api/mcp/mcp-gateway.test.ts
 * and app/api/admin/mcp-servers.test.ts), in real Chromium against the production build: an admin
 * registers the carrier over Streamable HTTP with a bearer token and imports its tools, and a
 * second server with a header credential whose error text echoes it; the demo agent reads and
 * writes through Plandesk's MCP gateway; the senior approves; the running server's executor calls
 * the carrier; the admin disables both servers. Then every page that shows any of it — the
 * admin's changes, tools, desks and home, the run, its audit trail, reconciliation, denials and the
 * queue — is read as its role would see it (the HTML with the data the client is sent): it shows
 * the server, the tools, the call and its outcome, and never a credential, plain or sealed.
 */

test.describe.configure({ mode: "serial" });

const stamp = Date.now();
const TOKEN = `e2e-upstream-token-${stamp}`;
const HEADER_SECRET = `e2e-header-secret-${stamp}`;
const NAME = `carrier-http-${stamp}`;
/** A sealed credential as stored (v1.<iv>.<tag>.<ciphertext>, base64url). */
const SEALED = /v1\.[A-Za-z0-9_-]{16}\.[A-Za-z0-9_-]{22}\./;

let workDir = "";
let carrier: ChildProcess | undefined;
let carrierUrl = "";
let echo: Server | undefined;
let runId = "";
let baseURL = "";

/** An API context signed in as `role` (its stored session), sending the console's origin. */
const asRole = (role: Role) => playwrightRequest.newContext({ baseURL, storageState: STORAGE[role], extraHTTPHeaders: { origin: baseURL } });

/** One JSON-RPC message to Plandesk's MCP endpoint as the demo agent, for `taskId`: the JSON answer. */
async function mcp(agent: APIRequestContext, taskId: string, method: string, params: Record<string, unknown>): Promise<Record<string, any>> {
  const res = await agent.post("/api/mcp", {
    headers: { ...DEMO_KEYS.agent, "content-type": "application/json", accept: "application/json, text/event-stream", "plandesk-task-id": taskId },
    data: { jsonrpc: "2.0", id: 1, method, params },
  });
  expect(res.status(), await res.text()).toBe(200);
  return (await res.json()) as Record<string, any>;
}

/** The page at `url` as `role` sees it: its HTML (with the data sent to the client) and its visible text. */
async function pageAs(browser: Browser, role: Role, url: string): Promise<{ html: string; text: string }> {
  const context = await browser.newContext({ storageState: STORAGE[role] });
  try {
    const page = await context.newPage();
    const res = await page.goto(url);
    expect(res?.status(), url).toBe(200);
    await page.locator("html[data-hydrated]").waitFor({ state: "attached" });
    return { html: await page.content(), text: await page.locator("body").innerText() };
  } finally {
    await context.close();
  }
}

test.beforeAll(async ({}, testInfo) => {
  baseURL = testInfo.project.use.baseURL!;
  workDir = mkdtempSync(path.join(tmpdir(), "plandesk-e2e-gateway-"));
  const started = await startHttpCarrier(TOKEN, path.join(workDir, "calls.jsonl"));
  carrier = started.process;
  carrierUrl = started.url;
  // an upstream that puts the credential it was sent into its error text
  echo = createServer((req, res) => res.writeHead(500, { "content-type": "text/plain" }).end(`cannot serve ${String(req.headers["x-api-key"])}`));
  await new Promise<void>((r) => echo!.listen(0, "127.0.0.1", r));
});

test.afterAll(async () => {
  if (carrier && carrier.exitCode === null) {
    const exited = new Promise((r) => carrier!.once("exit", r));
    carrier.kill("SIGTERM");
    await exited;
  }
  await new Promise((r) => (echo ? echo.close(r) : r(undefined)));
  if (workDir) rmSync(workDir, { recursive: true, force: true });
});

test("the carrier over HTTP with its token serves the demo agent through the gateway; the approved write is executed; both servers are disabled", async () => {
  const admin = await asRole("admin");
  const senior = await asRole("senior");
  const agent = await playwrightRequest.newContext({ baseURL });
  try {
    // the admin registers the carrier with its token and imports its tools: from now on it serves them
    const registered = await admin.post("/api/admin/desks/freight/mcp-servers", { data: { transport: "http", name: NAME, url: carrierUrl, credential: { kind: "bearer", token: TOKEN } } });
    expect(registered.status(), await registered.text()).toBe(201);
    const server = (await registered.json()).server as { id: string; credential: { kind: string; last4: string | null } };
    expect(server.credential).toMatchObject({ kind: "bearer", last4: TOKEN.slice(-4) });
    const imported = await admin.post(`/api/admin/desks/freight/mcp-servers/${server.id}/import`);
    expect(imported.status(), await imported.text()).toBe(201);
    // a server whose error text echoes the credential it was sent: its import is refused, the credential cleaned out
    const leaky = await admin.post("/api/admin/desks/freight/mcp-servers", {
      data: { transport: "http", name: `echoing-${stamp}`, url: `http://127.0.0.1:${(echo!.address() as AddressInfo).port}/mcp`, credential: { kind: "header", header: "x-api-key", value: HEADER_SECRET } },
    });
    expect(leaky.status(), await leaky.text()).toBe(201);
    const leakyId = ((await leaky.json()).server as { id: string }).id;
    const refused = await admin.post(`/api/admin/desks/freight/mcp-servers/${leakyId}/import`);
    expect(refused.status()).toBe(400);
    expect(await refused.text()).toContain("cannot serve [credential]");

    // a task of its own on ticket #74991's account (a delivery exception: the carrier's tools are permitted)
    const reference = await agent.get("/api/v1/tasks/task_74991", { headers: DEMO_KEYS.agent });
    expect(reference.status()).toBe(200);
    const accountId = ((await reference.json()).task as { accountId: string }).accountId;
    const opened = await agent.post("/api/v1/tasks", {
      headers: DEMO_KEYS.integration,
      data: { ticketId: `e2e-gateway-${stamp}`, accountId, subject: "Parcel missed, book it again", parts: [{ source: "system", text: "The driver missed the delivery of sh_5531." }], contract: { intent: "delivery_exception", constraints: {} } },
    });
    expect(opened.status(), await opened.text()).toBe(201);
    const taskId = ((await opened.json()).task as { id: string }).id;

    // the demo agent reads and writes through Plandesk: the read reaches the carrier at once, the write is held
    const read = await mcp(agent, taskId, "tools/call", { name: "get_tracking", arguments: { shipmentId: "sh_5531" } });
    expect(read.result?.isError, JSON.stringify(read)).toBeFalsy();
    const readId = read.result._meta["plandesk/readId"] as string;
    const held = await mcp(agent, taskId, "tools/call", { name: "book_redelivery", arguments: { shipmentId: "sh_5531", date: "2027-03-15" }, _meta: { "plandesk/evidence": [readId] } });
    expect(held.result?.structuredContent, JSON.stringify(held)).toMatchObject({ status: "pending" });
    runId = held.result.structuredContent.runId as string;

    // the senior approves; the running server's executor calls the carrier with its stored token
    const approved = await senior.post(`/api/runs/${runId}/approvals`, { data: { planVersion: 1, stepIds: "all", idempotencyKey: `e2e-gateway-${runId}` } });
    expect(approved.status(), await approved.text()).toBe(201);
    await expect
      .poll(async () => ((await (await agent.get(`/api/v1/runs/${runId}`, { headers: DEMO_KEYS.agent })).json()).run as { status: string }).status, { timeout: 60_000, intervals: [250] })
      .toBe("completed");

    // both servers disabled (their credentials erased): the shipped stdio carrier serves the tools again
    for (const id of [server.id, leakyId]) expect((await admin.delete(`/api/admin/desks/freight/mcp-servers/${id}`)).status()).toBe(200);
  } finally {
    await Promise.all([admin.dispose(), senior.dispose(), agent.dispose()]);
  }
});

test("no page shows a credential: the admin's pages, the run, its audit trail, reconciliation, denials and the queue", async ({ browser }) => {
  expect(runId).not.toBe("");
  const pages: [Role, string, RegExp][] = [
    ["admin", "/admin/changes", new RegExp(NAME)],
    ["admin", "/admin/tools", /book_redelivery/],
    ["admin", "/admin/desks", /freight/i],
    ["admin", "/admin", /Admin/],
    ["operator", `/runs/${runId}`, /book_redelivery[\s\S]*succeeded/],
    ["operator", "/runs", /Runs|Queue/i],
    ["supervisor", `/runs/${runId}/audit`, /gateway/i],
    ["supervisor", "/reconciliation", /Reconciliation/i],
    ["supervisor", "/denials", /Denials|Refus/i],
  ];
  for (const [role, url, shows] of pages) {
    const { html, text } = await pageAs(browser, role, url);
    expect(text, `${url} as ${role} shows what it is about`).toMatch(shows);
    for (const secret of [TOKEN, HEADER_SECRET]) expect(html.includes(secret), `${url} as ${role} carries a credential`).toBe(false);
    expect(SEALED.test(html), `${url} as ${role} carries a sealed credential`).toBe(false);
  }
});
