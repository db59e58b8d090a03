/**
 * OpenID Connect Back-Channel Logout 1.0 (https://openid.net/specs/openid-connect-backchannel-1_0.html)
 * for a desk's identity providers (./oidc-providers.ts): the provider POSTs a logout token when a
 * person signs out there (or is removed), and every Plandesk session of that person ends at once
 * — not only at their next token refresh (lib/server/auth/oidc-plugin.ts).
 *
 * The logout token is the only credential, so it is checked as §2.6 says: a JWT signed by a key of
 * the provider's JWKS (the `jwks_uri` of its discovery document at
 * `<issuer>/.well-known/openid-configuration`, whose `issuer` must be the registered one), with an
 * asymmetric algorithm only; `iss` the issuer, `aud` the client id, `iat` present and at most
 * LOGOUT_TOKEN_MAX_AGE_S old (and not in the future beyond CLOCK_TOLERANCE_S), `exp` not passed when
 * present, the `events` claim an object naming the back-channel-logout event with an object value,
 * a `sub`, and no `nonce` (so an ID token cannot pass for one). Plandesk ends sessions by person:
 * a token naming only a `sid` is refused (no provider session ids are kept).
 *
 * A disabled provider's tokens are still honoured (ending sessions only takes access away). The
 * discovery document and key set are cached per issuer for DISCOVERY_TTL_MS; jose's remote key set
 * fetches the keys again for a key id it does not know (at most once every 30 s), so a provider's
 * key rotation is followed.
 */
import { createRemoteJWKSet, errors as joseErrors, jwtVerify, type JWTPayload } from "jose";
import { BACKCHANNEL_LOGOUT_EVENT } from "../../api/endpoints/oidc-provider-api";
import { DomainError } from "../../errors/domain-error";
import { OIDC_PROVIDER_ID_PREFIX } from "../auth/oidc-provider-config";
import { prisma } from "../db/db";
import { endSsoSessionsOf } from "../auth/end-sso-sessions";
import { log } from "../../net/log.mjs";

/** The oldest logout token accepted, by its `iat` (seconds). */
export const LOGOUT_TOKEN_MAX_AGE_S = 300;
/** Clock difference tolerated between the provider and this instance (seconds). */
const CLOCK_TOLERANCE_S = 30;
/** How long a provider's discovery document and key set are reused (ms). */
const DISCOVERY_TTL_MS = 10 * 60_000;
/** How long the provider's discovery document may take (ms). */
const DISCOVERY_TIMEOUT_MS = 5_000;
/** Signature algorithms a logout token may use: asymmetric only (never `none`, never a shared secret). */
const ALGORITHMS = ["RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512", "EdDSA", "Ed25519"];

/** Why a logout token is refused: `details.reason` of the 400 `bad_request`. */
export const INVALID_LOGOUT_TOKEN = "invalid_logout_token";

const refuse = (message: string) => new DomainError("bad_request", message, { reason: INVALID_LOGOUT_TOKEN });

type KeySet = ReturnType<typeof createRemoteJWKSet>;
const keySets = new Map<string, { at: number; keys: KeySet }>();

/**
 * The key set of the provider at `issuer`, from its discovery document (cached). Errors: 400
 * `bad_request` {reason: invalid_logout_token} when the document cannot be read, names another
 * issuer or no `jwks_uri` (the token cannot be checked, so nothing ends).
 */
async function keySetOf(issuer: string, now: number): Promise<KeySet> {
  const cached = keySets.get(issuer);
  if (cached && now - cached.at < DISCOVERY_TTL_MS) return cached.keys;
  let meta: { issuer?: unknown; jwks_uri?: unknown };
  try {
    const res = await fetch(`${issuer.replace(/\/$/, "")}/.well-known/openid-configuration`, { signal: AbortSignal.timeout(DISCOVERY_TIMEOUT_MS), headers: { accept: "application/json" } });
    if (!res.ok) throw new Error(`status ${res.status}`);
    meta = (await res.json()) as typeof meta;
  } catch (e) {
    log.error({ err: e }, `plandesk: could not read the discovery document of ${issuer}`);
    throw refuse("The provider's discovery document could not be read, so the logout token cannot be checked.");
  }
  if (meta.issuer !== issuer || typeof meta.jwks_uri !== "string") throw refuse("The provider's discovery document names another issuer or no jwks_uri.");
  let jwksUri: URL;
  try {
    jwksUri = new URL(meta.jwks_uri);
  } catch {
    throw refuse("The provider's jwks_uri is not a URL.");
  }
  const keys = createRemoteJWKSet(jwksUri, { timeoutDuration: DISCOVERY_TIMEOUT_MS });
  if (keySets.size > 1_000) keySets.clear();
  keySets.set(issuer, { at: now, keys });
  return keys;
}

