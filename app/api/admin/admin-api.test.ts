/**
 * Admin flows through the route handlers with real sessions: create a person, set
 * their grants (and see the ceilings decide approving and authoring at the boundary), disable
 * them (sessions end at once), agents and API keys (shown once, stored hashed, work, revoked → 401).
 * Every admin change is audited as `admin_change` with before/after.
 */
import { nanoid } from "nanoid";
import { beforeAll, describe, expect, it } from "vitest";
import { DEMO_AGENT_TOOLS } from "@/lib/demo/desk-data";
import { hashApiKey } from "@/lib/server/auth/api-keys";
import { prisma } from "@/lib/server/db/db";
import { submitRun } from "@/lib/server/runs/submit-run";
import { type RunView } from "@/lib/server/plans/run-view";
import { DEMO_AGENT_ID } from "@/lib/server/demo/seed";
import { apiRequest, routeCtx, signInCookie, TEST_ORIGIN, type Credentials } from "@/testing/test-auth";
import { prepareTestDatabase, withRequiredReasons } from "@/testing/test-support";
import { POST as approveRoute } from "../runs/[runId]/approvals/route";
import { POST as editRoute } from "../runs/[runId]/edits/route";
import { GET as listRunsRoute } from "../runs/route";
import { GET as listTasksRoute } from "../v1/tasks/route";
import { POST as submitRunRoute } from "../v1/tasks/[taskId]/runs/route";
import { POST as revokeRoute } from "./agents/[agentId]/keys/[keyId]/revoke/route";
import { POST as createKeyRoute } from "./agents/[agentId]/keys/route";
import { GET as listAgentsRoute, POST as createAgentRoute } from "./agents/route";
import { PUT as grantRoute } from "./users/[userId]/grants/[tool]/route";
import { GET as userRoute, PATCH as patchUserRoute } from "./users/[userId]/route";
import { GET as listUsersRoute, POST as createUserRoute } from "./users/route";

type Json = Record<string, any>;
const SEED_NOW = new Date();
let admin: Credentials;

async function send(handler: (req: Request, ctx: never) => Promise<Response>, method: string, path: string, creds: Credentials, body?: unknown, params: Record<string, string> = {}) {
  const res = await handler(apiRequest(method, path, creds, body), routeCtx(params) as never);
  const text = await res.text();
  return { status: res.status, body: (text ? JSON.parse(text) : {}) as Json };
}
const adminChanges = (what: string) => prisma.auditEvent.findMany({ where: { type: "admin_change" }, orderBy: { seq: "asc" } }).then((es) => es.filter((e) => (e.data as Json).what === what));

beforeAll(async () => {
  await prepareTestDatabase(SEED_NOW);
  admin = { cookie: await signInCookie("admin@plandesk.test"), origin: TEST_ORIGIN };
});

