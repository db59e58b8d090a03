/**
 * Sign-in limits through the real handler: requests are built the way the
 * custom server (scripts/server.mjs) hands them to Next.js — `applyClientAddress` with the TCP
 * peer and PLANDESK_TRUSTED_PROXIES — then sent to `POST /api/auth/sign-in/email`.
 */
import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { GET, POST } from "@/app/api/auth/[...all]/route";
import { applyClientAddress, parseTrustedProxies, type TrustedProxies } from "@/lib/net/client-address.mjs";
import { listDenials } from "@/lib/server/audit/list-denials";
import { prisma } from "@/lib/server/db/db";
import { DEMO_PASSWORD } from "@/lib/server/demo/seed";
import { loadViewer } from "@/lib/server/auth/session";
import { FOREIGN_ORIGIN, TEST_ORIGIN } from "@/testing/test-auth";
import { prepareTestDatabase } from "@/testing/test-support";
import { softAuthenticator } from "@/testing/soft-authenticator";
import { relyingParty } from "@/lib/server/auth/passkey-plugin";
import { auth } from "@/lib/server/auth/auth";

// Every refused password is still hashed and compared (scrypt, by design slow): a test that signs
// in 25 times one after another needs well over the default 30 s on a busy two-core machine.
vi.setConfig({ testTimeout: 120_000 });

beforeAll(async () => {
  await prepareTestDatabase(new Date());
});

afterEach(() => {
  delete process.env.PLANDESK_SIGNIN_LIMIT;
  delete process.env.PLANDESK_SIGNIN_ACCOUNT_LIMIT;
  delete process.env.PLANDESK_SIGNIN_ACCOUNT_GLOBAL_LIMIT;
});

const NO_PROXIES = parseTrustedProxies("");

/** A sign-in as it reaches Next.js through the custom server from `peer` (the client also claims an address of its own). */
function signIn(email: string, password: string | undefined, opts: { peer: string; xff?: string; trusted?: TrustedProxies; origin?: string | null }) {
  const headers: Record<string, string> = { "content-type": "application/json", "x-plandesk-client-ip": "6.6.6.6" };
  const origin = opts.origin === undefined ? TEST_ORIGIN : opts.origin;
  if (origin !== null) headers.origin = origin;
  if (opts.xff) headers["x-forwarded-for"] = opts.xff;
  const node = { socket: { remoteAddress: opts.peer }, headers: headers as Record<string, string | string[] | undefined> };
  applyClientAddress(node, opts.trusted ?? NO_PROXIES);
  return POST(new Request(`${TEST_ORIGIN}/api/auth/sign-in/email`, { method: "POST", headers: node.headers as Record<string, string>, body: JSON.stringify({ email, password }) }));
}

const lastSeq = async () => (await prisma.auditEvent.findFirst({ orderBy: { seq: "desc" }, select: { seq: true } }))?.seq ?? 0;
const lockoutsSince = async (seq: number) =>
  (await prisma.auditEvent.findMany({ where: { type: "denied", seq: { gt: seq } }, orderBy: { seq: "asc" } })).filter((e) => (e.data as { action?: string }).action === "sign_in");

