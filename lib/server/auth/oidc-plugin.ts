/**
 * Single sign-on through the OpenID Connect providers admins register per desk
 * (lib/server/sso/oidc-providers.ts), as a better-auth plugin. The OAuth/OIDC work itself is better-auth's:
 * each provider is built by better-auth's own `genericOAuth` plugin (discovery, PKCE, state, ID-token
 * signature/issuer/audience/nonce checks, token refresh) and served by better-auth's core
 * `/sign-in/social` and `/callback/:id` endpoints. What this plugin adds:
 *
 * - Providers are data: before a request names a Plandesk provider id (`oidc_…`), the row is read
 *   and the provider built (cached while its row is unchanged) or, when disabled or gone, removed —
 *   so a provider registered or disabled on one instance is seen at once on every instance.
 * - Just-in-time people: a first sign-in creates the person with the role, desk and grants the
 *   provider's claim mapping gives (./oidc-claim-mapping.ts), audited `admin_change` `user.create`
 *   `via: "sso"`. Claims that map to no role, or to a desk that does not exist, refuse the sign-in
 *   (`sso_unmapped`). An existing person signs in (their account linked on first use, by email)
 *   only when the provider maps them to the desk they work; their role and grants stay the admin's.
 * - A disabled person is refused by the session-create hook of lib/server/auth/auth.ts (which every
 *   sign-in passes). The password lockout (lib/server/auth/sign-in-limits.ts) counts only email
 *   sign-ins, so a person locked out of their password can still sign in here.
 * - Sessions end when the provider says the person is gone: at once when it POSTs a back-channel
 *   logout token (lib/server/sso/backchannel-logout.ts); otherwise when a person's provider access token
 *   has expired, the next session read refreshes it (one instance at a time, by a conditional
 *   update); a refresh the provider refuses (`invalid_grant`: the person was removed, disabled or
 *   their grant revoked) ends all their sessions at once. A provider that cannot be reached ends
 *   nothing (tried again a minute later).
 *
 * Tokens from the provider are stored encrypted by better-auth (`account.encryptOAuthTokens`).
 */
import { createHash } from "node:crypto";
import type { BetterAuthPlugin } from "better-auth";
import { createAuthMiddleware } from "better-auth/api";
import { decryptOAuthToken, setTokenUtil } from "better-auth/oauth2";
import { genericOAuth } from "better-auth/plugins/generic-oauth";
import { prisma } from "../db/db";
import { inTransaction, ok } from "../db/transaction";
import { appendAudit } from "../audit-log/append-audit";
import { endSsoSessionsOf } from "./end-sso-sessions";
import { mapClaims, type MappedPerson } from "./oidc-claim-mapping";
import { enabledOidcProvider, OIDC_PROVIDER_ID_PREFIX, type OidcProviderConfig } from "./oidc-provider-config";
import { log } from "../../net/log.mjs";

type AuthContext = Parameters<NonNullable<BetterAuthPlugin["init"]>>[0];
type SocialProvider = AuthContext["socialProviders"][number];
type Hook = NonNullable<NonNullable<BetterAuthPlugin["hooks"]>["before"]>[number];
type HookContext = Parameters<Hook["matcher"]>[0];

/** How long a session read waits before looking again whether a person without a provider account has one now (per instance). */
const RECHECK_WITHOUT_PROVIDER_MS = 60_000;
/** How long a refresh in progress holds the account (other instances skip it meanwhile). */
const REFRESH_LEASE_MS = 60_000;

/** The provider id a better-auth request names (sign-in body, callback path, refresh body), if any. */
function requestedProviderId(ctx: HookContext): string | undefined {
  const body = ctx.body as { provider?: unknown; providerId?: unknown } | undefined;
  const id = body?.provider ?? body?.providerId ?? (ctx.params as { id?: unknown } | undefined)?.id;
  return typeof id === "string" && id.startsWith(OIDC_PROVIDER_ID_PREFIX) ? id : undefined;
}

/** Built providers by id, with the fingerprint of the row they were built from. */
const built = new Map<string, { fingerprint: string; provider: SocialProvider }>();

