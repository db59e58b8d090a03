/**
 * Desks are first-class (route level, SQLite and PostgreSQL): admins create desks and assign people
 * and agents to them; every change is audited; an assignment to a desk that does not exist is
 * refused; and an assignment takes effect at once (the person's queue, the agent's tasks).
 */
import { nanoid } from "nanoid";
import { beforeAll, describe, expect, it } from "vitest";
import { prisma } from "@/lib/server/db/db";
import { hashApiKey } from "@/lib/server/auth/api-keys";
import { apiRequest, routeCtx, signInCookie, TEST_ORIGIN } from "@/testing/test-auth";
import { prepareTestDatabase } from "@/testing/test-support";
import { GET as listDesks, POST as createDesk } from "./desks/route";
import { PATCH as updateAgent } from "./agents/[agentId]/route";
import { POST as createAgent } from "./agents/route";
import { POST as createUser } from "./users/route";
import { PATCH as updateUser } from "./users/[userId]/route";
import { GET as queueRoute } from "../runs/route";
import { GET as taskRoute } from "../v1/tasks/[taskId]/route";

type Json = Record<string, any>;
let admin: string;
let operator: string;

const send = (method: string, path: string, body: unknown, cookie = admin) => apiRequest(method, path, { cookie, origin: TEST_ORIGIN }, body);

beforeAll(async () => {
  await prepareTestDatabase();
  admin = await signInCookie("admin@plandesk.test");
  operator = await signInCookie("operator@plandesk.test");
});

describe("desks in the admin API", () => {
  it("lists the demo's desks with their people, agents and accounts", async () => {
    const res = await listDesks(apiRequest("GET", "/api/admin/desks", { cookie: admin }));
    expect(res.status).toBe(200);
    const desks = (await res.json()).desks as Json[];
    expect(desks.map((d) => d.id)).toEqual(["freight", "retail"]);
    expect(desks.find((d) => d.id === "retail")).toMatchObject({ name: "Retail", users: 1, agents: 1, accounts: 3 });
  });

  it("an admin creates a desk (audited); a second desk with that id or a malformed id is refused; an operator may not", async () => {
    const res = await createDesk(send("POST", "/api/admin/desks", { id: "parcel", name: "Parcel" }));
    expect(res.status).toBe(201);
    expect((await res.json()).desk).toMatchObject({ id: "parcel", name: "Parcel", users: 0, agents: 0, accounts: 0 });
    const audit = await prisma.auditEvent.findFirst({ where: { type: "admin_change" }, orderBy: { seq: "desc" } });
    expect(audit?.data).toMatchObject({ what: "desk.create", target: { kind: "desk", id: "parcel" }, after: { id: "parcel", name: "Parcel" } });
    const again = await createDesk(send("POST", "/api/admin/desks", { id: "parcel", name: "Parcel again" }));
    expect(again.status).toBe(409);
    expect((await again.json()).error.code).toBe("desk_taken");
    const bad = await createDesk(send("POST", "/api/admin/desks", { id: "Not A Slug", name: "x" }));
    expect(bad.status).toBe(400);
    expect((await createDesk(send("POST", "/api/admin/desks", { id: "ocean", name: "Ocean" }, operator))).status).toBe(403);
    expect(await prisma.desk.count({ where: { id: "ocean" } })).toBe(0);
  });

  it("a person is created on a desk and moved to another; the queue follows at once; an unknown desk is refused", async () => {
    const email = `desk-${nanoid(6).toLowerCase()}@plandesk.test`;
    const created = await createUser(send("POST", "/api/admin/users", { email, name: "Desk Mover", role: "operator", password: "a-long-password", desk: "retail" }));
    expect(created.status).toBe(201);
    const user = (await created.json()).user;
    expect(user.desk).toBe("retail");
    const cookie = await signInCookie(email, "a-long-password");
    const queueTickets = async () => ((await (await queueRoute(apiRequest("GET", "/api/runs?limit=200", { cookie }))).json()).runs as Json[]).map((r) => r.ticketId);
    expect((await queueTickets()).every((t) => t.startsWith("81"))).toBe(true);

    const moved = await updateUser(send("PATCH", `/api/admin/users/${user.id}`, { desk: "freight" }), routeCtx({ userId: user.id }));
    expect(moved.status).toBe(200);
    expect((await moved.json()).user.desk).toBe("freight");
    const audit = await prisma.auditEvent.findFirst({ where: { type: "admin_change" }, orderBy: { seq: "desc" } });
    expect(audit?.data).toMatchObject({ what: "user.update", before: { desk: "retail" }, after: { desk: "freight" } });
    const tickets = await queueTickets();
    expect(tickets.length).toBeGreaterThan(0);
    expect(tickets.some((t) => t.startsWith("81"))).toBe(false);

    const unknown = await updateUser(send("PATCH", `/api/admin/users/${user.id}`, { desk: "nowhere" }), routeCtx({ userId: user.id }));
    expect(unknown.status).toBe(422);
    expect((await unknown.json()).error.code).toBe("unknown_desk");
    const unknownCreate = await createUser(send("POST", "/api/admin/users", { email: `x${email}`, name: "Nobody", role: "operator", password: "a-long-password", desk: "nowhere" }));
    expect(unknownCreate.status).toBe(422);
  });

  it("an agent is created on a desk and assigned another: its key then reads that desk's tasks only (audited)", async () => {
    const created = await createAgent(send("POST", "/api/admin/agents", { name: "Retail helper", allowedTools: ["add_ticket_note"], desk: "retail" }));
    expect(created.status).toBe(201);
    const agent = (await created.json()).agent;
    expect(agent.desk).toBe("retail");
    const key = `pd_test_${nanoid(16)}`;
    await prisma.apiKey.create({ data: { id: `key_${nanoid(8)}`, agentId: agent.id, hash: hashApiKey(key), prefix: key.slice(0, 8) } });
    const read = (taskId: string) => taskRoute(new Request(`${TEST_ORIGIN}/api/v1/tasks/${taskId}`, { headers: { authorization: `Bearer ${key}` } }), routeCtx({ taskId }));
    expect((await read("task_retail_81001")).status).toBe(200);
    expect((await read("task_74991")).status).toBe(404);

    const moved = await updateAgent(send("PATCH", `/api/admin/agents/${agent.id}`, { desk: "freight" }), routeCtx({ agentId: agent.id }));
    expect(moved.status).toBe(200);
    expect((await moved.json()).agent.desk).toBe("freight");
    const audit = await prisma.auditEvent.findFirst({ where: { type: "admin_change" }, orderBy: { seq: "desc" } });
    expect(audit?.data).toMatchObject({ what: "agent.update", target: { kind: "agent", id: agent.id }, before: { desk: "retail" }, after: { desk: "freight" } });
    expect((await read("task_retail_81001")).status).toBe(404);
    expect((await read("task_74991")).status).toBe(200);

    const unknown = await updateAgent(send("PATCH", `/api/admin/agents/${agent.id}`, { desk: "nowhere" }), routeCtx({ agentId: agent.id }));
    expect(unknown.status).toBe(422);
    expect((await updateAgent(send("PATCH", "/api/admin/agents/agent_nope", { desk: "retail" }), routeCtx({ agentId: "agent_nope" }))).status).toBe(404);
  });
});
