/**
 * Integration keys have scopes (issue #37: "a ticketing key can also write records";
 * lib/api/integration-scopes.ts): `tasks` opens and revises tasks and reports ticket events,
 * `records` is the records door. Set when an admin creates the key, shown in the list, enforced on
 * every endpoint that takes an integration key (403 `key_scope_missing`, audited, nothing
 * written), declared in the OpenAPI document. Through the real route handlers, on SQLite and
 * PostgreSQL.
 */
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { GET as listKeysRoute, POST as createKeyRoute } from "@/app/api/admin/integration-keys/route";
import { ENDPOINTS } from "@/lib/api/endpoints";
import { buildOpenApi } from "@/lib/api/openapi";
import type { Endpoint } from "@/lib/api/contract";
import { createIntegrationKey } from "@/lib/server/admin/integration-keys";
import { loadViewer, type Viewer } from "@/lib/server/auth/session";
import { prisma } from "@/lib/server/db/db";
import { apiRequest, signInCookie, TEST_ORIGIN } from "@/testing/test-auth";
import { prepareTestDatabase } from "@/testing/test-support";

type Json = Record<string, any>;
type Handler = (req: Request, ctx: { params: Promise<Record<string, string>> }) => Promise<Response>;

let admin: Viewer;
const keys: Record<"records" | "tasks" | "both" | "unscoped", { id: string; key: string }> = {} as never;

/** The route handler of `e` (app/<path with [params]>/route.ts). */
async function handlerOf(e: Endpoint): Promise<Handler> {
  const file = path.resolve(__dirname, "..", ...e.path.replace(/\{(\w+)\}/g, "[$1]").split("/").filter(Boolean), "route.ts");
  return (await import(file))[e.method] as Handler;
}

/** Calls `e` with integration key `key`, path parameters `params` (filled into its path), and a JSON (or NDJSON) body. */
async function call(e: Endpoint, key: string, params: Record<string, string>, body?: unknown): Promise<{ status: number; body: Json }> {
  const url = TEST_ORIGIN + e.path.replace(/\{(\w+)\}/g, (_m, k: string) => encodeURIComponent(params[k]));
  const headers: Record<string, string> = { authorization: `Bearer ${key}` };
  let payload: string | undefined;
  if (body !== undefined) {
    headers["content-type"] = e.streamBody ? "application/x-ndjson" : "application/json";
    payload = e.streamBody ? (body as unknown[]).map((l) => JSON.stringify(l)).join("\n") + "\n" : JSON.stringify(body);
  }
  const res = await (await handlerOf(e))(new Request(url, { method: e.method, headers, body: payload, duplex: "half" } as RequestInit), { params: Promise.resolve(params) });
  const text = await res.text();
  return { status: res.status, body: text ? (JSON.parse(text) as Json) : {} };
}

const endpoint = (id: string) => ENDPOINTS.find((e) => e.id === id)!;
const integrationEndpoints = ENDPOINTS.filter((e) => e.caller.kind === "integration");
const scopeOf = (e: Endpoint) => (e.caller as { scope: "tasks" | "records" }).scope;

const opening = (ticketId: string) => ({
  ticketId,
  accountId: "acc_nordkapp",
  subject: "Pallet left behind at Hamburg",
  parts: [{ source: "customer_message", text: "One pallet of sh_5640 was left at the Hamburg hub. Please deliver it next week." }],
});
const account = (name: string) => ({ name, sourceVersion: 1, sourceUpdatedAt: "2026-03-01T10:00:00Z" });
const lastSeq = async () => (await prisma.auditEvent.aggregate({ _max: { seq: true } }))._max.seq ?? 0;

beforeAll(async () => {
  await prepareTestDatabase(new Date());
  admin = (await loadViewer("usr_admin"))!;
  const make = async (name: string, scopes?: ("tasks" | "records")[]) => {
    const made = await createIntegrationKey(admin, { name, desk: "freight", ...(scopes ? { scopes } : {}) });
    return { id: made.integrationKey.id, key: made.key };
  };
  keys.records = await make("Billing sync", ["records"]);
  keys.tasks = await make("Zendesk", ["tasks"]);
  keys.both = await make("Everything", ["records", "tasks"]);
  keys.unscoped = await make("Made like before scopes");
});