const fingerprintOf = (c: OidcProviderConfig) => createHash("sha256").update(JSON.stringify([c.issuer, c.clientId, c.clientSecret, c.label])).digest("hex");

/**
 * better-auth's genericOAuth provider for `c` (discovery at `<issuer>/.well-known/openid-configuration`,
 * ID tokens verified against the discovered JWKS), or null when discovery failed (logged by better-auth).
 */
async function buildProvider(context: AuthContext, c: OidcProviderConfig): Promise<SocialProvider | null> {
  const plugin = genericOAuth({
    config: [
      {
        providerId: c.id,
        name: c.label,
        discoveryUrl: `${c.issuer}/.well-known/openid-configuration`,
        requireIdTokenVerification: true,
        clientId: c.clientId,
        clientSecret: c.clientSecret,
        scopes: ["openid", "email", "profile", "offline_access"],
        pkce: true,
        mapProfileToUser: (p) => ({ name: [p.name, p.preferred_username, p.email].find((v): v is string => typeof v === "string" && v.length > 0) ?? "" }),
      },
    ],
  });
  const result = (await plugin.init!({ ...context, socialProviders: [] } as AuthContext)) as { context?: { socialProviders?: SocialProvider[] } } | undefined;
  return result?.context?.socialProviders?.find((p) => p.id === c.id) ?? null;
}

/**
 * Puts provider `id` into better-auth's providers (built from its row, or the cached build of an
 * unchanged row), or takes it out when the row is disabled or gone. The array is better-auth's own,
 * shared by this instance's requests (genericOAuth's discovery retry adds to it the same way).
 * Returns the provider, or null.
 */
async function installProvider(context: AuthContext, id: string): Promise<SocialProvider | null> {
  const list = context.socialProviders;
  const config = await enabledOidcProvider(id).catch((e) => {
    log.error({ err: e }, `plandesk: identity provider ${id} cannot be used`);
    return null;
  });
  const at = list.findIndex((p) => p.id === id);
  if (!config) {
    built.delete(id);
    if (at >= 0) list.splice(at, 1);
    return null;
  }
  const fingerprint = fingerprintOf(config);
  let provider = built.get(id)?.fingerprint === fingerprint ? built.get(id)!.provider : null;
  if (!provider) {
    provider = await buildProvider(context, config);
    if (provider) built.set(id, { fingerprint, provider });
  }
  const now = list.findIndex((p) => p.id === id);
  if (!provider) {
    if (now >= 0) list.splice(now, 1);
    return null;
  }
  if (now >= 0) list[now] = provider;
  else list.unshift(provider);
  return provider;
}

/** A first sign-in's mapped person, by the request (endpoint context) that creates them. */
const pendingPeople = new WeakMap<object, { email: string; providerId: string; person: MappedPerson }>();

type ValidateData = { user: { id?: unknown; email?: unknown } & Record<string, unknown>; source: { action: string; method: string; oauth?: { providerId: string; profile?: Record<string, unknown> } } };

/**
 * better-auth's `user.validateUserInfo` gate for sign-ins through a Plandesk provider: maps the
 * claims; refuses `sso_unmapped` (no role, or a desk that does not exist), `sso_wrong_desk` (an
 * existing person the provider maps to another desk than the one they work), `sso_provider_disabled`.
 * A person about to be created is remembered for the create hooks. Other methods pass untouched.
 */
async function validateUserInfo(data: ValidateData, ctx: object): Promise<void | { error: string; errorDescription?: string }> {
  const providerId = data.source.oauth?.providerId;
  if (data.source.method !== "oauth" || !providerId?.startsWith(OIDC_PROVIDER_ID_PREFIX)) return;
  const config = await enabledOidcProvider(providerId);
  if (!config) return { error: "sso_provider_disabled", errorDescription: "This identity provider is no longer enabled." };
  const mapped = mapClaims(data.source.oauth?.profile ?? {}, config.mapping, config.desk);
  if ("unmapped" in mapped) {
    return { error: "sso_unmapped", errorDescription: mapped.unmapped === "no_role" ? "Your identity provider gives you no Plandesk role." : "Your identity provider names no usable desk." };
  }
  const { person } = mapped;
  if (!(await prisma.desk.findUnique({ where: { id: person.desk }, select: { id: true } }))) {
    return { error: "sso_unmapped", errorDescription: `Your identity provider names desk "${person.desk}", which does not exist.` };
  }
  if (data.source.action === "create-user") {
    pendingPeople.set(ctx, { email: String(data.user.email ?? "").toLowerCase(), providerId, person });
    return;
  }
  const userId = typeof data.user.id === "string" ? data.user.id : null;
  const existing = userId ? await prisma.user.findUnique({ where: { id: userId }, select: { desk: true } }) : null;
  if (existing && existing.desk !== person.desk) {
    return { error: "sso_wrong_desk", errorDescription: "This identity provider does not sign people in to the desk you work." };
  }
}