/** Test hook: forget the cached discovery documents and key sets (a fresh instance). */
export function forgetProviderKeySets(): void {
  keySets.clear();
}

/**
 * Checks logout token `token` of the provider at `issuer` registered with `clientId` (the checks of
 * the module comment) and returns its claims. Errors: 400 `bad_request` {reason: invalid_logout_token}
 * naming the first check that failed.
 */
export async function verifyLogoutToken(token: string, provider: { issuer: string; clientId: string }, now = Date.now()): Promise<JWTPayload & { sub: string }> {
  const keys = await keySetOf(provider.issuer, now);
  let payload: JWTPayload;
  try {
    ({ payload } = await jwtVerify(token, keys, {
      issuer: provider.issuer,
      audience: provider.clientId,
      algorithms: ALGORITHMS,
      maxTokenAge: LOGOUT_TOKEN_MAX_AGE_S,
      clockTolerance: CLOCK_TOLERANCE_S,
      requiredClaims: ["iat"],
      currentDate: new Date(now),
    }));
  } catch (e) {
    if (e instanceof joseErrors.JWTExpired) throw refuse(e.claim === "iat" ? `The logout token's "iat" is more than ${LOGOUT_TOKEN_MAX_AGE_S} seconds old.` : "The logout token has expired.");
    if (e instanceof joseErrors.JWTClaimValidationFailed) throw refuse(`The logout token's "${e.claim}" claim is not acceptable (${e.reason}).`);
    if (e instanceof joseErrors.JWSSignatureVerificationFailed || e instanceof joseErrors.JWKSNoMatchingKey) throw refuse("The logout token's signature is not one of the provider's keys.");
    if (e instanceof joseErrors.JOSEAlgNotAllowed) throw refuse("The logout token is signed with an algorithm that is not accepted.");
    if (e instanceof joseErrors.JOSEError) throw refuse(`The logout token is not a valid signed JWT (${e.code}).`);
    throw e;
  }
  const events = payload.events;
  if (!events || typeof events !== "object" || Array.isArray(events)) throw refuse('The logout token has no "events" claim.');
  const event = (events as Record<string, unknown>)[BACKCHANNEL_LOGOUT_EVENT];
  if (!Object.prototype.hasOwnProperty.call(events, BACKCHANNEL_LOGOUT_EVENT) || !event || typeof event !== "object" || Array.isArray(event)) {
    throw refuse(`The logout token's "events" claim does not name ${BACKCHANNEL_LOGOUT_EVENT}.`);
  }
  if ("nonce" in payload) throw refuse('A logout token must not carry a "nonce" claim.');
  if (typeof payload.sub !== "string" || payload.sub.length === 0) {
    throw refuse(typeof payload.sid === "string" ? 'The logout token names only a "sid"; Plandesk ends sessions by person and needs the "sub" claim.' : 'The logout token names no "sub".');
  }
  return payload as JWTPayload & { sub: string };
}

/**
 * Handles a back-channel logout of provider `providerId` (any desk's; disabled ones included):
 * checks `token` ({@link verifyLogoutToken}) and ends every session of the person whose account at
 * this provider is the token's `sub` (audited `user.sessions_end.sso` {reason: backchannel_logout}).
 * Returns the number of sessions ended (0 when nobody here has that account: nothing is audited).
 * Errors: 400 `bad_request` {reason: invalid_logout_token} for an unknown provider or a token
 * that fails a check — nothing ends.
 */
export async function backchannelLogout(providerId: string, token: string, now = Date.now()): Promise<{ sessionsEnded: number }> {
  const provider = providerId.startsWith(OIDC_PROVIDER_ID_PREFIX) ? await prisma.oidcProvider.findUnique({ where: { id: providerId }, select: { issuer: true, clientId: true } }) : null;
  if (!provider) throw refuse("There is no such identity provider here.");
  const { sub } = await verifyLogoutToken(token, provider, now);
  const account = await prisma.authAccount.findFirst({ where: { providerId, accountId: sub }, select: { userId: true } });
  if (!account) return { sessionsEnded: 0 };
  return { sessionsEnded: await endSsoSessionsOf(account.userId, providerId, "backchannel_logout") };
}
