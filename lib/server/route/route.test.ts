/**
 * The route wrapper enforces the contract it is built from: an undeclared refusal or a
 * success body that breaks its schema fails loudly in tests (PLANDESK_STRICT_CONTRACT=1, set by
 * vitest.setup.ts), a malformed path id is 404, a bad query 400 — all with docs/api.md's error shape.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { defineEndpoint } from "../../api/contract";
import { idParam } from "../../api/endpoints";
import { DomainError } from "../../errors/domain-error";
import { prepareTestDatabase } from "../../../testing/test-support";
import { apiRequest, routeCtx } from "../../../testing/test-auth";
import { DEMO_AGENT_KEY } from "../demo/seed";
import { createPrisma, DB_PROVIDER } from "../db/db";
import { databaseUnavailable } from "../http/http";
import { route } from "./route";

const probe = defineEndpoint({
  id: "probe",
  method: "GET",
  path: "/api/v1/probe/{runId}",
  summary: "A test endpoint",
  caller: { kind: "agent" },
  params: z.object({ runId: idParam }),
  query: z.object({ mode: z.enum(["ok", "undeclared", "declared", "badBody"]) }),
  success: { status: [200], schema: z.object({ answer: z.number().int() }), description: "{answer}" },
  refusals: ["stale_task"],
});

const handler = route(probe, async ({ query, params }) => {
  if (query.mode === "undeclared") throw new DomainError("digest_mismatch", "Not declared for this endpoint.");
  if (query.mode === "declared") throw new DomainError("stale_task", "Declared.", { runId: params.runId });
  if (query.mode === "badBody") return { body: { answer: "forty-two" } as never };
  return { body: { answer: 42 } };
});

const get = async (path: string, runId: string) => {
  const res = await handler(apiRequest("GET", path, { key: DEMO_AGENT_KEY }), routeCtx({ runId }));
  return { status: res.status, body: (await res.json()) as { answer?: number; error?: { code: string; message: string } } };
};

beforeAll(async () => {
  await prepareTestDatabase();
});

describe("route(declaration, handler)", () => {
  it("answers a declared success and a declared refusal as they are", async () => {
    expect(await get("/api/v1/probe/run_1?mode=ok", "run_1")).toEqual({ status: 200, body: { answer: 42 } });
    expect(await get("/api/v1/probe/run_1?mode=declared", "run_1")).toMatchObject({ status: 409, body: { error: { code: "stale_task", runId: "run_1" } } });
  });

  it("fails loudly on a refusal the declaration does not list", async () => {
    const res = await get("/api/v1/probe/run_1?mode=undeclared", "run_1");
    expect(res.status).toBe(500);
    expect(res.body.error).toMatchObject({ code: "internal", message: expect.stringContaining('refusal "digest_mismatch" is not declared') });
  });

  it("fails loudly on a success body that does not match its schema", async () => {
    const res = await get("/api/v1/probe/run_1?mode=badBody", "run_1");
    expect(res.status).toBe(500);
    expect(res.body.error?.message).toContain("response body does not match its schema");
  });

  it("answers a malformed id 404 and a bad query 400, never 500", async () => {
    expect((await get("/api/v1/probe/__proto__?mode=ok", "__proto__")).status).toBe(404);
    expect((await get("/api/v1/probe/%00?mode=ok", "\u0000")).status).toBe(404);
    const bad = await get("/api/v1/probe/run_1?mode=nope", "run_1");
    expect(bad).toMatchObject({ status: 400, body: { error: { code: "bad_request" } } });
  });

  it("authenticates before anything else: no key is 401", async () => {
    const res = await handler(apiRequest("GET", "/api/v1/probe/run_1?mode=ok", {}), routeCtx({ runId: "run_1" }));
    expect(res.status).toBe(401);
  });
});

describe("a lost database connection", () => {
  // A client whose database cannot be reached, on the dialect under test: a closed port on
  // PostgreSQL, a file in a directory that does not exist on SQLite (the errors each driver really raises).
  const unreachable = createPrisma(DB_PROVIDER === "postgresql" ? "postgresql://postgres@127.0.0.1:1/plandesk_gone" : "file:/nonexistent-plandesk-dir/gone.db");
  const dbProbe = defineEndpoint({
    id: "dbProbe",
    method: "POST",
    path: "/api/v1/db-probe",
    summary: "A test endpoint reading the database",
    caller: { kind: "agent" },
    success: { status: [200], schema: z.object({ users: z.number().int() }), description: "{users}" },
    refusals: [],
  });
  const dbHandler = route(dbProbe, async () => ({ body: { users: await unreachable.user.count() } }));

  it("is a retryable 503 database_unavailable with Retry-After, not a 500", async () => {
    const res = await dbHandler(apiRequest("POST", "/api/v1/db-probe", { key: DEMO_AGENT_KEY }), routeCtx({}));
    expect(res.status).toBe(503);
    expect(res.headers.get("retry-after")).toBe("5");
    expect((await res.json()).error).toMatchObject({ code: "database_unavailable", retryAfterSeconds: 5 });
  });

  it("is recognised through the drivers' codes and cause chains, and nothing else is", () => {
    for (const e of [
      Object.assign(new Error("x"), { code: "P1017" }),
      Object.assign(new Error("wrapped"), { cause: Object.assign(new Error("terminating connection due to administrator command"), { code: "57P01" }) }),
      Object.assign(new Error("x"), { cause: { kind: "ConnectionClosed" } }),
      Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:5432"), { code: "ECONNREFUSED" }),
      Object.assign(new Error("disk I/O error"), { code: "SQLITE_IOERR_READ" }),
      // As Prisma 7 throws it when PostgreSQL ends the connection under a model query (no cause
      // chain, a message that names no connection): the adapter's error sits in meta.driverAdapterError.
      Object.assign(new Error("Invalid `prisma.run.findUnique()` invocation: an error occurred"), {
        name: "PrismaClientKnownRequestError",
        code: "P2010",
        meta: { driverAdapterError: { name: "DriverAdapterError", cause: { originalCode: "57P01", kind: "postgres", code: "57P01", severity: "FATAL", message: "" } } },
      }),
      Object.assign(new Error("Invalid invocation"), { code: "P2010", meta: { driverAdapterError: { cause: { kind: "postgres", originalCode: "08006", code: "08006" } } } }),
    ]) {
      expect(databaseUnavailable(e)?.code, String(e.message)).toBe("database_unavailable");
    }
    for (const e of [
      new Error("boom"),
      Object.assign(new Error("x"), { code: "P2002" }),
      Object.assign(new Error("x"), { code: "40001" }),
      Object.assign(new Error("x"), { code: "P2021", meta: { driverAdapterError: { cause: { originalCode: "42P01", kind: "TableDoesNotExist" } } } }),
      null,
      "text",
    ]) {
      expect(databaseUnavailable(e)).toBeNull();
    }
  });
});

describe("authenticated answers", () => {
  it("carry Cache-Control: no-store, successes and refusals alike", async () => {
    for (const mode of ["ok", "declared", "nope"]) {
      const res = await handler(apiRequest("GET", `/api/v1/probe/run_1?mode=${mode}`, { key: DEMO_AGENT_KEY }), routeCtx({ runId: "run_1" }));
      expect(res.headers.get("cache-control"), mode).toBe("no-store");
    }
    const refused = await handler(apiRequest("GET", "/api/v1/probe/run_1?mode=ok", {}), routeCtx({ runId: "run_1" }));
    expect(refused.status).toBe(401);
    expect(refused.headers.get("cache-control")).toBe("no-store");
  });
});
