/**
 * Production mode (docs/api.md "Demo desk"): with PLANDESK_DEMO=0 no demo user or key
 * exists — on a fresh database, and also after one that was seeded in demo mode before; the
 * first admin comes from `npm run admin:create` with the password from stdin, never an argument;
 * the server refuses to start without a real session secret; sessions expire after 12 hours.
 */
import { spawnSync } from "node:child_process";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { auth } from "./auth";
import { MIN_SECRET_LENGTH, startupProblem } from "../config/config";
import { prisma } from "../db/db";
import { DEMO_AGENT_KEY, DEMO_INTEGRATION_KEY, DEMO_PASSWORD, DEMO_RETAIL_AGENT_KEY, DEMO_USERS, demoDeskPresent, seedDemoDesk, seedForEnvironment } from "../demo/seed";
import { requireAgent, requireIntegration } from "./session";
import { apiRequest, signInCookie } from "../../../testing/test-auth";
import { prepareTestDatabase } from "../../../testing/test-support";

const ROOT = path.resolve(__dirname, "../../..");
const TSX = path.join(ROOT, "node_modules/.bin/tsx");
/** Runs a script of scripts/ against this test file's database, in production mode. */
function runScript(script: string, args: string[], input?: string) {
  const r = spawnSync(TSX, [path.join(ROOT, "scripts", script), ...args], {
    cwd: ROOT,
    input,
    encoding: "utf8",
    env: { ...process.env, PLANDESK_DEMO: "0", DATABASE_URL: process.env.DATABASE_URL },
    timeout: 60_000,
  });
  return { code: r.status, out: `${r.stdout}${r.stderr}` };
}
const counts = async () => ({
  users: await prisma.user.count(),
  apiKeys: await prisma.apiKey.count(),
  agents: await prisma.agent.count(),
  runs: await prisma.run.count(),
});

// One database for the whole file (the client keeps its file open): the describes run in order.
beforeAll(async () => {
  await prepareTestDatabase(new Date(), { seed: false });
});

// Each test here starts `tsx` child processes (seconds each on a busy 2-core machine).
describe("a fresh production desk", { timeout: 120_000 }, () => {
  it("`npm run db:seed` with PLANDESK_DEMO=0 creates no user, agent, key or run, and says how to make the first admin", async () => {
    const r = runScript("seed.ts", []);
    expect(r.code).toBe(0);
    expect(r.out).toContain("Demo mode is off");
    expect(r.out).toContain("npm run admin:create");
    expect(await counts()).toEqual({ users: 0, apiKeys: 0, agents: 0, runs: 0 });
    await expect(requireAgent(apiRequest("GET", "/api/v1/tasks", { key: DEMO_AGENT_KEY }))).rejects.toMatchObject({ code: "unauthorized" });
    await expect(requireAgent(apiRequest("GET", "/api/v1/tasks", { key: DEMO_RETAIL_AGENT_KEY }))).rejects.toMatchObject({ code: "unauthorized" });
    await expect(requireIntegration(apiRequest("POST", "/api/v1/tasks/task_74991/revisions", { key: DEMO_INTEGRATION_KEY }))).rejects.toMatchObject({ code: "unauthorized" });
    for (const u of DEMO_USERS) await expect(signInCookie(u.email, DEMO_PASSWORD)).rejects.toThrow(/refused/);
  });

  it("admin:create refuses a password given as an argument, and creates nothing", () => {
    const r = runScript("admin-create.ts", ["--email", "root@example.com", "--password", "a-long-password-1"]);
    expect(r.code).toBe(2);
    expect(r.out).toMatch(/Never pass a password as an argument/);
  });

  it("admin:create refuses a password under 10 characters read from stdin", async () => {
    const r = runScript("admin-create.ts", ["--email", "root@example.com"], "123456789\n");
    expect(r.code).toBe(1);
    expect(r.out).toMatch(/At least 10 characters/);
    expect(await prisma.user.count()).toBe(0);
  });

  it("admin:create makes the first admin from stdin; they can sign in; the creation is audited by the system", async () => {
    const r = runScript("admin-create.ts", ["--email", "Root@Example.com", "--name", "Rita Root"], "correct horse battery\n");
    expect(r.code).toBe(0);
    expect(r.out).toContain("Created admin root@example.com");
    const user = await prisma.user.findUniqueOrThrow({ where: { email: "root@example.com" } });
    expect(user).toMatchObject({ name: "Rita Root", role: "admin", disabled: false });
    expect(await signInCookie("root@example.com", "correct horse battery")).toContain("session_token");
    const event = await prisma.auditEvent.findFirstOrThrow({ where: { type: "admin_change" } });
    expect(event).toMatchObject({ actorKind: "system" });
    expect(event.data).toMatchObject({ what: "user.create", via: "cli", after: { email: "root@example.com", role: "admin" } });
    expect(JSON.stringify(event.data)).not.toContain("correct horse");
  });

  it("admin:create refuses an email that exists", async () => {
    const r = runScript("admin-create.ts", ["--email", "root@example.com"], "another-long-password\n");
    expect(r.code).toBe(1);
    expect(r.out).toMatch(/already exists/);
    expect(await prisma.user.count()).toBe(1);
  });

  it("a later production seed finds an admin and stays quiet about it", () => {
    const r = runScript("seed.ts", []);
    expect(r.code).toBe(0);
    expect(r.out).not.toContain("npm run admin:create");
  });
});

