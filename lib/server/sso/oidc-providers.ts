/**
 * A desk's OpenID Connect identity providers (docs/api-extensions.md "Single sign-on (OIDC)"): an
 * admin registers one (issuer, client id and secret, claim mapping), lists and disables them; the
 * sign-in page lists the enabled ones; the better-auth plugin (lib/server/auth/oidc-plugin.ts) reads one with its
 * secret opened to run a sign-in.
 *
 * The client secret is sealed with AES-256-GCM under PLANDESK_SECRETS_KEY
 * (lib/server/secrets/secret-box.ts, as an upstream MCP server's credential), bound to the row's id
 * and desk; opened only to talk to the provider. No answer, audit event or error message carries
 * it: views show at most its last 4 characters (of a secret of 16 or more). Disabling erases it.
 *
 * Scope: admins (global, like every admin resource); every query has the desk in its `where`, so a
 * provider id named under another desk is not found.
 */
import { nanoid } from "nanoid";
import {
  backchannelLogoutPathOf,
  registerOidcProviderBodySchema,
  type OidcClaimMapping,
  type OidcProviderView,
  type RegisterOidcProviderBody,
} from "../../api/endpoints/oidc-provider-api";
import { DomainError, parseOrBadRequest } from "../../errors/domain-error";
import { toolMovesMoney } from "../../people/admin-schemas";
import type { Prisma } from "../../generated/prisma/client";
import { appendAudit } from "../audit-log/append-audit";
import { requireRole } from "../auth/require-role";
import type { Viewer } from "../auth/viewer";
import { serverConfig } from "../config/config";
import { prisma } from "../db/db";
import { inTransaction, ok, type DbOrTx } from "../db/transaction";
import { sealSecret, secretsKey } from "../secrets/secret-box";
import { mappingOf, OIDC_PROVIDER_ID_PREFIX, secretAad } from "../auth/oidc-provider-config";
import { currentCatalog } from "../tools/imported-tools";

type Admin = Pick<Viewer, "id" | "role">;
type Row = Prisma.OidcProviderGetPayload<object>;

/** A provider's view (lib/api/endpoints/oidc-provider-api.ts `OidcProvider`), declared once. */
export type { OidcProviderView };

/** At most the last 4 characters of a secret, and only of one of 16 characters or more. */
const hintOf = (secret: string) => (secret.length >= 16 ? secret.slice(-4) : null);

/** The redirect URI to register with the provider: better-auth's OAuth callback for `id`. */
export function redirectUriOf(id: string): string {
  return `${serverConfig().publicUrl.replace(/\/$/, "")}/api/auth/callback/${id}`;
}

/** The API view of a row: never the secret. */
function viewOf(r: Row): OidcProviderView {
  return {
    id: r.id,
    desk: r.desk,
    label: r.label,
    issuer: r.issuer,
    clientId: r.clientId,
    clientSecret: r.clientSecretCiphertext ? { last4: r.clientSecretHint } : null,
    redirectUri: redirectUriOf(r.id),
    backchannelLogoutUri: `${serverConfig().publicUrl.replace(/\/$/, "")}${backchannelLogoutPathOf(r.id)}`,
    mapping: mappingOf(r),
    createdAt: r.createdAt.toISOString(),
    createdById: r.createdById,
    disabledAt: r.disabledAt?.toISOString() ?? null,
  };
}

/** The desk, or 404 `not_found`. */
async function requireDesk(db: DbOrTx, deskId: string): Promise<void> {
  if (!(await db.desk.findUnique({ where: { id: deskId }, select: { id: true } }))) throw new DomainError("not_found", `There is no desk "${deskId}".`);
}

/**
 * Checks that every tool a mapping grants is in the current catalog and that ceilings are only on
 * tools that move money. Errors: 422 `validation_failed` {issues}.
 */
async function checkMappingTools(mapping: OidcClaimMapping): Promise<void> {
  const catalog = await currentCatalog();
  const issues: Array<{ path: string; message: string }> = [];
  for (const [value, grants] of Object.entries(mapping.grants)) {
    grants.forEach((g, i) => {
      const path = `mapping.grants.${value}.${i}`;
      if (!catalog.get(g.tool)) issues.push({ path: `${path}.tool`, message: `Unknown tool "${g.tool}".` });
      else if (!toolMovesMoney(g.tool) && ((g.canApprove && g.approveLimit) || (g.canAuthor && g.authorLimit))) issues.push({ path, message: `${g.tool} moves no money, so its grant cannot have a ceiling.` });
    });
  }
  if (issues.length) throw new DomainError("validation_failed", issues.map((i) => i.message).join(" "), { issues });
}

