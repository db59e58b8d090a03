/**
 * Single sign-on through a desk's OpenID Connect provider (route level and better-auth's own
 * handler, SQLite and PostgreSQL; docs/api-extensions.md "Single sign-on (OIDC)"), against a real
 * OIDC provider started for this file (testing/oidc-test-provider.ts: discovery, JWKS, signed ID
 * tokens, PKCE, refresh). Outside demo mode (PLANDESK_DEMO=0 with a real PLANDESK_SECRETS_KEY), on
 * the retail desk (not the demo's): an admin registers the provider (its secret never answered
 * back), a new person signs in and is created with the mapped role, desk and grants; claims that
 * map to no role are refused and create nobody; a disabled person is refused; a person locked out
 * of their password still signs in through the provider; the provider refusing a refresh ends
 * every session of that person; a disabled provider signs nobody in.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { auth } from "@/lib/server/auth/auth";
import { prisma } from "@/lib/server/db/db";
import { forgetProviderChecks } from "@/lib/server/auth/oidc-plugin";
import { apiRequest, routeCtx, signInCookie, TEST_ORIGIN } from "@/testing/test-auth";
import { TestIdentityProvider } from "@/testing/oidc-test-provider";
import { prepareTestDatabase } from "@/testing/test-support";
import { POST as authPost } from "../auth/[...all]/route";
import { GET as listProviders, POST as registerProvider } from "./desks/[deskId]/oidc-providers/route";
import { DELETE as disableProvider } from "./desks/[deskId]/oidc-providers/[providerId]/route";

type Json = Record<string, any>;

const SECRET = "oidc-client-secret-5c4b3a291807";
let idp: TestIdentityProvider;
let admin: string;
let providerId: string;
const answers: string[] = [];

async function call(res: Promise<Response> | Response): Promise<{ status: number; body: Json }> {
  const r = await res;
  const text = await r.text();
  answers.push(text);
  return { status: r.status, body: text ? JSON.parse(text) : {} };
}
const send = (method: string, url: string, body?: unknown, cookie = admin) => apiRequest(method, url, { cookie, origin: TEST_ORIGIN }, body);
const register = (desk: string, body: unknown, cookie = admin) => call(registerProvider(send("POST", `/api/admin/desks/${desk}/oidc-providers`, body, cookie), routeCtx({ deskId: desk })));

/** The cookies of a `Set-Cookie` list as one `Cookie` header, merged into `jar`. */
function absorb(jar: Map<string, string>, res: Response): void {
  for (const c of res.headers.getSetCookie()) {
    const [pair] = c.split(";");
    const i = pair.indexOf("=");
    const name = pair.slice(0, i);
    const value = pair.slice(i + 1);
    if (value === "" || /max-age=0/i.test(c)) jar.delete(name);
    else jar.set(name, value);
  }
}
const header = (jar: Map<string, string>) => [...jar].map(([k, v]) => `${k}=${v}`).join("; ");

/**
 * Signs in through provider `id` as a browser does: better-auth's `/sign-in/social`, the provider's
 * authorization endpoint (which approves at once), back to better-auth's callback. Returns where the
 * callback sent the browser and the session cookie (null when none was set).
 */
async function signInThroughProvider(id: string, claims: Record<string, unknown>): Promise<{ location: string; cookie: string | null }> {
  idp.signInNext(claims);
  const jar = new Map<string, string>();
  const start = await auth.handler(
    new Request(`${TEST_ORIGIN}/api/auth/sign-in/social`, {
      method: "POST",
      headers: { origin: TEST_ORIGIN, "content-type": "application/json" },
      body: JSON.stringify({ provider: id, callbackURL: "/", errorCallbackURL: "/sign-in" }),
    }),
  );
  const started = (await start.json()) as { url?: string };
  if (start.status !== 200 || !started.url) return { location: `refused:${start.status}:${JSON.stringify(started)}`, cookie: null };
  absorb(jar, start);
  const authorize = await fetch(started.url, { redirect: "manual" });
  const back = authorize.headers.get("location")!;
  expect(back.startsWith(`${TEST_ORIGIN}/api/auth/callback/${id}`)).toBe(true);
  const callback = await auth.handler(new Request(back, { headers: { cookie: header(jar) } }));
  absorb(jar, callback);
  const hasSession = [...jar.keys()].some((k) => k.includes("session_token"));
  return { location: callback.headers.get("location") ?? `status:${callback.status}`, cookie: hasSession ? header(jar) : null };
}

const sessionOf = async (cookie: string) => auth.api.getSession({ headers: new Headers({ cookie }) });

beforeAll(async () => {
  await prepareTestDatabase(new Date());
  admin = await signInCookie("admin@plandesk.test");
  // outside demo mode: the client secret is sealed under a real key, not the demo's
  vi.stubEnv("PLANDESK_DEMO", "0");
  vi.stubEnv("PLANDESK_SECRETS_KEY", Buffer.alloc(32, 7).toString("base64"));
  idp = await TestIdentityProvider.start();
});