/** The remembered mapped person of the request creating a user with `email`, if any. */
function pendingFor(ctx: unknown, email: unknown): { providerId: string; person: MappedPerson } | null {
  if (!ctx || typeof ctx !== "object") return null;
  const p = pendingPeople.get(ctx);
  return p && p.email === String(email ?? "").toLowerCase() ? p : null;
}

/** The callback path's provider id when the request is a sign-in through a Plandesk provider. */
function callbackProviderOf(ctx: unknown): string | null {
  const id = (ctx as { params?: { id?: unknown } } | null)?.params?.id;
  return typeof id === "string" && id.startsWith(OIDC_PROVIDER_ID_PREFIX) ? id : null;
}

/** Whether `e` (what better-auth's refresh threw) is the provider refusing the refresh token. */
function refusedByProvider(e: unknown): boolean {
  if (!e || typeof e !== "object") return false;
  const { status, error } = e as { status?: unknown; error?: unknown };
  return status === 400 && (error === undefined || error === "invalid_grant");
}

/** When each person's provider tokens are next due for a look, per instance (ms since the epoch). */
const nextCheck = new Map<string, number>();

/**
 * After a session read: when the person's provider access token has expired, refreshes it (one
 * instance at a time: a conditional update takes a lease). Refused by the provider → every session
 * of theirs ends and this read answers no session. Returns true when the sessions ended. Reads the
 * database only when something is due: at the access token's expiry for a person signed in through
 * a provider, once a minute for anyone else.
 */
async function checkProviderSession(context: AuthContext, userId: string, now = Date.now()): Promise<boolean> {
  const due = nextCheck.get(userId);
  if (due !== undefined && now < due) return false;
  if (nextCheck.size > 10_000) nextCheck.clear();
  const account = await prisma.authAccount.findFirst({
    where: { userId, providerId: { startsWith: OIDC_PROVIDER_ID_PREFIX }, refreshToken: { not: null }, accessTokenExpiresAt: { not: null } },
    orderBy: { accessTokenExpiresAt: "asc" },
  });
  if (!account?.refreshToken || !account.accessTokenExpiresAt) {
    nextCheck.set(userId, now + RECHECK_WITHOUT_PROVIDER_MS);
    return false;
  }
  if (account.accessTokenExpiresAt.getTime() > now) {
    nextCheck.set(userId, account.accessTokenExpiresAt.getTime());
    return false;
  }
  nextCheck.set(userId, now + REFRESH_LEASE_MS);
  const lease = await prisma.authAccount.updateMany({ where: { id: account.id, accessTokenExpiresAt: account.accessTokenExpiresAt }, data: { accessTokenExpiresAt: new Date(now + REFRESH_LEASE_MS) } });
  if (lease.count !== 1) return false;
  const provider = await installProvider(context, account.providerId);
  if (!provider?.refreshAccessToken) return false; // a disabled provider: nothing to ask
  try {
    const tokens = await provider.refreshAccessToken(await decryptOAuthToken(account.refreshToken, context));
    const expiresAt = tokens.accessTokenExpiresAt ?? new Date(now + 60 * 60 * 1000);
    await prisma.authAccount.update({
      where: { id: account.id },
      data: {
        accessToken: (await setTokenUtil(tokens.accessToken, context)) ?? account.accessToken,
        accessTokenExpiresAt: expiresAt,
        refreshToken: tokens.refreshToken ? await setTokenUtil(tokens.refreshToken, context) : account.refreshToken,
        ...(tokens.idToken ? { idToken: tokens.idToken } : {}),
      },
    });
    nextCheck.set(userId, expiresAt.getTime());
    return false;
  } catch (e) {
    if (!refusedByProvider(e)) {
      log.error({ err: e }, `plandesk: could not refresh a sign-in through ${account.providerId}; tried again later`);
      return false;
    }
    await endSsoSessionsOf(userId, account.providerId, "refresh_refused");
    nextCheck.delete(userId);
    return true;
  }
}