/**
 * Desk `deskId`'s providers, oldest first, disabled ones included (a desk has a handful).
 * Errors: 403 `forbidden` unless admin; 404 `not_found` (desk).
 */
export async function listOidcProviders(admin: Admin, deskId: string): Promise<{ providers: OidcProviderView[] }> {
  await requireRole(admin, ["admin"], "admin.list_oidc_providers");
  await requireDesk(prisma, deskId);
  const rows = await prisma.oidcProvider.findMany({ where: { desk: deskId }, orderBy: [{ createdAt: "asc" }, { id: "asc" }], take: 200 });
  return { providers: rows.map(viewOf) };
}

/**
 * Registers an OpenID Connect provider for desk `deskId` (body: RegisterOidcProviderBody), its
 * client secret sealed under PLANDESK_SECRETS_KEY. One transaction; audited `admin_change`
 * {what: "desk.oidc_provider.register", target: {kind: "oidc_provider", id}, before: null, after:
 * the view (no secret)}. Nothing is fetched from the issuer (discovery runs at the first sign-in).
 * Errors: 403 `forbidden`; 400 `bad_request` {issues} (body); 404 `not_found` (desk); 422
 * `validation_failed` {issues} (a granted tool not in the catalog, a ceiling on a tool that moves no
 * money); 409 `secrets_key_missing`. Nothing is written on any error.
 */
export async function registerOidcProvider(admin: Admin, deskId: string, raw: unknown): Promise<OidcProviderView> {
  await requireRole(admin, ["admin"], "admin.register_oidc_provider");
  const body: RegisterOidcProviderBody = parseOrBadRequest(registerOidcProviderBodySchema, raw);
  await requireDesk(prisma, deskId);
  await checkMappingTools(body.mapping);
  const id = `${OIDC_PROVIDER_ID_PREFIX}${nanoid(12).replace(/[^A-Za-z0-9]/g, "x")}`;
  // sealed before the transaction: a missing key refuses the registration with nothing written
  const clientSecretCiphertext = sealSecret(body.clientSecret, secretAad(id, deskId), secretsKey());
  return inTransaction(async (tx) => {
    const row = await tx.oidcProvider.create({
      data: {
        id,
        desk: deskId,
        label: body.label,
        issuer: body.issuer.replace(/\/$/, ""),
        clientId: body.clientId,
        clientSecretCiphertext,
        clientSecretHint: hintOf(body.clientSecret),
        mapping: body.mapping,
        createdById: admin.id,
      },
    });
    const view = viewOf(row);
    await appendAudit(tx, { type: "admin_change", actor: { kind: "user", id: admin.id }, data: { what: "desk.oidc_provider.register", target: { kind: "oidc_provider", id }, desk: deskId, before: null, after: view } });
    return ok(view);
  });
}

/**
 * Disables desk `deskId`'s provider `id` and erases its client secret (the row stays, so the audit
 * trail's names resolve). Sign-in through it stops at once (the plugin reads the row on every
 * sign-in). Audited `admin_change` {what: "desk.oidc_provider.disable"}; disabling a disabled
 * provider answers it unchanged, not audited again. Errors: 403 `forbidden`; 404 `not_found` (desk or
 * provider, also another desk's provider).
 */
export async function disableOidcProvider(admin: Admin, deskId: string, id: string): Promise<OidcProviderView> {
  await requireRole(admin, ["admin"], "admin.disable_oidc_provider");
  return inTransaction(async (tx) => {
    const before = await tx.oidcProvider.findFirst({ where: { id, desk: deskId } });
    if (!before) throw new DomainError("not_found", `Desk "${deskId}" has no identity provider "${id}".`);
    if (before.disabledAt) return ok(viewOf(before));
    const row = await tx.oidcProvider.update({ where: { id }, data: { disabledAt: new Date(), disabledById: admin.id, clientSecretCiphertext: null, clientSecretHint: null } });
    await appendAudit(tx, { type: "admin_change", actor: { kind: "user", id: admin.id }, data: { what: "desk.oidc_provider.disable", target: { kind: "oidc_provider", id }, desk: deskId, before: viewOf(before), after: viewOf(row) } });
    return ok(viewOf(row));
  });
}

/** A provider the sign-in page offers: its id (better-auth's provider id) and button label. */
export type SignInProvider = { id: string; label: string };

/** Every enabled provider, for the sign-in page's buttons (no secret, no mapping), oldest first. */
export async function signInProviders(): Promise<SignInProvider[]> {
  const rows = await prisma.oidcProvider.findMany({ where: { disabledAt: null }, orderBy: [{ createdAt: "asc" }, { id: "asc" }], select: { id: true, label: true }, take: 50 });
  return rows;
}