afterAll(async () => {
  await idp?.stop();
  vi.unstubAllEnvs();
});

describe("an admin registers a desk's OpenID Connect provider", () => {
  it("stores the client secret sealed and never answers it back; audited without it", async () => {
    const made = await register("retail", {
      label: "Retail SSO",
      issuer: idp.issuer,
      clientId: "plandesk-retail",
      clientSecret: SECRET,
      mapping: {
        roleClaim: "groups",
        roles: { "plandesk-supervisors": "supervisor" },
        defaultRole: null,
        grantsClaim: "groups",
        grants: { "refund-approvers": [{ tool: "issue_refund", canApprove: true, approveLimit: { minor: 50_000, currency: "USD" }, canAuthor: false, authorLimit: null }] },
      },
    });
    expect(made.status).toBe(201);
    providerId = made.body.provider.id;
    expect(made.body.provider).toMatchObject({ desk: "retail", label: "Retail SSO", issuer: idp.issuer, clientId: "plandesk-retail", clientSecret: { last4: "1807" }, redirectUri: `${TEST_ORIGIN}/api/auth/callback/${providerId}` });
    const row = await prisma.oidcProvider.findUniqueOrThrow({ where: { id: providerId } });
    expect(row.clientSecretCiphertext).toMatch(/^v1\./);
    expect(row.clientSecretCiphertext).not.toContain(SECRET);
    const listed = await call(listProviders(send("GET", "/api/admin/desks/retail/oidc-providers"), routeCtx({ deskId: "retail" })));
    expect(listed.body.providers.map((p: Json) => p.id)).toEqual([providerId]);
    const events = await prisma.auditEvent.findMany({ where: { type: "admin_change" } });
    expect(events.some((e) => JSON.stringify(e.data).includes("desk.oidc_provider.register"))).toBe(true);
    expect(JSON.stringify(events)).not.toContain(SECRET);
    expect(answers.join("\n")).not.toContain(SECRET);
  });

  it("refuses a non-admin (403), an unknown desk (404), an http issuer that is not local and a grant of an unknown tool (422), writing nothing", async () => {
    const operator = await signInCookie("operator@plandesk.test");
    const body = { label: "X", issuer: idp.issuer, clientId: "x", clientSecret: "y" };
    expect((await register("retail", body, operator)).status).toBe(403);
    expect((await register("no-such-desk", body)).status).toBe(404);
    expect((await register("retail", { ...body, issuer: "http://idp.example.com" })).body.error.code).toBe("bad_request");
    const unknownTool = await register("retail", { ...body, mapping: { grantsClaim: "g", grants: { a: [{ tool: "no_such_tool", canApprove: true, approveLimit: null, canAuthor: false, authorLimit: null }] } } });
    expect(unknownTool.status).toBe(422);
    expect(await prisma.oidcProvider.count()).toBe(1);
  });
});