describe("sign-in limits per address (the socket's, not X-Forwarded-For's)", () => {
  it("25 wrong passwords, then 60 more each with a new X-Forwarded-For: still 429; the right password from a new header value is refused while limited", async () => {
    process.env.PLANDESK_SIGNIN_LIMIT = "20";
    process.env.PLANDESK_SIGNIN_ACCOUNT_LIMIT = "1000"; // this case is about the address
    const before = await lastSeq();
    const statuses: number[] = [];
    for (let i = 1; i <= 25; i++) statuses.push((await signIn("operator@plandesk.test", `wrong-${i}`, { peer: "203.0.113.7" })).status);
    expect(statuses.slice(0, 20)).toEqual(Array(20).fill(401));
    expect(statuses.slice(20)).toEqual(Array(5).fill(429));

    for (let n = 1; n <= 60; n++) {
      const res = await signIn("operator@plandesk.test", `wrong-x-${n}`, { peer: "203.0.113.7", xff: `10.0.0.${n}` });
      expect(res.status).toBe(429);
      const retry = Number(res.headers.get("retry-after"));
      expect(retry).toBeGreaterThanOrEqual(1);
      expect(retry).toBeLessThanOrEqual(60);
    }
    const right = await signIn("operator@plandesk.test", DEMO_PASSWORD, { peer: "203.0.113.7", xff: "10.0.0.99" });
    expect(right.status).toBe(429);
    expect(right.headers.getSetCookie().some((c) => c.includes("session_token"))).toBe(false);
    const body = (await right.json()) as { error: { code: string; message: string } };
    expect(body.error.code).toBe("rate_limited");
    expect(body.error.message).toMatch(/Too many sign-in attempts/);

    // one lockout, on the record once, naming the address and the email
    const lockouts = await lockoutsSince(before);
    expect(lockouts).toHaveLength(1);
    expect(lockouts[0]).toMatchObject({ actorKind: "anonymous", actorId: null });
    expect(lockouts[0].data).toMatchObject({ code: "rate_limited", scope: "address", address: "203.0.113.7", email: "operator@plandesk.test" });

    // another address is not affected
    expect((await signIn("operator@plandesk.test", DEMO_PASSWORD, { peer: "203.0.113.8" })).status).toBe(200);
  });

  it("admins and supervisors see the lockout on the denials page's list", async () => {
    const supervisor = (await loadViewer("usr_supervisor"))!;
    const { rows } = await listDenials(supervisor);
    const row = rows.find((r) => r.action === "sign_in");
    expect(row).toBeDefined();
    expect(row!.actor.name).toBe("unidentified caller");
    expect(row!.code).toBe("rate_limited");
    expect(row!.missing).toMatch(/fewer sign-in attempts/);
  });
});

