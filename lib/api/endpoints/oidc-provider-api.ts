import { z } from "zod";
import { deskIdSchema } from "../../desk/desks";
import { grantInputSchema, ROLES, roleSchema } from "../../people/admin-schemas";
import { defineEndpoint } from "../contract";
import { ADMIN, idParam } from "./common";

/*
 * A desk's OpenID Connect identity providers (docs/api-extensions.md "Single sign-on (OIDC)"): an
 * admin registers a provider (issuer, client id and secret, the claim mapping), lists and disables
 * them. People then sign in through it at /sign-in and are created on their first sign-in with the
 * mapped role, desk and grants (lib/server/auth/oidc-plugin.ts). The client secret is write-only: no
 * answer carries it (at most its last 4 characters). Declared once like every endpoint
 * (lib/api/contract.ts); listed in ENDPOINTS (lib/api/endpoints.ts).
 */

/** A claim's name, or a dotted path into nested claims (e.g. `realm_access.roles` of Keycloak). */
export const claimPathSchema = z
  .string()
  .regex(/^[A-Za-z0-9_:\-/]{1,100}(?:\.[A-Za-z0-9_:\-/]{1,100}){0,4}$/, "a claim name, or a dotted path of up to 5 names (e.g. realm_access.roles)");

/** A value a claim may hold that the mapping names (e.g. a group name). */
const claimValueSchema = z.string().min(1).max(200);

/** One grant a claim value gives: the tool and the grant as an admin sets it (lib/people/admin-schemas.ts `grantInputSchema`). */
export const mappedGrantSchema = z.object({ tool: z.string().min(1).max(64) }).extend(grantInputSchema.shape).strict();

/**
 * Which claims of a person's ID token (or userinfo) give their role, desk and approval grants when
 * the provider creates them on their first sign-in:
 * - `roleClaim` (a string or an array of strings): each value is looked up in `roles`
 *   (claim value → role); a value that is itself a role name counts as that role. The strongest
 *   mapped role wins (admin > supervisor > operator). No value maps: `defaultRole`; null refuses the
 *   sign-in (`sso_unmapped`).
 * - `deskClaim` (a string): the desk the person works; unset or absent, the provider's desk. A desk
 *   that does not exist refuses the sign-in.
 * - `grantsClaim` (a string or an array of strings): each value is looked up in `grants` and gives
 *   those grants; a tool named by two values takes the later one.
 */
export const oidcClaimMappingSchema = z
  .object({
    roleClaim: claimPathSchema.nullable().default(null),
    roles: z.record(claimValueSchema, roleSchema).default({}),
    defaultRole: roleSchema.nullable().default("operator"),
    deskClaim: claimPathSchema.nullable().default(null),
    grantsClaim: claimPathSchema.nullable().default(null),
    grants: z.record(claimValueSchema, z.array(mappedGrantSchema).max(50)).default({}),
  })
  .strict()
  .refine((m) => Object.keys(m.roles).length <= 100 && Object.keys(m.grants).length <= 100, "at most 100 mapped values each for roles and grants")
  .meta({ id: "OidcClaimMapping" });
/** A parsed {@link oidcClaimMappingSchema}. */
export type OidcClaimMapping = z.output<typeof oidcClaimMappingSchema>;

/** An https URL (http only for localhost, which a test provider or a local Keycloak uses) without user name, password, query or fragment. */
const issuerSchema = z
  .string()
  .max(500)
  .refine((u) => {
    try {
      const url = new URL(u);
      const local = url.hostname === "localhost" || url.hostname === "127.0.0.1" || url.hostname === "[::1]";
      return (url.protocol === "https:" || (url.protocol === "http:" && local)) && !url.username && !url.password && !url.search && !url.hash;
    } catch {
      return false;
    }
  }, "an https:// issuer URL (http:// only for localhost) without user name, password, query or fragment");

/** Visible ASCII without leading or trailing spaces (a client id or secret). */
const clientText = (max: number) =>
  z
    .string()
    .min(1)
    .max(max)
    .regex(/^[\x21-\x7E](?:[\x20-\x7E]*[\x21-\x7E])?$/, "visible ASCII characters without leading or trailing spaces");

