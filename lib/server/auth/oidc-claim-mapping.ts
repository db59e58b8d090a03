import type { OidcClaimMapping } from "../../api/endpoints/oidc-provider-api";
import type { GrantInput, RoleName } from "../../people/admin-schemas";

/**
 * What a provider's claim mapping gives a person created on their first sign-in: role, desk and
 * grants (lib/api/endpoints/oidc-provider-api.ts `oidcClaimMappingSchema` says how each is read).
 * Pure: the caller checks that the desk exists and the tools are in the catalog.
 */
export type MappedPerson = { role: RoleName; desk: string; grants: Array<{ tool: string } & GrantInput> };

/** Why claims give no person: no role maps (and no default), or a desk claim is not a string. */
export type UnmappedReason = "no_role" | "bad_desk_claim";

const STRENGTH: Record<RoleName, number> = { operator: 0, supervisor: 1, admin: 2 };

/** The value at a dotted `path` of `claims` (`realm_access.roles`), or undefined. Own properties only. */
export function claimAt(claims: Record<string, unknown>, path: string): unknown {
  let at: unknown = claims;
  for (const key of path.split(".")) {
    if (!at || typeof at !== "object" || Array.isArray(at) || !Object.prototype.hasOwnProperty.call(at, key)) return undefined;
    at = (at as Record<string, unknown>)[key];
  }
  return at;
}

/** The strings of a claim that is a string or an array (other values ignored); [] when absent. */
function stringsOf(value: unknown): string[] {
  if (typeof value === "string") return [value];
  if (Array.isArray(value)) return value.filter((v): v is string => typeof v === "string");
  return [];
}

const own = <T>(record: Record<string, T>, key: string): T | undefined => (Object.prototype.hasOwnProperty.call(record, key) ? record[key] : undefined);

/**
 * Maps a person's claims (ID token / userinfo) through `mapping` for a provider of desk
 * `providerDesk`. Returns `{person}` or `{unmapped}`: `no_role` when no role claim value maps and
 * `defaultRole` is null; `bad_desk_claim` when the desk claim is present but not a string.
 * Role: the strongest of the mapped values (a value that is a role name counts as that role).
 */
export function mapClaims(claims: Record<string, unknown>, mapping: OidcClaimMapping, providerDesk: string): { person: MappedPerson } | { unmapped: UnmappedReason } {
  let role: RoleName | null = null;
  if (mapping.roleClaim) {
    for (const value of stringsOf(claimAt(claims, mapping.roleClaim))) {
      const mapped = own(mapping.roles, value) ?? (value === "operator" || value === "supervisor" || value === "admin" ? value : undefined);
      if (mapped && (role === null || STRENGTH[mapped] > STRENGTH[role])) role = mapped;
    }
  }
  role ??= mapping.defaultRole;
  if (!role) return { unmapped: "no_role" };
  let desk = providerDesk;
  if (mapping.deskClaim) {
    const value = claimAt(claims, mapping.deskClaim);
    if (value !== undefined && value !== null) {
      if (typeof value !== "string" || !value) return { unmapped: "bad_desk_claim" };
      desk = value;
    }
  }
  const byTool = new Map<string, { tool: string } & GrantInput>();
  if (mapping.grantsClaim) {
    for (const value of stringsOf(claimAt(claims, mapping.grantsClaim))) for (const g of own(mapping.grants, value) ?? []) byTool.set(g.tool, g);
  }
  return { person: { role, desk, grants: [...byTool.values()] } };
}