describe("sign-in limits per account and address: a stranger cannot lock a person out", () => {
  it("11 wrong passwords from address A lock A out of the account (the right password too); the same person signs in from address B; the lock ends with its window", async () => {
    process.env.PLANDESK_SIGNIN_LIMIT = "1000";
    process.env.PLANDESK_SIGNIN_ACCOUNT_LIMIT = "10";
    const before = await lastSeq();
    const statuses: number[] = [];
    for (let i = 1; i <= 11; i++) statuses.push((await signIn("senior@plandesk.test", `wrong-${i}`, { peer: "198.51.100.1" })).status);
    expect(statuses).toEqual([...Array(10).fill(401), 429]);
    const locked = await signIn("Senior@Plandesk.test", DEMO_PASSWORD, { peer: "198.51.100.1" });
    expect(locked.status).toBe(429);
    expect(Number(locked.headers.get("retry-after"))).toBeGreaterThan(60);

    const lockouts = await lockoutsSince(before);
    expect(lockouts).toHaveLength(1);
    expect(lockouts[0].data).toMatchObject({ scope: "account", email: "senior@plandesk.test", address: "198.51.100.1", windowSeconds: 900, limit: 10 });

    // the same person from another address is not locked out
    expect((await signIn("senior@plandesk.test", DEMO_PASSWORD, { peer: "198.51.100.2" })).status).toBe(200);
    // other accounts from address A are not affected
    expect((await signIn("supervisor@plandesk.test", DEMO_PASSWORD, { peer: "198.51.100.1" })).status).toBe(200);

    // the window ends (moved 15 minutes into the past): A signs in again
    await prisma.signInLimit.update({ where: { key: "account:senior@plandesk.test|address:198.51.100.1" }, data: { windowStart: new Date(Date.now() - 15 * 60 * 1000 - 1000) } });
    expect((await signIn("senior@plandesk.test", DEMO_PASSWORD, { peer: "198.51.100.1" })).status).toBe(200);
  });

  it("a person locked out of the password path still signs in with their passkey: the lock is on passwords only", async () => {
    process.env.PLANDESK_SIGNIN_LIMIT = "1000";
    process.env.PLANDESK_SIGNIN_ACCOUNT_LIMIT = "3";
    const peer = "198.51.100.40";
    const statuses: number[] = [];
    for (let i = 1; i <= 4; i++) statuses.push((await signIn("supervisor@plandesk.test", `wrong-${i}`, { peer })).status);
    expect(statuses).toEqual([401, 401, 401, 429]);
    expect((await signIn("supervisor@plandesk.test", DEMO_PASSWORD, { peer })).status).toBe(429);

    const supervisor = await prisma.user.findUniqueOrThrow({ where: { email: "supervisor@plandesk.test" } });
    const key = softAuthenticator();
    await key.register(supervisor.id);
    // As the browser does from the same address: the options (with the challenge cookie), then the assertion.
    const node = (headers: Record<string, string>) => {
      const n = { socket: { remoteAddress: peer }, headers: { origin: TEST_ORIGIN, ...headers } as Record<string, string | string[] | undefined> };
      applyClientAddress(n, NO_PROXIES);
      return n.headers as Record<string, string>;
    };
    const options = await GET(new Request(`${TEST_ORIGIN}/api/auth/passkey/generate-authenticate-options`, { headers: node({}) }));
    expect(options.status).toBe(200);
    const { challenge } = (await options.json()) as { challenge: string };
    const challengeCookie = options.headers.getSetCookie().map((c) => c.split(";")[0]).join("; ");
    const verified = await POST(
      new Request(`${TEST_ORIGIN}/api/auth/passkey/verify-authentication`, {
        method: "POST",
        headers: node({ "content-type": "application/json", cookie: challengeCookie }),
        body: JSON.stringify({ response: key.assert(challenge, relyingParty()) }),
      }),
    );
    expect(verified.status, await verified.clone().text()).toBe(200);
    const sessionCookie = verified.headers.getSetCookie().map((c) => c.split(";")[0]).join("; ");
    const session = await auth.api.getSession({ headers: new Headers({ cookie: sessionCookie }) });
    expect(session?.user.id).toBe(supervisor.id);
    // … while the password path stays locked for that address
    expect((await signIn("supervisor@plandesk.test", DEMO_PASSWORD, { peer })).status).toBe(429);
  });

  it("wrong passwords sent with a foreign Origin are refused 403 cross_origin before the password check and do not count against the account", async () => {
    process.env.PLANDESK_SIGNIN_LIMIT = "1000";
    process.env.PLANDESK_SIGNIN_ACCOUNT_LIMIT = "2";
    for (let i = 1; i <= 6; i++) {
      const res = await signIn("operator@plandesk.test", `wrong-${i}`, { peer: "198.51.100.30", origin: FOREIGN_ORIGIN });
      expect(res.status).toBe(403);
      expect(((await res.json()) as { error: { code: string } }).error.code).toBe("cross_origin");
    }
    // even the right password from a foreign Origin is refused, and not counted either
    expect((await signIn("operator@plandesk.test", DEMO_PASSWORD, { peer: "198.51.100.30", origin: FOREIGN_ORIGIN })).status).toBe(403);
    expect(await prisma.signInLimit.findUnique({ where: { key: "account:operator@plandesk.test|address:198.51.100.30" } })).toBeNull();
    expect((await signIn("operator@plandesk.test", DEMO_PASSWORD, { peer: "198.51.100.30" })).status).toBe(200);
  });

  it("a sign-in without an Origin header is refused 403 cross_origin, the right password too, and does not count against the account", async () => {
    process.env.PLANDESK_SIGNIN_LIMIT = "1000";
    process.env.PLANDESK_SIGNIN_ACCOUNT_LIMIT = "2";
    for (let i = 1; i <= 4; i++) {
      const res = await signIn("operator@plandesk.test", `wrong-${i}`, { peer: "198.51.100.31", origin: null });
      expect(res.status).toBe(403);
      expect(((await res.json()) as { error: { code: string } }).error.code).toBe("cross_origin");
    }
    const right = await signIn("operator@plandesk.test", DEMO_PASSWORD, { peer: "198.51.100.31", origin: null });
    expect(right.status).toBe(403);
    expect(right.headers.getSetCookie().some((c) => c.includes("session_token"))).toBe(false);
    expect((await signIn("operator@plandesk.test", DEMO_PASSWORD, { peer: "198.51.100.31" })).status).toBe(200);
  });

  it("a malformed body (no password) does not count against the account", async () => {
    process.env.PLANDESK_SIGNIN_LIMIT = "1000";
    process.env.PLANDESK_SIGNIN_ACCOUNT_LIMIT = "2";
    for (let i = 1; i <= 4; i++) expect((await signIn("operator@plandesk.test", undefined, { peer: "198.51.100.32" })).status).toBe(400);
    expect((await signIn("operator@plandesk.test", DEMO_PASSWORD, { peer: "198.51.100.32" })).status).toBe(200);
  });

  it("the slower bound across all addresses: PLANDESK_SIGNIN_ACCOUNT_GLOBAL_LIMIT failed passwords from different addresses lock the account for its hour", async () => {
    process.env.PLANDESK_SIGNIN_LIMIT = "1000";
    process.env.PLANDESK_SIGNIN_ACCOUNT_LIMIT = "10";
    process.env.PLANDESK_SIGNIN_ACCOUNT_GLOBAL_LIMIT = "5";
    const before = await lastSeq();
    for (let i = 1; i <= 5; i++) expect((await signIn("distributed@example.com", `wrong-${i}`, { peer: `198.51.100.${40 + i}` })).status).toBe(401);
    const res = await signIn("distributed@example.com", "wrong-6", { peer: "198.51.100.60" });
    expect(res.status).toBe(429);
    expect(Number(res.headers.get("retry-after"))).toBeGreaterThan(15 * 60);
    const lockouts = await lockoutsSince(before);
    expect(lockouts).toHaveLength(1);
    expect(lockouts[0].data).toMatchObject({ scope: "account_all_addresses", email: "distributed@example.com", limit: 5, windowSeconds: 3600 });
    // the refusal by the global bound did not count against that address's own pair
    expect((await prisma.signInLimit.findUnique({ where: { key: "account:distributed@example.com|address:198.51.100.60" } }))?.attempts ?? 0).toBe(0);
  });

  it("a stranger filling the all-address bound does not keep the person out from an address they signed in from", async () => {
    process.env.PLANDESK_SIGNIN_LIMIT = "1000";
    process.env.PLANDESK_SIGNIN_ACCOUNT_LIMIT = "10";
    process.env.PLANDESK_SIGNIN_ACCOUNT_GLOBAL_LIMIT = "5";
    await prisma.signInLimit.deleteMany({ where: { key: { startsWith: "account:senior@plandesk.test" } } }); // earlier tests' guesses
    // the senior signs in from the office today
    expect((await signIn("senior@plandesk.test", DEMO_PASSWORD, { peer: "192.0.2.77" })).status).toBe(200);
    // a stranger spreads wrong passwords over five addresses: the bound across addresses is full
    for (let i = 1; i <= 5; i++) expect((await signIn("senior@plandesk.test", `guess-${i}`, { peer: `198.51.100.${140 + i}` })).status).toBe(401);
    expect((await signIn("senior@plandesk.test", "guess-6", { peer: "198.51.100.160" })).status).toBe(429);
    // ...and a new address of the stranger's is refused too, but the office still signs in
    expect((await signIn("senior@plandesk.test", DEMO_PASSWORD, { peer: "198.51.100.161" })).status).toBe(429);
    expect((await signIn("senior@plandesk.test", DEMO_PASSWORD, { peer: "192.0.2.77" })).status).toBe(200);
  });

  it("successful sign-ins do not count against the account", async () => {
    process.env.PLANDESK_SIGNIN_LIMIT = "1000";
    process.env.PLANDESK_SIGNIN_ACCOUNT_LIMIT = "3";
    for (let i = 0; i < 6; i++) expect((await signIn("admin@plandesk.test", DEMO_PASSWORD, { peer: "192.0.2.10" })).status).toBe(200);
    expect((await signIn("admin@plandesk.test", "wrong", { peer: "192.0.2.10" })).status).toBe(401);
  });

  it("an account that does not exist is limited the same way (a 429 reveals nothing)", async () => {
    process.env.PLANDESK_SIGNIN_LIMIT = "1000";
    process.env.PLANDESK_SIGNIN_ACCOUNT_LIMIT = "2";
    const statuses: number[] = [];
    for (let i = 0; i < 3; i++) statuses.push((await signIn("nobody@example.com", "wrong-password", { peer: "192.0.2.20" })).status);
    expect(statuses).toEqual([401, 401, 429]);
  });

  it("parallel wrong passwords cannot slip past the limit", async () => {
    process.env.PLANDESK_SIGNIN_LIMIT = "1000";
    process.env.PLANDESK_SIGNIN_ACCOUNT_LIMIT = "5";
    const results = await Promise.all(Array.from({ length: 15 }, (_, i) => signIn("parallel@example.com", `wrong-${i}`, { peer: "192.0.2.100" })));
    const statuses = results.map((r) => r.status).sort();
    expect(statuses.filter((s) => s === 401)).toHaveLength(5);
    expect(statuses.filter((s) => s === 429)).toHaveLength(10);
  });
});