describe("creating a key with scopes", () => {
  it("the admin API takes scopes, answers them in order, lists them; no scopes given is both (as keys made before scopes existed)", async () => {
    const cookie = await signInCookie("admin@plandesk.test");
    const res = await createKeyRoute(apiRequest("POST", "/api/admin/integration-keys", { cookie, origin: TEST_ORIGIN }, { name: "ERP", desk: "freight", scopes: ["records"] }));
    expect(res.status).toBe(201);
    const created = (await res.json()) as Json;
    expect(created.integrationKey).toMatchObject({ name: "ERP", desk: "freight", scopes: ["records"] });

    const listed = (await (await listKeysRoute(apiRequest("GET", "/api/admin/integration-keys", { cookie }))).json()) as Json;
    const byId = Object.fromEntries(listed.integrationKeys.map((k: Json) => [k.id, k.scopes]));
    expect(byId[created.integrationKey.id]).toEqual(["records"]);
    expect(byId[keys.tasks.id]).toEqual(["tasks"]);
    expect(byId[keys.both.id]).toEqual(["tasks", "records"]);
    expect(byId[keys.unscoped.id]).toEqual(["tasks", "records"]);
    // the demo desk's key, made by the seed without scopes, keeps both: nothing breaks
    expect(byId.int_demo).toEqual(["tasks", "records"]);

    const audit = await prisma.auditEvent.findFirstOrThrow({ where: { type: "admin_change" }, orderBy: { seq: "desc" } });
    expect(audit.data).toMatchObject({ what: "integration_key.create", after: { scopes: ["records"] } });
  });

  it.each([
    ["no scope", []],
    ["an unknown scope", ["tickets"]],
    ["a scope twice", ["records", "records"]],
    ["not a list", "records"],
  ])("refuses %s: 400 bad_request naming scopes, no key made", async (_what, scopes) => {
    const cookie = await signInCookie("admin@plandesk.test");
    const before = await prisma.integrationKey.count();
    const res = await createKeyRoute(apiRequest("POST", "/api/admin/integration-keys", { cookie, origin: TEST_ORIGIN }, { name: "Bad scopes", scopes }));
    const body = (await res.json()) as Json;
    expect({ status: res.status, code: body.error.code }).toEqual({ status: 400, code: "bad_request" });
    expect(body.error.issues.some((i: Json) => i.path.startsWith("scopes"))).toBe(true);
    expect(await prisma.integrationKey.count()).toBe(before);
  });
});