/** Test hook: forget when each person's provider tokens were last checked (a fresh instance). */
export function forgetProviderChecks(): void {
  nextCheck.clear();
}

/**
 * The plugin (added to lib/server/auth/auth.ts's plugins). Adds to better-auth's options:
 * `user.validateUserInfo`, encrypted OAuth tokens, linking by email without a local verification
 * (sign-up is closed: an admin wrote every local email), and user-create hooks that give a new
 * person their mapped role, desk and grants.
 */
export function plandeskOidc(): BetterAuthPlugin {
  return {
    id: "plandesk-oidc",
    // Starting a sign-in through a provider checks no credential (it answers the provider's URL), and
    // people behind one office address sign in at the same hour: 60 a minute per address, in place
    // of better-auth's 3 per 10 seconds for every /sign-in path.
    rateLimit: [{ pathMatcher: (path: string) => path === "/sign-in/social", window: 60, max: 60 }],
    init: () => ({
      options: {
        user: { validateUserInfo: validateUserInfo as never },
        account: { encryptOAuthTokens: true, accountLinking: { enabled: true, requireLocalEmailVerified: false } },
        databaseHooks: {
          user: {
            create: {
              before: async (user, ctx) => {
                const pending = pendingFor(ctx, user.email);
                if (!pending) return callbackProviderOf(ctx) ? false : undefined;
                return { data: { ...user, role: pending.person.role, desk: pending.person.desk } };
              },
              after: async (user, ctx) => {
                const pending = pendingFor(ctx, user.email);
                if (!pending) return;
                const { person, providerId } = pending;
                await inTransaction(async (tx) => {
                  for (const g of person.grants) {
                    const data = {
                      canApprove: g.canApprove,
                      approveLimitMinor: g.canApprove ? (g.approveLimit?.minor ?? null) : null,
                      approveLimitCurrency: g.canApprove ? (g.approveLimit?.currency ?? null) : null,
                      canAuthor: g.canAuthor,
                      authorLimitMinor: g.canAuthor ? (g.authorLimit?.minor ?? null) : null,
                      authorLimitCurrency: g.canAuthor ? (g.authorLimit?.currency ?? null) : null,
                    };
                    if (g.canApprove || g.canAuthor) await tx.grant.create({ data: { id: `${user.id}_${g.tool}`, userId: user.id, tool: g.tool, ...data } });
                  }
                  await appendAudit(tx, {
                    type: "admin_change",
                    actor: { kind: "system" },
                    data: { what: "user.create", target: { kind: "user", id: user.id }, before: null, after: { email: user.email, name: user.name, role: person.role, desk: person.desk, disabled: false, grants: person.grants }, via: "sso", provider: providerId },
                  });
                  return ok(undefined);
                });
              },
            },
          },
        },
      },
    }),
    hooks: {
      before: [
        {
          matcher: (ctx) => requestedProviderId(ctx) !== undefined,
          handler: createAuthMiddleware(async (ctx) => {
            await installProvider(ctx.context as AuthContext, requestedProviderId(ctx)!);
          }),
        },
      ],
      after: [
        {
          matcher: (ctx) => ctx.path === "/get-session",
          handler: createAuthMiddleware(async (ctx) => {
            const returned = ctx.context.returned as { user?: { id?: unknown } } | null | undefined;
            const userId = returned && typeof returned === "object" && typeof returned.user?.id === "string" ? returned.user.id : null;
            if (!userId) return;
            if (await checkProviderSession(ctx.context as AuthContext, userId)) return ctx.json(null);
          }),
        },
      ],
    },
  };
}