describe("behind trusted proxies (PLANDESK_TRUSTED_PROXIES)", () => {
  const trusted = parseTrustedProxies("127.0.0.1, 10.0.0.0/8");

  it("each client behind the proxy has its own address limit", async () => {
    process.env.PLANDESK_SIGNIN_LIMIT = "20";
    process.env.PLANDESK_SIGNIN_ACCOUNT_LIMIT = "1000";
    for (let i = 1; i <= 25; i++) {
      const res = await signIn("operator@plandesk.test", "wrong", { peer: "127.0.0.1", xff: `198.18.0.${i}, 10.1.1.1`, trusted });
      expect(res.status).toBe(401);
    }
  });

  it("a client cannot escape by prepending addresses: the right-most untrusted entry counts", async () => {
    process.env.PLANDESK_SIGNIN_LIMIT = "20";
    process.env.PLANDESK_SIGNIN_ACCOUNT_LIMIT = "1000";
    const statuses: number[] = [];
    for (let i = 1; i <= 22; i++) statuses.push((await signIn("operator@plandesk.test", "wrong", { peer: "127.0.0.1", xff: `172.16.0.${i}, 198.18.1.50, 10.0.0.1`, trusted })).status);
    expect(statuses.slice(0, 20)).toEqual(Array(20).fill(401));
    expect(statuses.slice(20)).toEqual([429, 429]);
  });

  it("X-Forwarded-For from a peer that is not a trusted proxy is ignored", async () => {
    process.env.PLANDESK_SIGNIN_LIMIT = "3";
    process.env.PLANDESK_SIGNIN_ACCOUNT_LIMIT = "1000";
    const statuses: number[] = [];
    for (let i = 1; i <= 4; i++) statuses.push((await signIn("operator@plandesk.test", "wrong", { peer: "203.0.113.99", xff: `198.18.2.${i}`, trusted })).status);
    expect(statuses).toEqual([401, 401, 401, 429]);
  });
});
