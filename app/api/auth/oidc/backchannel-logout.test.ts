/**
 * OpenID Connect Back-Channel Logout 1.0 (lib/server/sso/backchannel-logout.ts) through its route,
 * on SQLite and PostgreSQL, against a real OIDC provider started for this file
 * (testing/oidc-test-provider.ts, which signs logout tokens with its own key): a person signed in
 * through the provider twice; a logout token the provider signed ends both sessions at once (their
 * cookie is then refused 401), audited; tokens with a wrong audience, a bad signature, no `events`
 * claim, a `nonce`, an old `iat`, signed by another provider or sent to another provider's URL are
 * refused 400 and end nothing.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { auth } from "@/lib/server/auth/auth";
import { prisma } from "@/lib/server/db/db";
import { registerOidcProvider } from "@/lib/server/sso/oidc-providers";
import { forgetProviderKeySets } from "@/lib/server/sso/backchannel-logout";
import { loadViewer } from "@/lib/server/auth/session";
import { apiRequest, routeCtx, signInCookie, TEST_ORIGIN } from "@/testing/test-auth";
import { TestIdentityProvider } from "@/testing/oidc-test-provider";
import { prepareTestDatabase } from "@/testing/test-support";
import { POST as logoutPost } from "./backchannel-logout/[providerId]/route";
import { GET as listRuns } from "../../runs/route";

type Json = Record<string, any>;
let idp: TestIdentityProvider;
let otherIdp: TestIdentityProvider;
let providerId: string;
let otherProviderId: string;
const CLIENT_ID = "plandesk-bcl";

/** The cookies of a `Set-Cookie` list merged into `jar`. */
function absorb(jar: Map<string, string>, res: Response): void {
  for (const c of res.headers.getSetCookie()) {
    const [pair] = c.split(";");
    const i = pair.indexOf("=");
    if (pair.slice(i + 1) === "" || /max-age=0/i.test(c)) jar.delete(pair.slice(0, i));
    else jar.set(pair.slice(0, i), pair.slice(i + 1));
  }
}
const header = (jar: Map<string, string>) => [...jar].map(([k, v]) => `${k}=${v}`).join("; ");

/** Signs in through provider `id` as a browser does; returns the session cookie. */
async function signInThroughProvider(id: string, claims: Record<string, unknown>): Promise<string> {
  idp.signInNext(claims);
  const jar = new Map<string, string>();
  const start = await auth.handler(
    new Request(`${TEST_ORIGIN}/api/auth/sign-in/social`, { method: "POST", headers: { origin: TEST_ORIGIN, "content-type": "application/json" }, body: JSON.stringify({ provider: id, callbackURL: "/", errorCallbackURL: "/sign-in" }) }),
  );
  const { url } = (await start.json()) as { url: string };
  absorb(jar, start);
  const back = (await fetch(url, { redirect: "manual" })).headers.get("location")!;
  absorb(jar, await auth.handler(new Request(back, { headers: { cookie: header(jar) } })));
  expect([...jar.keys()].some((k) => k.includes("session_token"))).toBe(true);
  return header(jar);
}

/** POSTs `logout_token=<token>` to provider `id`'s back-channel logout URL. */
async function logout(id: string, token: string, contentType = "application/x-www-form-urlencoded"): Promise<{ status: number; body: Json; cacheControl: string | null }> {
  const path = `/api/auth/oidc/backchannel-logout/${id}`;
  const req = new Request(`${TEST_ORIGIN}${path}`, { method: "POST", headers: { "content-type": contentType }, body: new URLSearchParams({ logout_token: token }).toString() });
  const res = await logoutPost(req, routeCtx({ providerId: id }));
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : {}, cacheControl: res.headers.get("cache-control") };
}

const runsAs = async (cookie: string) => (await listRuns(apiRequest("GET", "/api/runs", { cookie }), routeCtx({}))).status;

beforeAll(async () => {
  await prepareTestDatabase(new Date());
  await signInCookie("admin@plandesk.test");
  vi.stubEnv("PLANDESK_DEMO", "0");
  vi.stubEnv("PLANDESK_SECRETS_KEY", Buffer.alloc(32, 7).toString("base64"));
  idp = await TestIdentityProvider.start();
  otherIdp = await TestIdentityProvider.start();
  const admin = (await loadViewer("usr_admin"))!;
  const mapping = { roleClaim: "groups", roles: { "retail-supervisors": "supervisor" as const }, defaultRole: null, deskClaim: null, grantsClaim: null, grants: {} };
  providerId = (await registerOidcProvider(admin, "retail", { label: "Retail SSO", issuer: idp.issuer, clientId: CLIENT_ID, clientSecret: "bcl-client-secret-0123456789", mapping })).id;
  // the same issuer registered again with another client id (as a second desk's app would be)
  otherProviderId = (await registerOidcProvider(admin, "retail", { label: "Retail SSO 2", issuer: idp.issuer, clientId: "plandesk-other", clientSecret: "bcl-client-secret-9876543210", mapping })).id;
  forgetProviderKeySets();
});

afterAll(async () => {
  await idp?.stop();
  await otherIdp?.stop();
  vi.unstubAllEnvs();
});