/** Body of `POST /api/admin/desks/{deskId}/oidc-providers`. */
export const registerOidcProviderBodySchema = z
  .object({
    label: z.string().trim().min(1).max(60).meta({ description: "The button's text on /sign-in: \"Continue with <label>\"" }),
    issuer: issuerSchema,
    clientId: clientText(500),
    clientSecret: clientText(4096).meta({ description: "Stored encrypted (AES-256-GCM under PLANDESK_SECRETS_KEY); never answered back" }),
    mapping: oidcClaimMappingSchema.default(oidcClaimMappingSchema.parse({})),
  })
  .strict();
/** A claim path field of the admin form: empty for none, else a {@link claimPathSchema}. */
const optionalClaimPath = z
  .string()
  .trim()
  .refine((v) => v === "" || claimPathSchema.safeParse(v).success, "A claim name, or a dotted path of up to 5 names (e.g. realm_access.roles); empty for none");

/** The most claim values a mapping's `roles` or `grants` may name (the body schema's rule). */
const MAX_MAPPED_VALUES = 100;

/**
 * One row of the admin form's grants table: a claim value and one grant it gives — the API's own
 * {@link mappedGrantSchema} (tool, may approve with its ceiling, may author with its ceiling;
 * ceilings `{minor, currency}` in integer minor units or null for none) plus the claim value.
 * The rows of one value become that value's grants, in row order.
 */
export const grantRowFormSchema = mappedGrantSchema.extend({
  value: z.string().trim().min(1, "Enter the claim value (e.g. a group name)").max(200, "At most 200 characters"),
});
/** A row of the grants table as the form holds it. */
export type GrantRowFormValues = z.input<typeof grantRowFormSchema>;

/**
 * The admin page's form (components/admin/oidc-providers-admin.tsx) for registering a provider,
 * whose output IS the API body ({@link registerOidcProviderBodySchema}, piped through it): the
 * same fields and rules, with the mapping laid out for a form — role claim, a table of claim
 * value → role, the role of everyone else or "refuse" (`defaultRole: null`), desk and grants claims,
 * and a table of claim value → grant ({@link grantRowFormSchema}, one row per grant), which becomes
 * the `grants` record. Form-only rules: a claim value at most once in the role table, a tool at most
 * once per claim value in the grants table, and grant rows only with a grants claim to read them from.
 * Whether a granted tool is in the catalog and may carry a ceiling is the server's check
 * (lib/server/sso/oidc-providers.ts), reported on the row.
 */
export const oidcProviderFormSchema = z
  .object({
    label: registerOidcProviderBodySchema.shape.label,
    issuer: issuerSchema,
    clientId: clientText(500),
    clientSecret: clientText(4096),
    roleClaim: optionalClaimPath,
    roles: z.array(z.object({ value: z.string().trim().min(1, "Enter the claim value (e.g. a group name)").max(200), role: roleSchema })).max(MAX_MAPPED_VALUES, "At most 100 rows"),
    defaultRole: z.enum(["refuse", ...ROLES]),
    deskClaim: optionalClaimPath,
    grantsClaim: optionalClaimPath,
    grants: z.array(grantRowFormSchema).max(MAX_MAPPED_VALUES * 5, "At most 500 rows"),
  })
  .superRefine((v, ctx) => {
    const seen = new Set<string>();
    v.roles.forEach((r, i) => {
      if (seen.has(r.value.trim())) ctx.addIssue({ code: "custom", path: ["roles", i, "value"], message: "This value is already in the table" });
      seen.add(r.value.trim());
    });
    const perValue = new Map<string, Set<string>>();
    v.grants.forEach((g, i) => {
      const tools = perValue.get(g.value) ?? new Set<string>();
      if (tools.has(g.tool)) ctx.addIssue({ code: "custom", path: ["grants", i, "tool"], message: "This claim value already grants this tool (one row per tool)" });
      else if (tools.size >= 50) ctx.addIssue({ code: "custom", path: ["grants", i, "value"], message: "At most 50 grants per claim value" });
      tools.add(g.tool);
      perValue.set(g.value, tools);
    });
    if (perValue.size > MAX_MAPPED_VALUES) ctx.addIssue({ code: "custom", path: ["grants"], message: "At most 100 different claim values" });
    if (v.grants.length > 0 && v.grantsClaim === "") ctx.addIssue({ code: "custom", path: ["grantsClaim"], message: "Name the claim the values below are read from (e.g. groups), or remove the grant rows" });
  })
  .transform((v) => {
    const grants: Record<string, z.output<typeof mappedGrantSchema>[]> = {};
    for (const { value, ...grant } of v.grants) (grants[value] ??= []).push(grant);
    return {
      label: v.label,
      issuer: v.issuer,
      clientId: v.clientId,
      clientSecret: v.clientSecret,
      mapping: {
        roleClaim: v.roleClaim || null,
        roles: Object.fromEntries(v.roles.map((r) => [r.value.trim(), r.role])),
        defaultRole: v.defaultRole === "refuse" ? null : v.defaultRole,
        deskClaim: v.deskClaim || null,
        grantsClaim: v.grantsClaim || null,
        grants,
      },
    };
  })
  // the transform writes the body's full (defaulted) shape, so the body schema's input is its output
  .pipe(registerOidcProviderBodySchema as unknown as z.ZodType<RegisterOidcProviderBody, RegisterOidcProviderBody>);
