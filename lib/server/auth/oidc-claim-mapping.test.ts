/**
 * The claim mapping of a desk's identity provider (./oidc-claim-mapping.ts): which role, desk and grants a
 * person's claims give on their first sign-in. Pure; the sign-in itself is tested against a real
 * provider in app/api/admin/oidc-providers.test.ts and e2e/sso.spec.ts.
 */
import { describe, expect, it } from "vitest";
import { oidcClaimMappingSchema } from "@/lib/api/endpoints/oidc-provider-api";
import { claimAt, mapClaims } from "./oidc-claim-mapping";

const refunds = { tool: "issue_refund", canApprove: true, approveLimit: { minor: 50_000, currency: "USD" as const }, canAuthor: false, authorLimit: null };
const mapping = oidcClaimMappingSchema.parse({
  roleClaim: "realm_access.roles",
  roles: { "desk-leads": "supervisor", "it-admins": "admin" },
  defaultRole: null,
  deskClaim: "plandesk_desk",
  grantsClaim: "groups",
  grants: { "refund-approvers": [refunds] },
});

describe("mapClaims", () => {
  it("takes the strongest mapped role from a nested claim, the desk claim and the grants of every value", () => {
    const r = mapClaims({ realm_access: { roles: ["desk-leads", "it-admins", "unrelated"] }, plandesk_desk: "freight", groups: ["refund-approvers", "x"] }, mapping, "retail");
    expect(r).toEqual({ person: { role: "admin", desk: "freight", grants: [refunds] } });
  });

  it("a value that is a role name counts as that role; no desk claim means the provider's desk", () => {
    expect(mapClaims({ realm_access: { roles: "operator" } }, mapping, "retail")).toEqual({ person: { role: "operator", desk: "retail", grants: [] } });
  });

  it("refuses claims with no mapped role when there is no default, and a desk claim that is not a string", () => {
    expect(mapClaims({ realm_access: { roles: ["guests"] } }, mapping, "retail")).toEqual({ unmapped: "no_role" });
    expect(mapClaims({ realm_access: { roles: ["desk-leads"] }, plandesk_desk: ["a", "b"] }, mapping, "retail")).toEqual({ unmapped: "bad_desk_claim" });
  });

  it("the default mapping makes everyone an operator of the provider's desk with no grants", () => {
    expect(mapClaims({ groups: ["refund-approvers"] }, oidcClaimMappingSchema.parse({}), "retail")).toEqual({ person: { role: "operator", desk: "retail", grants: [] } });
  });

  it("reads own properties only (no prototype names)", () => {
    expect(claimAt({ a: {} }, "a.constructor")).toBeUndefined();
    expect(mapClaims({ realm_access: { roles: ["constructor", "__proto__"] } }, mapping, "retail")).toEqual({ unmapped: "no_role" });
  });
});
