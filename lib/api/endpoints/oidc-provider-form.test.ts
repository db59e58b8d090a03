/**
 * The admin page's provider form schema (lib/api/endpoints/oidc-provider-api.ts
 * `oidcProviderFormSchema`): its output is the API body, the role table becomes the `roles` record,
 * "refuse" is `defaultRole: null`, empty claim fields are null, the grants JSON is parsed by the
 * API's grant schema; each wrong field is reported on that field.
 */
import { describe, expect, it } from "vitest";
import { oidcProviderFormSchema, registerOidcProviderBodySchema, type OidcProviderFormValues } from "./oidc-provider-api";

const base: OidcProviderFormValues = { label: "Okta", issuer: "https://example.okta.com", clientId: "0oa1", clientSecret: "secret-0123456789", roleClaim: "", roles: [], defaultRole: "operator", deskClaim: "", grantsClaim: "", grantsJson: "" };
const pathsOf = (v: OidcProviderFormValues) => {
  const r = oidcProviderFormSchema.safeParse(v);
  return r.success ? [] : r.error.issues.map((i) => i.path.join("."));
};

describe("the provider form schema", () => {
  it("gives the API body: role table as a record, refuse as null, empty claims as null, grants parsed", () => {
    const grants = { approvers: [{ tool: "issue_refund", canApprove: true, approveLimit: { minor: 50_000, currency: "USD" }, canAuthor: false, authorLimit: null }] };
    const out = oidcProviderFormSchema.parse({ ...base, roleClaim: "realm_access.roles", roles: [{ value: " leads ", role: "supervisor" }], defaultRole: "refuse", grantsClaim: "groups", grantsJson: JSON.stringify(grants) });
    expect(out).toEqual({ label: "Okta", issuer: "https://example.okta.com", clientId: "0oa1", clientSecret: "secret-0123456789", mapping: { roleClaim: "realm_access.roles", roles: { leads: "supervisor" }, defaultRole: null, deskClaim: null, grantsClaim: "groups", grants } });
    expect(registerOidcProviderBodySchema.parse(out)).toEqual(out);
    expect(oidcProviderFormSchema.parse(base).mapping).toMatchObject({ roleClaim: null, roles: {}, defaultRole: "operator", grants: {} });
  });

  it("reports each wrong field on that field", () => {
    expect(pathsOf({ ...base, issuer: "http://idp.example.com" })).toEqual(["issuer"]);
    expect(pathsOf({ ...base, clientSecret: " padded " })).toEqual(["clientSecret"]);
    expect(pathsOf({ ...base, roleClaim: "a b" })).toEqual(["roleClaim"]);
    expect(pathsOf({ ...base, roles: [{ value: "", role: "admin" }] })).toEqual(["roles.0.value"]);
    expect(pathsOf({ ...base, roles: [{ value: "x", role: "admin" }, { value: "x", role: "operator" }] })).toEqual(["roles.1.value"]);
    expect(pathsOf({ ...base, grantsJson: "{not json" })).toEqual(["grantsJson"]);
    expect(pathsOf({ ...base, grantsJson: JSON.stringify({ a: [{ tool: "issue_refund" }] }) })).toEqual(["grantsJson"]);
  });
});