/** The form's values (what its fields hold). */
export type OidcProviderFormValues = z.input<typeof oidcProviderFormSchema>;

/** The provider form's top fields in display order (what a refusal's focus follows). */
export const OIDC_FORM_FIELDS = ["label", "issuer", "clientId", "clientSecret", "roleClaim", "roles", "defaultRole", "deskClaim", "grantsClaim", "grants"] as const;

/**
 * The provider form's field a server issue's path belongs to, as a react-hook-form path: a top
 * field (`issuer`, `mapping.roleClaim` → `roleClaim`), a cell of the grants table
 * (`mapping.grants.<claim value>.<n>[.<field>…]` is the n-th row of that claim value in table order,
 * `grants.<row>.approveLimit`/`.authorLimit` for a ceiling, else `grants.<row>.tool`; a claim
 * value may itself hold dots), `grants` when no row matches, or null when the path names no field.
 */
export function formPathOfIssue(path: string, grants: readonly { value: string }[]): string | null {
  const grant = /^mapping\.grants\.(.+)\.(\d+)(?:\.([A-Za-z]+)(?:\..*)?)?$/.exec(path);
  if (grant) {
    const [, value, nth, field] = grant;
    const row = grants.flatMap((g, i) => (g.value.trim() === value ? [i] : []))[Number(nth)];
    if (row === undefined) return "grants";
    const cell = field === "approveLimit" || field === "authorLimit" ? field : "tool";
    return `grants.${row}.${cell}`;
  }
  const [top, second] = path.split(".");
  const name = top === "mapping" ? second : top;
  return (OIDC_FORM_FIELDS as readonly string[]).includes(name) ? name : null;
}

/** A parsed {@link registerOidcProviderBodySchema}. */
export type RegisterOidcProviderBody = z.output<typeof registerOidcProviderBodySchema>;

/** A provider as every answer shows it: never its client secret. */
export const oidcProviderViewSchema = z
  .object({
    id: z.string().meta({ description: "better-auth's provider id; the provider's redirect URI is <PLANDESK_URL>/api/auth/callback/<id>" }),
    desk: z.string(),
    label: z.string(),
    issuer: z.string(),
    clientId: z.string(),
    clientSecret: z
      .object({ last4: z.string().nullable().meta({ description: "The secret's last 4 characters (null when it is shorter than 16)" }) })
      .nullable()
      .meta({ description: "null: no secret is stored (the provider was disabled)" }),
    redirectUri: z.string(),
    backchannelLogoutUri: z.string().meta({ description: "Register it with the provider as its back-channel logout URI: a logout token POSTed there ends the person's sessions at once" }),
    mapping: oidcClaimMappingSchema,
    createdAt: z.string(),
    createdById: z.string(),
    disabledAt: z.string().nullable(),
  })
  .meta({ id: "OidcProvider" });
/** A parsed {@link oidcProviderViewSchema}. */
export type OidcProviderView = z.output<typeof oidcProviderViewSchema>;

const deskParams = z.object({ deskId: deskIdSchema });
const providerParams = z.object({ deskId: deskIdSchema, providerId: idParam });