describe("people", () => {
  const email = "gina.grant@example.com";
  const password = "gina-initial-pass";
  let userId = "";
  let gina: Credentials;

  it("an admin creates a user with a role and an initial password; audited without the password", async () => {
    const res = await send(createUserRoute, "POST", "/api/admin/users", admin, { email: "Gina.Grant@Example.com ", name: "Gina Grant", role: "operator", password });
    expect(res.status).toBe(201);
    expect(res.body.user).toMatchObject({ email, name: "Gina Grant", role: "operator", disabled: false, grantCount: 0 });
    userId = res.body.user.id;
    const [event] = (await adminChanges("user.create")).filter((e) => (e.data as Json).target.id === userId);
    expect(event).toMatchObject({ actorKind: "user", actorId: "usr_admin" });
    expect(event.data).toMatchObject({ before: null, after: { email, role: "operator", disabled: false } });
    expect(JSON.stringify(event.data)).not.toContain(password);
    const account = await prisma.authAccount.findFirstOrThrow({ where: { userId, providerId: "credential" } });
    expect(account.password).not.toContain(password); // hashed by better-auth
    gina = { cookie: await signInCookie(email, password), origin: TEST_ORIGIN };
    expect((await send(listRunsRoute, "GET", "/api/runs", gina)).status).toBe(200);
  });

  it("refuses a taken email (409 email_taken) and a short password (400 on the field); nothing created", async () => {
    const before = await prisma.user.count();
    const dup = await send(createUserRoute, "POST", "/api/admin/users", admin, { email: "operator@plandesk.test", name: "Dup", role: "operator", password: "long-enough-1" });
    expect(dup.status).toBe(409);
    expect(dup.body.error.code).toBe("email_taken");
    const short = await send(createUserRoute, "POST", "/api/admin/users", admin, { email: "short@example.com", name: "Short", role: "operator", password: "123456789" });
    expect(short.status).toBe(400);
    expect(short.body.error.issues).toEqual([expect.objectContaining({ path: "password" })]);
    const role = await send(createUserRoute, "POST", "/api/admin/users", admin, { email: "role@example.com", name: "Role", role: "root", password: "long-enough-1" });
    expect(role.status).toBe(400);
    expect(await prisma.user.count()).toBe(before);
  });

  describe("grants decide approving and authoring, at the ceiling and one minor unit above", () => {
    const FJORD = "task_75016";
    const agent = { id: DEMO_AGENT_ID, name: "Freight desk agent", allowedTools: [...DEMO_AGENT_TOOLS], keyId: "key_demo" };
    const note = { id: "s_note", tool: "add_ticket_note", args: { ticketId: "75016", note: "Goodwill." } };
    const refund = (minor: number) => ({ tool: "issue_refund", args: { invoiceId: "in_74401", amount: { minor, currency: "USD" }, reason: "Goodwill" } });
    const freshRun = async (steps: unknown[]): Promise<RunView> => {
      const task = await prisma.task.findUniqueOrThrow({ where: { id: FJORD } });
      return (await submitRun(agent, FJORD, { taskRevision: task.revision, steps: withRequiredReasons(steps) as never }, null)).run;
    };
    const approve = async (minor: number) => {
      const run = await freshRun([note, { id: "s_refund", ...refund(minor) }]);
      return send(approveRoute, "POST", `/api/runs/${run.id}/approvals`, gina, { planVersion: 1, stepIds: ["s_refund"], idempotencyKey: nanoid() }, { runId: run.id });
    };
    const author = async (minor: number) => {
      const run = await freshRun([note]);
      const steps = [...run.steps.map((s) => ({ id: s.id, tool: s.tool, args: s.args })), ...withRequiredReasons([{ id: "added", ...refund(minor) }])];
      return send(editRoute, "POST", `/api/runs/${run.id}/edits`, gina, { baseVersion: 1, steps }, { runId: run.id });
    };
    const putGrant = (tool: string, body: unknown) => send(grantRoute, "PUT", `/api/admin/users/${userId}/grants/${tool}`, admin, body, { userId, tool });

    it("without a grant she can do neither", async () => {
      expect((await approve(100)).body.error.code).toBe("approval_denied");
      expect((await author(100)).body.error.code).toBe("authorship_denied");
    });

    it("the admin sets issue_refund: approve up to 123.45, author up to 100.00 (audited before → after)", async () => {
      const res = await putGrant("issue_refund", { canApprove: true, approveLimit: { minor: 12345, currency: "USD" }, canAuthor: true, authorLimit: { minor: 10000, currency: "USD" } });
      expect(res.status).toBe(200);
      expect(res.body.grant).toMatchObject({ tool: "issue_refund", canApprove: true, approveLimit: { minor: 12345, currency: "USD" }, canAuthor: true, authorLimit: { minor: 10000, currency: "USD" } });
      const [event] = (await adminChanges("grant.set")).filter((e) => (e.data as Json).userId === userId);
      expect(event.data).toMatchObject({ tool: "issue_refund", before: null, after: { canApprove: true, approveLimit: { minor: 12345 } } });
      const detail = await send(userRoute, "GET", `/api/admin/users/${userId}`, admin, undefined, { userId });
      expect(detail.body.grants.find((g: Json) => g.tool === "issue_refund")).toMatchObject({ canApprove: true, canAuthor: true });
    });

    it("approves exactly 123.45; refused at 123.46", async () => {
      expect((await approve(12345)).status).toBe(201);
      const over = await approve(12346);
      expect(over.status).toBe(403);
      expect(over.body.error).toMatchObject({ code: "approval_denied", denial: { code: "over_limit", limit: { minor: 12345 } } });
    });

    it("authors exactly 100.00; refused at 100.01", async () => {
      expect((await author(10000)).status).toBe(201);
      const over = await author(10001);
      expect(over.status).toBe(403);
      expect(over.body.error.code).toBe("authorship_denied");
    });

    it("refuses a ceiling on a tool that moves no money, and an unknown tool (400)", async () => {
      const note = await putGrant("add_ticket_note", { canApprove: true, approveLimit: { minor: 1, currency: "USD" }, canAuthor: false, authorLimit: null });
      expect(note.status).toBe(400);
      const unknown = await putGrant("launch_rocket", { canApprove: true, approveLimit: null, canAuthor: false, authorLimit: null });
      expect(unknown.status).toBe(400);
    });

    it("both permissions off removes the grant (audited); approving is refused again", async () => {
      const res = await putGrant("issue_refund", { canApprove: false, approveLimit: null, canAuthor: false, authorLimit: null });
      expect(res.status).toBe(200);
      expect(await prisma.grant.count({ where: { userId, tool: "issue_refund" } })).toBe(0);
      const events = (await adminChanges("grant.set")).filter((e) => (e.data as Json).userId === userId);
      expect(events.at(-1)!.data).toMatchObject({ after: null, before: { canApprove: true } });
      expect((await approve(100)).body.error.code).toBe("approval_denied");
    });
  });

  it("disabling ends her sessions at once: the next request is 401 and she cannot sign in; enabling lets her back", async () => {
    const second = { cookie: await signInCookie(email, password), origin: TEST_ORIGIN };
    expect(await prisma.session.count({ where: { userId } })).toBe(2);
    const res = await send(patchUserRoute, "PATCH", `/api/admin/users/${userId}`, admin, { disabled: true }, { userId });
    expect(res.status).toBe(200);
    expect(res.body.user).toMatchObject({ disabled: true, activeSessions: 0 });
    expect(await prisma.session.count({ where: { userId } })).toBe(0);
    for (const c of [gina, second]) expect((await send(listRunsRoute, "GET", "/api/runs", c)).status).toBe(401);
    await expect(signInCookie(email, password)).rejects.toThrow(/refused/);
    const [event] = (await adminChanges("user.update")).filter((e) => (e.data as Json).target.id === userId);
    expect(event.data).toMatchObject({ before: { disabled: false }, after: { disabled: true }, sessionsEnded: 2 });

    expect((await send(patchUserRoute, "PATCH", `/api/admin/users/${userId}`, admin, { disabled: false }, { userId })).status).toBe(200);
    const back = { cookie: await signInCookie(email, password), origin: TEST_ORIGIN };
    expect((await send(listRunsRoute, "GET", "/api/runs", back)).status).toBe(200);
  });

  it("the last active admin cannot be demoted or disabled (409 last_admin); nothing changes", async () => {
    for (const body of [{ role: "operator" }, { disabled: true }]) {
      const res = await send(patchUserRoute, "PATCH", "/api/admin/users/usr_admin", admin, body, { userId: "usr_admin" });
      expect(res.status).toBe(409);
      expect(res.body.error.code).toBe("last_admin");
    }
    expect(await prisma.user.findUniqueOrThrow({ where: { id: "usr_admin" } })).toMatchObject({ role: "admin", disabled: false });
    expect((await send(listUsersRoute, "GET", "/api/admin/users", admin)).status).toBe(200);
  });

  it("a role change takes effect on the next request (no cached role)", async () => {
    const res = await send(patchUserRoute, "PATCH", `/api/admin/users/${userId}`, admin, { role: "admin" }, { userId });
    expect(res.status).toBe(200);
    const gina2 = { cookie: await signInCookie(email, password), origin: TEST_ORIGIN };
    expect((await send(listUsersRoute, "GET", "/api/admin/users", gina2)).status).toBe(200);
    await send(patchUserRoute, "PATCH", `/api/admin/users/${userId}`, admin, { role: "operator" }, { userId });
    expect((await send(listUsersRoute, "GET", "/api/admin/users", gina2)).status).toBe(403);
  });
});