describe("the same database seeded in demo mode, then started with PLANDESK_DEMO=0 again", () => {
  beforeAll(async () => {
    expect(await demoDeskPresent()).toBe(false);
    await seedDemoDesk(new Date());
  });

  it("`npm start`'s seed (--if-empty) leaves a database that holds the demo desk as it is", async () => {
    expect(await demoDeskPresent()).toBe(true);
    const before = await prisma.auditEvent.count();
    const r = spawnSync(TSX, [path.join(ROOT, "scripts", "seed.ts"), "--if-empty"], { cwd: ROOT, encoding: "utf8", env: { ...process.env, PLANDESK_DEMO: "1", DATABASE_URL: process.env.DATABASE_URL }, timeout: 60_000 });
    expect(r.status).toBe(0);
    expect(`${r.stdout}${r.stderr}`).toContain("The demo desk is already in this database; left as it is");
    expect(await prisma.auditEvent.count()).toBe(before);
  }, 120_000);

  it("no demo sign-in or demo key works any more; the people stay (audit names resolve) but are disabled", async () => {
    expect(await signInCookie("operator@plandesk.test", DEMO_PASSWORD)).toContain("session_token"); // works in demo mode
    const report = await seedForEnvironment({ PLANDESK_DEMO: "0" });
    expect(report).toMatchObject({ demo: false, counts: null, adminCount: 1 }); // root@example.com, made by admin:create
    expect(report.retired!.users.sort()).toEqual(DEMO_USERS.map((u) => u.email).sort());
    expect(report.retired!.keys).toBe(3); // the demo agent keys (freight, retail) and the demo integration key
    for (const u of DEMO_USERS) await expect(signInCookie(u.email, DEMO_PASSWORD)).rejects.toThrow(/refused/);
    await expect(requireAgent(apiRequest("GET", "/api/v1/tasks", { key: DEMO_AGENT_KEY }))).rejects.toMatchObject({ code: "unauthorized" });
    await expect(requireAgent(apiRequest("GET", "/api/v1/tasks", { key: DEMO_RETAIL_AGENT_KEY }))).rejects.toMatchObject({ code: "unauthorized" });
    await expect(requireIntegration(apiRequest("POST", "/api/v1/tasks/task_74991/revisions", { key: DEMO_INTEGRATION_KEY }))).rejects.toMatchObject({ code: "unauthorized" });
    const demoIds = DEMO_USERS.map((u) => u.id);
    expect(await prisma.session.count({ where: { userId: { in: demoIds } } })).toBe(0);
    expect(await prisma.authAccount.count({ where: { userId: { in: demoIds } } })).toBe(0);
    expect(await prisma.grant.count()).toBe(0);
    expect((await prisma.user.findMany({ where: { disabled: false } })).map((u) => u.email)).toEqual(["root@example.com"]);
  });
});

describe("server start and sessions", () => {
  it("refuses to start in production mode without BETTER_AUTH_SECRET, or with a short one, saying what to do", () => {
    expect(startupProblem({ PLANDESK_DEMO: "0" })).toMatch(/BETTER_AUTH_SECRET.*openssl rand/);
    expect(startupProblem({ PLANDESK_DEMO: "0", BETTER_AUTH_SECRET: "   " })).toMatch(/needs BETTER_AUTH_SECRET/);
    expect(startupProblem({ PLANDESK_DEMO: "0", BETTER_AUTH_SECRET: "x".repeat(MIN_SECRET_LENGTH - 1) })).toMatch(/at least 32/);
    expect(startupProblem({ PLANDESK_DEMO: "0", BETTER_AUTH_SECRET: "x".repeat(MIN_SECRET_LENGTH) })).toBeNull();
  });

  it("demo mode starts without a secret (the fixed demo secret)", () => {
    expect(startupProblem({})).toBeNull();
    expect(startupProblem({ PLANDESK_DEMO: "1" })).toBeNull();
  });

  it("sessions are database sessions that expire after 12 hours (no cookie cache)", async () => {
    expect(auth.options.session?.expiresIn).toBe(12 * 60 * 60);
    expect(auth.options.session?.cookieCache?.enabled).toBe(false);
    const before = Date.now();
    await signInCookie("root@example.com", "correct horse battery");
    const root = await prisma.user.findUniqueOrThrow({ where: { email: "root@example.com" } });
    const s = await prisma.session.findFirstOrThrow({ where: { userId: root.id }, orderBy: { createdAt: "desc" } });
    const hours = (s.expiresAt.getTime() - before) / 3_600_000;
    expect(hours).toBeGreaterThan(11.9);
    expect(hours).toBeLessThanOrEqual(12.01);
  });
});