export const listOidcProvidersEndpoint = defineEndpoint({
  id: "listOidcProviders",
  method: "GET",
  path: "/api/admin/desks/{deskId}/oidc-providers",
  summary: "A desk's OpenID Connect providers, oldest first (client secrets never shown)",
  caller: ADMIN,
  params: deskParams,
  success: { status: [200], schema: z.object({ providers: z.array(oidcProviderViewSchema) }), description: "{providers}" },
  refusals: ["not_found"],
});

export const registerOidcProviderEndpoint = defineEndpoint({
  id: "registerOidcProvider",
  method: "POST",
  path: "/api/admin/desks/{deskId}/oidc-providers",
  summary: "Register an OpenID Connect provider for a desk: people sign in through it and are created on first sign-in with the mapped role, desk and grants",
  description:
    "The client secret is sealed with AES-256-GCM under PLANDESK_SECRETS_KEY; without that key outside demo mode it is refused 409 `secrets_key_missing`. A mapping that names a desk or tool that does not exist is 422 `validation_failed`. Nothing is fetched from the issuer here: discovery runs at the first sign-in. Register the answer's `redirectUri` with the provider. Audited `admin_change` `desk.oidc_provider.register` without the secret.",
  caller: ADMIN,
  params: deskParams,
  body: registerOidcProviderBodySchema,
  success: { status: [201], schema: z.object({ provider: oidcProviderViewSchema }), description: "{provider}" },
  refusals: ["not_found", "secrets_key_missing", "validation_failed"],
});

export const disableOidcProviderEndpoint = defineEndpoint({
  id: "disableOidcProvider",
  method: "DELETE",
  path: "/api/admin/desks/{deskId}/oidc-providers/{providerId}",
  summary: "Disable a desk's OpenID Connect provider and erase its stored client secret (the row stays for the record)",
  description:
    "Sign-in through it stops at once on every instance; people it created keep their accounts (an admin may disable them). Disabling a disabled provider answers it unchanged. Audited `admin_change` `desk.oidc_provider.disable`.",
  caller: ADMIN,
  params: providerParams,
  success: { status: [200], schema: z.object({ provider: oidcProviderViewSchema }), description: "{provider}" },
  refusals: ["not_found"],
});

/** The back-channel logout event's name in a logout token's `events` claim (OpenID Connect Back-Channel Logout 1.0 §2.4). */
export const BACKCHANNEL_LOGOUT_EVENT = "http://schemas.openid.net/event/backchannel-logout";

/** The path a desk's provider POSTs logout tokens to (register `<PLANDESK_URL><path>` as its back-channel logout URI). */
export const backchannelLogoutPathOf = (providerId: string) => `/api/auth/oidc/backchannel-logout/${providerId}`;

export const oidcBackchannelLogoutEndpoint = defineEndpoint({
  id: "oidcBackchannelLogout",
  method: "POST",
  path: "/api/auth/oidc/backchannel-logout/{providerId}",
  summary: "OpenID Connect Back-Channel Logout 1.0: the provider says a person signed out there; every Plandesk session of theirs ends",
  description:
    "Called by the identity provider, not by people: no session or key, the logout token is the credential. The body is form-encoded `logout_token=<JWT>`. The token must be signed by a key of the provider's JWKS (from its discovery document), with `iss` the provider's issuer, `aud` its client id, a fresh `iat` (at most 5 minutes old), the `events` claim naming `" +
    BACKCHANNEL_LOGOUT_EVENT +
    "`, a `sub`, and no `nonce`. Every session of the person whose account at this provider is `sub` ends (their live streams close), audited `admin_change` `user.sessions_end.sso` {reason: `backchannel_logout`}; a `sub` nobody here has ends nothing (200, `sessionsEnded: 0`). Any other token (or an unknown provider) is refused 400 `bad_request` {reason: `invalid_logout_token`} and nothing ends.",
  caller: { kind: "public" },
  params: z.object({ providerId: idParam }),
  formBody: {
    schema: z.object({ logout_token: z.string().min(1).max(16_384).meta({ description: "The logout token: a JWT signed by the provider" }) }),
    description: "`logout_token=<JWT>` (application/x-www-form-urlencoded)",
  },
  success: { status: [200], schema: z.object({ sessionsEnded: z.number().int().min(0).meta({ description: "Sessions that ended (0: nobody here has that account, or they had none)" }) }), description: "{sessionsEnded}" },
  refusals: [],
});
