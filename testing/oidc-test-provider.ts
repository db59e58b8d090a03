import { randomUUID } from "node:crypto";
import { OAuth2Server } from "oauth2-mock-server";

/**
 * Test support: a real OpenID Connect provider on 127.0.0.1 (oauth2-mock-server: discovery, JWKS,
 * signed RS256 ID tokens, PKCE, nonce, refresh tokens) that signs in whoever the test names next.
 * The provider approves every authorization request at once (no login page): the person is the
 * one given to `signInNext`, with their claims in the ID token. `remove(sub)` makes every later
 * refresh of that person's tokens answer 400 `invalid_grant`, as a provider does for a person
 * deleted or disabled there. `logoutToken` signs an OpenID Connect Back-Channel Logout token with
 * the provider's own key. Used by the SSO unit tests and the Playwright spec.
 */
export class TestIdentityProvider {
  private next: Record<string, unknown> | null = null;
  private readonly byCode = new Map<string, Record<string, unknown>>();
  private readonly byRefresh = new Map<string, Record<string, unknown>>();
  private readonly removed = new Set<string>();
  private readonly lifetimes = new WeakMap<object, number>();
  /** Refresh requests seen: [sub, answered status]. */
  readonly refreshes: Array<[string, number]> = [];

  private constructor(private readonly server: OAuth2Server) {}

  /** Starts a provider on a free port of 127.0.0.1 (`issuer` is its URL). */
  static async start(): Promise<TestIdentityProvider> {
    const server = new OAuth2Server();
    await server.issuer.keys.generate("RS256");
    await server.start(0, "127.0.0.1");
    const port = new URL(server.issuer.url!).port;
    server.issuer.url = `http://127.0.0.1:${port}`;
    const idp = new TestIdentityProvider(server);
    server.service.on("beforeAuthorizeRedirect", (redirect: { url: URL }) => {
      const code = redirect.url.searchParams.get("code");
      if (code && idp.next) idp.byCode.set(code, idp.next);
    });
    server.service.on("beforeTokenSigning", (token: { payload: Record<string, unknown> }, req: { body?: Record<string, unknown> }) => {
      const body = req.body ?? {};
      const claims = body.grant_type === "authorization_code" ? idp.byCode.get(String(body.code)) : body.grant_type === "refresh_token" ? idp.byRefresh.get(String(body.refresh_token)) : undefined;
      if (claims) Object.assign(token.payload, claims);
    });
    server.service.on("beforeResponse", (response: { body: Record<string, unknown>; statusCode: number }, req: { body?: Record<string, unknown> }) => {
      const body = req.body ?? {};
      const claims = body.grant_type === "authorization_code" ? idp.byCode.get(String(body.code)) : body.grant_type === "refresh_token" ? idp.byRefresh.get(String(body.refresh_token)) : undefined;
      if (body.grant_type === "refresh_token") {
        const sub = String(claims?.sub ?? "");
        if (!claims || idp.removed.has(sub)) {
          response.statusCode = 400;
          response.body = { error: "invalid_grant", error_description: "The person is no longer known here." };
        }
        idp.refreshes.push([sub, response.statusCode]);
      }
      if (claims && response.statusCode === 200 && typeof response.body.refresh_token === "string") idp.byRefresh.set(response.body.refresh_token, claims);
      const seconds = claims ? idp.lifetimes.get(claims) : undefined;
      if (seconds !== undefined && response.statusCode === 200) response.body.expires_in = seconds;
    });
    return idp;
  }

  /** The issuer URL (`http://127.0.0.1:<port>`). */
  get issuer(): string {
    return this.server.issuer.url!;
  }

  /**
   * The next authorization request signs in this person (claims: at least `sub`, `email`);
   * `accessTokenSeconds` shortens their access tokens' lifetime (default: the provider's hour).
   */
  signInNext(claims: Record<string, unknown>, opts: { accessTokenSeconds?: number } = {}): void {
    this.next = { email_verified: true, ...claims };
    if (opts.accessTokenSeconds !== undefined) this.lifetimes.set(this.next, opts.accessTokenSeconds);
  }

  /** The person `sub` is gone at the provider: their refresh tokens are refused from now on. */
  remove(sub: string): void {
    this.removed.add(sub);
  }

  /**
   * A back-channel logout token signed with this provider's key (`typ` logout+jwt): `iss` this
   * issuer, `iat` now, `exp` in 2 minutes, a fresh `jti` and the back-channel-logout `events`
   * claim, then `claims` over them (a claim given as undefined is left out, e.g. `events`).
   */
  async logoutToken(claims: Record<string, unknown>): Promise<string> {
    return this.server.issuer.buildToken({
      expiresIn: 120,
      scopesOrTransform: (header: Record<string, unknown>, payload: Record<string, unknown>) => {
        header.typ = "logout+jwt";
        delete payload.nbf;
        Object.assign(payload, { jti: randomUUID(), events: { "http://schemas.openid.net/event/backchannel-logout": {} } }, claims);
        for (const [k, v] of Object.entries(claims)) if (v === undefined) delete payload[k];
      },
    });
  }

  /** Stops the server. */
  async stop(): Promise<void> {
    await this.server.stop();
  }
}
