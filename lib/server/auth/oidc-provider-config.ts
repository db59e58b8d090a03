/**
 * Reading a desk's OpenID Connect provider for a sign-in (./oidc-plugin.ts): the enabled row with
 * its client secret opened. Apart from the admin functions (lib/server/sso/oidc-providers.ts) so that the
 * better-auth plugin does not import the session module (which imports better-auth).
 */
import { oidcClaimMappingSchema, type OidcClaimMapping } from "../../api/endpoints/oidc-provider-api";
import { prisma } from "../db/db";
import type { DbOrTx } from "../db/transaction";
import { openSecret } from "../secrets/secret-box";

/** Every provider id starts with this, so the plugin can tell Plandesk's providers from any other. */
export const OIDC_PROVIDER_ID_PREFIX = "oidc_";

/** What a sealed client secret is bound to: the row's id and desk (a ciphertext moved to another row does not open). */
export const secretAad = (id: string, desk: string) => `oidc_provider:${id}:${desk}`;

/** The stored mapping, parsed (a row written by ./oidc-providers.ts always parses; defaults fill gaps). */
export function mappingOf(r: { mapping: unknown }): OidcClaimMapping {
  return oidcClaimMappingSchema.parse(r.mapping ?? {});
}

/** An enabled provider with its secret opened, for the plugin that runs a sign-in through it. */
export type OidcProviderConfig = { id: string; desk: string; label: string; issuer: string; clientId: string; clientSecret: string; mapping: OidcClaimMapping };

/**
 * Enabled provider `id` with its client secret opened, or null when there is none (unknown,
 * disabled, or not a Plandesk provider id). Errors: 409 `credential_unreadable` /
 * `secrets_key_missing` as openSecret.
 */
export async function enabledOidcProvider(id: string, db: DbOrTx = prisma): Promise<OidcProviderConfig | null> {
  if (!id.startsWith(OIDC_PROVIDER_ID_PREFIX)) return null;
  const r = await db.oidcProvider.findUnique({ where: { id } });
  if (!r || r.disabledAt || !r.clientSecretCiphertext) return null;
  return { id: r.id, desk: r.desk, label: r.label, issuer: r.issuer, clientId: r.clientId, clientSecret: openSecret(r.clientSecretCiphertext, secretAad(r.id, r.desk)), mapping: mappingOf(r) };
}