describe("refused logout tokens end nothing (400 invalid_logout_token)", () => {
  const claims = { sub: "idp-stay", email: "stay@retail.example", name: "Stella Stay", groups: ["retail-supervisors"] };
  let cookie: string;
  let userId: string;

  beforeAll(async () => {
    cookie = await signInThroughProvider(providerId, claims);
    userId = (await prisma.authAccount.findFirstOrThrow({ where: { providerId, accountId: "idp-stay" } })).userId;
  });

  const refused = async (id: string, token: string, why: RegExp, contentType?: string) => {
    const r = await logout(id, token, contentType);
    expect({ status: r.status, code: r.body.error?.code, cacheControl: r.cacheControl }).toEqual({ status: 400, code: "bad_request", cacheControl: "no-store" });
    if (!contentType) expect(r.body.error.reason).toBe("invalid_logout_token");
    expect(r.body.error.message).toMatch(why);
    expect(await prisma.session.count({ where: { userId } })).toBe(1);
    expect(await runsAs(cookie)).toBe(200);
  };

  it("a wrong audience", async () => refused(providerId, await idp.logoutToken({ sub: "idp-stay", aud: "someone-else" }), /"aud"/));
  it("a bad signature (the payload changed after signing)", async () => {
    const [h, , s] = (await idp.logoutToken({ sub: "idp-stay", aud: CLIENT_ID })).split(".");
    const forged = Buffer.from(JSON.stringify({ iss: idp.issuer, aud: CLIENT_ID, sub: "idp-stay", iat: Math.floor(Date.now() / 1000), events: { "http://schemas.openid.net/event/backchannel-logout": {} } })).toString("base64url");
    await refused(providerId, `${h}.${forged}.${s}`, /signature/);
  });
  it("no events claim", async () => refused(providerId, await idp.logoutToken({ sub: "idp-stay", aud: CLIENT_ID, events: undefined }), /"events"/));
  it("an events claim without the back-channel logout event", async () => refused(providerId, await idp.logoutToken({ sub: "idp-stay", aud: CLIENT_ID, events: { "http://example.com/other": {} } }), /does not name/));
  it("a nonce (an ID token is not a logout token)", async () => refused(providerId, await idp.logoutToken({ sub: "idp-stay", aud: CLIENT_ID, nonce: "n-1" }), /nonce/));
  it("an iat older than 5 minutes", async () => refused(providerId, await idp.logoutToken({ sub: "idp-stay", aud: CLIENT_ID, iat: Math.floor(Date.now() / 1000) - 600, exp: Math.floor(Date.now() / 1000) + 60 }), /"iat"/));
  it("no sub (only a sid)", async () => refused(providerId, await idp.logoutToken({ sub: undefined, sid: "s-1", aud: CLIENT_ID }), /sid/));
  it("signed by another provider", async () => refused(providerId, await otherIdp.logoutToken({ sub: "idp-stay", aud: CLIENT_ID, iss: idp.issuer }), /signature/));
  it("sent to another provider's URL (its client id is not the audience)", async () => refused(otherProviderId, await idp.logoutToken({ sub: "idp-stay", aud: CLIENT_ID }), /"aud"/));
  it("an unknown provider id", async () => refused("oidc_no_such_provider", await idp.logoutToken({ sub: "idp-stay", aud: CLIENT_ID }), /no such identity provider/));
  it("not a JWT", async () => refused(providerId, "not-a-jwt", /not a valid signed JWT/));
  it("a JSON body (the spec's body is form-encoded)", async () => refused(providerId, await idp.logoutToken({ sub: "idp-stay", aud: CLIENT_ID }), /x-www-form-urlencoded/, "application/json"));
});

describe("a valid logout token", () => {
  it("ends every session of that person at once, audited; their cookie is then refused 401; others stay signed in", async () => {
    const claims = { sub: "idp-leaving", email: "leaving@retail.example", name: "Lea Leaving", groups: ["retail-supervisors"] };
    const a = await signInThroughProvider(providerId, claims);
    const b = await signInThroughProvider(providerId, claims);
    const bystander = await signInThroughProvider(providerId, { sub: "idp-bystander", email: "by@retail.example", name: "Bo Bystander", groups: ["retail-supervisors"] });
    const userId = (await prisma.authAccount.findFirstOrThrow({ where: { providerId, accountId: "idp-leaving" } })).userId;
    expect(await prisma.session.count({ where: { userId } })).toBe(2);
    expect(await runsAs(a)).toBe(200);

    const r = await logout(providerId, await idp.logoutToken({ sub: "idp-leaving", aud: CLIENT_ID, sid: "idp-session-1" }));
    expect(r).toMatchObject({ status: 200, body: { sessionsEnded: 2 }, cacheControl: "no-store" });
    expect(await prisma.session.count({ where: { userId } })).toBe(0);
    expect(await runsAs(a)).toBe(401);
    expect(await runsAs(b)).toBe(401);
    expect(await runsAs(bystander)).toBe(200);
    expect(await prisma.sessionEnd.count({ where: { userId } })).toBeGreaterThan(0);
    const events = await prisma.auditEvent.findMany({ where: { type: "admin_change", actorKind: "system" } });
    expect(events.map((e) => e.data as Json).find((d) => d.what === "user.sessions_end.sso" && d.target?.id === userId)).toMatchObject({ provider: providerId, reason: "backchannel_logout", before: { sessions: 2 } });

    // the same person at the other provider (another client id): not this provider's account, nothing ends
    const again = await logout(otherProviderId, await idp.logoutToken({ sub: "idp-bystander", aud: "plandesk-other" }));
    expect(again).toMatchObject({ status: 200, body: { sessionsEnded: 0 } });
    expect(await runsAs(bystander)).toBe(200);
  });
});