describe("signing in through the provider", () => {
  it("creates a new person on first sign-in with the mapped role, desk and grants, and signs them in", async () => {
    const r = await signInThroughProvider(providerId, { sub: "idp-ruth", email: "ruth@retail.example", name: "Ruth Retail", groups: ["plandesk-supervisors", "refund-approvers"] });
    expect(r.location).toBe("/");
    expect(r.cookie).not.toBeNull();
    const session = await sessionOf(r.cookie!);
    expect(session?.user).toMatchObject({ email: "ruth@retail.example", name: "Ruth Retail", role: "supervisor", desk: "retail", disabled: false });
    const grants = await prisma.grant.findMany({ where: { userId: session!.user.id } });
    expect(grants).toEqual([expect.objectContaining({ tool: "issue_refund", canApprove: true, approveLimitMinor: 50_000, approveLimitCurrency: "USD", canAuthor: false })]);
    const events = await prisma.auditEvent.findMany({ where: { type: "admin_change", actorKind: "system" } });
    const creation = events.map((e) => e.data as Json).find((d) => d.what === "user.create" && d.target?.id === session!.user.id);
    expect(creation).toMatchObject({ via: "sso", provider: providerId, after: { role: "supervisor", desk: "retail" } });
    const account = await prisma.authAccount.findFirstOrThrow({ where: { userId: session!.user.id, providerId } });
    expect(account.accountId).toBe("idp-ruth");
    expect(account.refreshToken).toBeTruthy();
    // the second sign-in finds the same person (no second user)
    const again = await signInThroughProvider(providerId, { sub: "idp-ruth", email: "ruth@retail.example", name: "Ruth Retail", groups: ["plandesk-supervisors"] });
    expect(again.cookie).not.toBeNull();
    expect(await prisma.user.count({ where: { email: "ruth@retail.example" } })).toBe(1);
  });

  it("refuses claims that map to no role and creates nobody", async () => {
    const r = await signInThroughProvider(providerId, { sub: "idp-nobody", email: "nobody@retail.example", name: "No Body", groups: ["somewhere-else"] });
    expect(r.cookie).toBeNull();
    expect(r.location).toContain("error=sso_unmapped");
    expect(await prisma.user.count({ where: { email: "nobody@retail.example" } })).toBe(0);
  });

  it("refuses a person an admin disabled", async () => {
    const r = await signInThroughProvider(providerId, { sub: "idp-dora", email: "dora@retail.example", name: "Dora", groups: ["plandesk-supervisors"] });
    expect(r.cookie).not.toBeNull();
    await prisma.user.update({ where: { email: "dora@retail.example" }, data: { disabled: true } });
    await prisma.session.deleteMany({ where: { user: { email: "dora@retail.example" } } });
    const again = await signInThroughProvider(providerId, { sub: "idp-dora", email: "dora@retail.example", name: "Dora", groups: ["plandesk-supervisors"] });
    expect(again.cookie).toBeNull();
    expect(await prisma.session.count({ where: { user: { email: "dora@retail.example" } } })).toBe(0);
  });

  it("signs in a person whose password sign-in is locked out (their account linked by the verified email)", async () => {
    const email = "retail@plandesk.test";
    const attempt = (password: string) =>
      authPost(
        new Request(`${TEST_ORIGIN}/api/auth/sign-in/email`, {
          method: "POST",
          headers: { origin: TEST_ORIGIN, "content-type": "application/json", "x-plandesk-client-ip": "203.0.113.9" },
          body: JSON.stringify({ email, password }),
        }),
      );
    let status = 0;
    for (let i = 0; i < 30 && status !== 429; i++) status = (await attempt("not-the-password-1")).status;
    expect(status).toBe(429);
    const user = await prisma.user.findUniqueOrThrow({ where: { email } });
    expect(user.desk).toBe("retail");
    const r = await signInThroughProvider(providerId, { sub: "idp-retail-lead", email, name: user.name, groups: ["plandesk-supervisors"] });
    expect(r.location).toBe("/");
    const session = await sessionOf(r.cookie!);
    expect(session?.user.id).toBe(user.id);
    // the mapping does not change an existing person's role: that stays the admin's
    expect(session?.user.role).toBe(user.role);
  });

  it("refuses an existing person of another desk (a provider signs people in to its desk only)", async () => {
    const r = await signInThroughProvider(providerId, { sub: "idp-senior", email: "senior@plandesk.test", name: "Senior", groups: ["plandesk-supervisors"] });
    expect(r.cookie).toBeNull();
    expect(r.location).toContain("error=sso_wrong_desk");
  });
});

describe("the provider says the person is gone", () => {
  it("a refused refresh ends every session of that person; a working one keeps them signed in", async () => {
    const claims = { sub: "idp-gone", email: "gone@retail.example", name: "Gina Gone", groups: ["plandesk-supervisors"] };
    const a = await signInThroughProvider(providerId, claims);
    const b = await signInThroughProvider(providerId, claims);
    const userId = (await sessionOf(a.cookie!))!.user.id;
    const expire = () => prisma.authAccount.updateMany({ where: { userId, providerId }, data: { accessTokenExpiresAt: new Date(Date.now() - 1000) } });
    // access token expired, the provider still knows the person: refreshed, still signed in
    await expire();
    forgetProviderChecks();
    expect((await sessionOf(a.cookie!))?.user.id).toBe(userId);
    expect(idp.refreshes.at(-1)).toEqual(["idp-gone", 200]);
    expect((await prisma.authAccount.findFirstOrThrow({ where: { userId, providerId } })).accessTokenExpiresAt!.getTime()).toBeGreaterThan(Date.now());
    // removed at the provider: the next refresh is refused and both sessions end
    idp.remove("idp-gone");
    await expire();
    forgetProviderChecks();
    expect(await sessionOf(a.cookie!)).toBeNull();
    expect(idp.refreshes.at(-1)).toEqual(["idp-gone", 400]);
    expect(await sessionOf(b.cookie!)).toBeNull();
    expect(await prisma.session.count({ where: { userId } })).toBe(0);
    expect(await prisma.sessionEnd.count({ where: { userId } })).toBeGreaterThan(0);
  });
});

describe("a disabled provider", () => {
  it("signs nobody in and erases its secret", async () => {
    const off = await call(disableProvider(send("DELETE", `/api/admin/desks/retail/oidc-providers/${providerId}`), routeCtx({ deskId: "retail", providerId })));
    expect(off.status).toBe(200);
    expect(off.body.provider).toMatchObject({ clientSecret: null });
    expect(off.body.provider.disabledAt).not.toBeNull();
    expect((await prisma.oidcProvider.findUniqueOrThrow({ where: { id: providerId } })).clientSecretCiphertext).toBeNull();
    const r = await signInThroughProvider(providerId, { sub: "idp-ruth", email: "ruth@retail.example", name: "Ruth Retail", groups: ["plandesk-supervisors"] });
    expect(r.cookie).toBeNull();
    // another desk's id is not found
    const foreign = await call(disableProvider(send("DELETE", `/api/admin/desks/freight/oidc-providers/${providerId}`), routeCtx({ deskId: "freight", providerId })));
    expect(foreign.status).toBe(404);
    expect(answers.join("\n")).not.toContain(SECRET);
  });
});