describe("agents and API keys", () => {
  let agentId = "";
  let key = "";
  let keyId = "";
  const agentCreds = () => ({ key });

  it("an admin creates an agent with an allowlist (audited)", async () => {
    const res = await send(createAgentRoute, "POST", "/api/admin/agents", admin, { name: "Notes bot", allowedTools: ["add_ticket_note", "escalate_ticket", "add_ticket_note"] });
    expect(res.status).toBe(201);
    expect(res.body.agent).toMatchObject({ name: "Notes bot", allowedTools: ["add_ticket_note", "escalate_ticket"], keys: [] });
    agentId = res.body.agent.id;
    expect((await adminChanges("agent.create")).some((e) => (e.data as Json).target.id === agentId)).toBe(true);
    const bad = await send(createAgentRoute, "POST", "/api/admin/agents", admin, { name: "Nothing bot", allowedTools: [] });
    expect(bad.status).toBe(400);
  });

  it("creates a key shown once: stored as its SHA-256 only, never listed again, never in the audit log", async () => {
    const res = await send(createKeyRoute, "POST", `/api/admin/agents/${agentId}/keys`, admin, undefined, { agentId });
    expect(res.status).toBe(201);
    key = res.body.key;
    keyId = res.body.apiKey.id;
    expect(key).toMatch(/^pd_[A-Za-z0-9_-]{32}$/);
    expect(res.body.apiKey.prefix).toBe(key.slice(0, 10));
    const row = await prisma.apiKey.findUniqueOrThrow({ where: { id: keyId } });
    expect(row.hash).toBe(hashApiKey(key));
    expect(JSON.stringify(row)).not.toContain(key);
    const list = await send(listAgentsRoute, "GET", "/api/admin/agents", admin);
    expect(JSON.stringify(list.body)).not.toContain(key);
    expect(list.body.agents.find((a: Json) => a.id === agentId).keys).toEqual([expect.objectContaining({ id: keyId, revokedAt: null })]);
    const events = await prisma.auditEvent.findMany({ where: { type: "admin_change" } });
    expect(JSON.stringify(events.map((e) => e.data))).not.toContain(key);
  });

  it("lists agents a page at a time: every agent once across pages, oldest first", async () => {
    const all = await prisma.agent.findMany({ orderBy: [{ createdAt: "asc" }, { id: "asc" }], select: { id: true } });
    expect(all.length).toBeGreaterThan(1);
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page = await send(listAgentsRoute, "GET", `/api/admin/agents?limit=1${cursor ? `&cursor=${cursor}` : ""}`, admin);
      expect(page.status).toBe(200);
      expect(page.body.agents).toHaveLength(1);
      seen.push(page.body.agents[0].id);
      cursor = page.body.nextCursor;
    } while (cursor);
    expect(seen).toEqual(all.map((a) => a.id));
  });

  it("the key works on /api/v1, within the agent's allowlist", async () => {
    expect((await send(listTasksRoute, "GET", "/api/v1/tasks", agentCreds())).status).toBe(200);
    const task = await prisma.task.findUniqueOrThrow({ where: { id: "task_75018" } });
    const ok = await send(submitRunRoute, "POST", `/api/v1/tasks/${task.id}/runs`, agentCreds(), {
      taskRevision: task.revision,
      steps: [{ tool: "add_ticket_note", args: { ticketId: "75018", note: "New receiving contact noted." } }],
    }, { taskId: task.id });
    expect(ok.status).toBe(201);
    expect(ok.body.run.agentId).toBe(agentId);
    const outside = await send(submitRunRoute, "POST", `/api/v1/tasks/${task.id}/runs`, agentCreds(), {
      taskRevision: task.revision,
      steps: [{ tool: "send_reply", args: { ticketId: "75018", body: "Noted, thanks." } }],
    }, { taskId: task.id });
    expect(outside.status).toBe(422);
    expect(outside.body.error.issues.some((i: Json) => i.stage === "allowlist")).toBe(true);
  });

  it("revoking takes effect on the next request (401, audited with the agent); revoking again changes nothing", async () => {
    const res = await send(revokeRoute, "POST", `/api/admin/agents/${agentId}/keys/${keyId}/revoke`, admin, undefined, { agentId, keyId });
    expect(res.status).toBe(200);
    expect(res.body.apiKey.revokedAt).toEqual(expect.any(String));
    const seq = (await prisma.auditEvent.findFirst({ orderBy: { seq: "desc" } }))!.seq;
    const refused = await send(listTasksRoute, "GET", "/api/v1/tasks", agentCreds());
    expect(refused.status).toBe(401);
    const denied = await prisma.auditEvent.findMany({ where: { type: "denied", seq: { gt: seq } } });
    expect(denied).toHaveLength(1);
    expect(denied[0]).toMatchObject({ actorKind: "agent", actorId: agentId });
    expect(denied[0].data).toMatchObject({ credential: "revoked_key", keyId });
    const revokes = (await adminChanges("api_key.revoke")).length;
    expect((await send(revokeRoute, "POST", `/api/admin/agents/${agentId}/keys/${keyId}/revoke`, admin, undefined, { agentId, keyId })).status).toBe(200);
    expect((await adminChanges("api_key.revoke")).length).toBe(revokes);
    const foreign = await send(revokeRoute, "POST", `/api/admin/agents/${DEMO_AGENT_ID}/keys/${keyId}/revoke`, admin, undefined, { agentId: DEMO_AGENT_ID, keyId });
    expect(foreign.status).toBe(404);
  });

  it("a named key with an expiry: listed with its name, last use kept to the minute, refused from its expiry on (401 expired_key, audited)", async () => {
    const soon = new Date(Date.now() + 3_600_000);
    const res = await send(createKeyRoute, "POST", `/api/admin/agents/${agentId}/keys`, admin, { name: "prod executor, eu-west", expiresAt: soon.toISOString() }, { agentId });
    expect(res.status).toBe(201);
    expect(res.body.apiKey).toMatchObject({ name: "prod executor, eu-west", expiresAt: soon.toISOString(), lastUsedAt: null });
    const named = res.body.key as string;
    const namedId = res.body.apiKey.id as string;
    const created = (await adminChanges("api_key.create")).find((e) => (e.data as Json).target.id === namedId);
    expect((created!.data as Json).after).toMatchObject({ name: "prod executor, eu-west", expiresAt: soon.toISOString() });

    // used: the last use is written once, not on every request
    expect((await send(listTasksRoute, "GET", "/api/v1/tasks", { key: named })).status).toBe(200);
    const first = (await prisma.apiKey.findUniqueOrThrow({ where: { id: namedId } })).lastUsedAt;
    expect(first).not.toBeNull();
    expect((await send(listTasksRoute, "GET", "/api/v1/tasks", { key: named })).status).toBe(200);
    expect((await prisma.apiKey.findUniqueOrThrow({ where: { id: namedId } })).lastUsedAt).toEqual(first);
    const listed = (await send(listAgentsRoute, "GET", "/api/admin/agents", admin)).body.agents.find((a: Json) => a.id === agentId).keys.find((k: Json) => k.id === namedId);
    expect(listed).toMatchObject({ name: "prod executor, eu-west", lastUsedAt: first!.toISOString() });

    // expired: refused at once, with the reason, audited as the agent
    await prisma.apiKey.update({ where: { id: namedId }, data: { expiresAt: new Date(Date.now() - 1000) } });
    const seq = (await prisma.auditEvent.findFirst({ orderBy: { seq: "desc" } }))!.seq;
    const refused = await send(listTasksRoute, "GET", "/api/v1/tasks", { key: named });
    expect(refused.status).toBe(401);
    expect(refused.body.error.message).toMatch(/expired at/);
    const denied = await prisma.auditEvent.findMany({ where: { type: "denied", seq: { gt: seq } } });
    expect(denied).toHaveLength(1);
    expect(denied[0]).toMatchObject({ actorKind: "agent", actorId: agentId });
    expect(denied[0].data).toMatchObject({ credential: "expired_key", keyId: namedId });
  });

  it("a key whose expiry is not in the future, or whose name is blank, is refused and nothing is made", async () => {
    const before = await prisma.apiKey.count({ where: { agentId } });
    const past = await send(createKeyRoute, "POST", `/api/admin/agents/${agentId}/keys`, admin, { name: "late", expiresAt: new Date(Date.now() - 60_000).toISOString() }, { agentId });
    expect(past.status).toBe(422);
    expect(past.body.error.code).toBe("validation_failed");
    expect(past.body.error.issues).toEqual([expect.objectContaining({ path: "expiresAt" })]);
    const blank = await send(createKeyRoute, "POST", `/api/admin/agents/${agentId}/keys`, admin, { name: "  " }, { agentId });
    expect(blank.status).toBe(400);
    const notTime = await send(createKeyRoute, "POST", `/api/admin/agents/${agentId}/keys`, admin, { expiresAt: "next tuesday" }, { agentId });
    expect(notTime.status).toBe(400);
    expect(await prisma.apiKey.count({ where: { agentId } })).toBe(before);
  });

  it("every admin change above is on the record as admin_change by the admin", async () => {
    const events = await prisma.auditEvent.findMany({ where: { type: "admin_change" } });
    const whats = new Set(events.map((e) => (e.data as Json).what));
    for (const w of ["user.create", "user.update", "grant.set", "agent.create", "api_key.create", "api_key.revoke"]) expect(whats).toContain(w);
    expect(events.every((e) => e.actorKind === "user" && e.actorId === "usr_admin")).toBe(true);
  });
});