describe("scopes are enforced", () => {
  it("a records-only key cannot open a task: 403 key_scope_missing naming the scope, audited, nothing written; it writes a record", async () => {
    const since = await lastSeq();
    const tasksBefore = await prisma.task.count();
    const refused = await call(endpoint("openTask"), keys.records.key, {}, opening("91001"));
    expect({ status: refused.status, code: refused.body.error?.code }).toEqual({ status: 403, code: "key_scope_missing" });
    expect(refused.body.error).toMatchObject({ scope: "tasks", keyScopes: ["records"] });
    expect(refused.body.error.message).toBe('This integration key lacks the scope "tasks" (it holds only "records"); an admin creates a key with it.');
    expect(await prisma.task.count()).toBe(tasksBefore);
    const denied = await prisma.auditEvent.findMany({ where: { seq: { gt: since }, type: "denied" } });
    expect(denied).toHaveLength(1);
    expect(denied[0]).toMatchObject({ actorKind: "integration", actorId: keys.records.id });
    expect(denied[0].data).toMatchObject({ code: "key_scope_missing", missing: { kind: "scope", scope: "tasks", keyScopes: ["records"] } });

    const put = await call(endpoint("putRecord"), keys.records.key, { kind: "account", id: "acc_scope_records" }, account("Records-only Ltd"));
    expect(put.status, JSON.stringify(put.body)).toBe(200);
    expect(put.body.applied).toBe(true);
  });

  it("a tasks-only key cannot write a record (single, batch) nor read one: 403 key_scope_missing, nothing written; it opens a task", async () => {
    const put = await call(endpoint("putRecord"), keys.tasks.key, { kind: "account", id: "acc_scope_tasks" }, account("Tasks-only Ltd"));
    expect({ status: put.status, code: put.body.error?.code }).toEqual({ status: 403, code: "key_scope_missing" });
    expect(put.body.error).toMatchObject({ scope: "records", keyScopes: ["tasks"] });
    const batch = await call(endpoint("syncRecordBatch"), keys.tasks.key, {}, [{ kind: "account", id: "acc_scope_tasks_b", ...account("Tasks-only batch") }]);
    expect({ status: batch.status, code: batch.body.error?.code }).toEqual({ status: 403, code: "key_scope_missing" });
    const get = await call(endpoint("getRecord"), keys.tasks.key, { kind: "account", id: "acc_nordkapp" });
    expect({ status: get.status, code: get.body.error?.code }).toEqual({ status: 403, code: "key_scope_missing" });
    expect(await prisma.customerAccount.count({ where: { id: { startsWith: "acc_scope_tasks" } } })).toBe(0);

    const opened = await call(endpoint("openTask"), keys.tasks.key, {}, opening("91002"));
    expect(opened.status, JSON.stringify(opened.body)).toBe(201);
  });

  it("a key with both scopes (or made without naming any) does both", async () => {
    for (const [i, k] of [keys.both, keys.unscoped].entries()) {
      const opened = await call(endpoint("openTask"), k.key, {}, opening(`9110${i}`));
      expect(opened.status, JSON.stringify(opened.body)).toBe(201);
      const put = await call(endpoint("putRecord"), k.key, { kind: "account", id: `acc_scope_both_${i}` }, account(`Both ${i} Ltd`));
      expect(put.status, JSON.stringify(put.body)).toBe(200);
      const get = await call(endpoint("getRecord"), k.key, { kind: "account", id: `acc_scope_both_${i}` });
      expect(get.status).toBe(200);
    }
  });

  it("every endpoint that takes an integration key declares a scope and refuses a key without it, before reading its body", async () => {
    expect(integrationEndpoints.map((e) => `${e.method} ${e.path} ${scopeOf(e)}`).sort()).toEqual(
      [
        "DELETE /api/v1/records/{kind}/{id} records",
        "GET /api/v1/records/{kind}/{id} records",
        "POST /api/v1/records/batch records",
        "POST /api/v1/tasks tasks",
        "POST /api/v1/tasks/{taskId}/events tasks",
        "POST /api/v1/tasks/{taskId}/revisions tasks",
        "PUT /api/v1/records/{kind}/{id} records",
      ].sort(),
    );
    const params = { taskId: "task_74991", kind: "invoice", id: "in_74119" };
    for (const e of integrationEndpoints) {
      const wrong = scopeOf(e) === "tasks" ? keys.records : keys.tasks;
      // a body that is not even JSON: the scope is refused first
      const url = TEST_ORIGIN + e.path.replace(/\{(\w+)\}/g, (_m, k: string) => params[k as keyof typeof params]);
      const res = await (await handlerOf(e))(
        new Request(url, { method: e.method, headers: { authorization: `Bearer ${wrong.key}`, "content-type": "application/json" }, body: e.method === "GET" ? undefined : "{not json" }),
        { params: Promise.resolve(params) },
      );
      const body = (await res.json()) as Json;
      expect({ endpoint: `${e.method} ${e.path}`, status: res.status, code: body.error?.code, scope: body.error?.scope }).toEqual({
        endpoint: `${e.method} ${e.path}`,
        status: 403,
        code: "key_scope_missing",
        scope: scopeOf(e),
      });
    }
  });
});

describe("the OpenAPI document", () => {
  it("names each integration endpoint's scope in its security requirement and lists key_scope_missing under 403", () => {
    const doc = buildOpenApi() as Json;
    for (const e of integrationEndpoints) {
      const op = doc.paths[e.path.replace(/\{(\w+)\}/g, "{$1}")][e.method.toLowerCase()];
      expect(op.security, `${e.method} ${e.path}`).toEqual([{ integrationKey: [scopeOf(e)] }]);
      expect(op.responses["403"].description).toContain("key_scope_missing");
    }
    expect(doc.components.securitySchemes.integrationKey.description).toContain("key_scope_missing");
  });
});
