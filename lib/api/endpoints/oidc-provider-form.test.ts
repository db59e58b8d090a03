/**
 * The admin page's provider form schema (lib/api/endpoints/oidc-provider-api.ts
 * `oidcProviderFormSchema`): its output is the API body, the role table becomes the `roles` record,
 * "refuse" is `defaultRole: null`, empty claim fields are null, the grants table (rows of the API's
 * grant schema plus a claim value) becomes the `grants` record; each wrong field is reported on
 * that field, and a server issue's path finds its field or table cell.
 */
import { describe, expect, it } from "vitest";
import { formPathOfIssue, oidcProviderFormSchema, registerOidcProviderBodySchema, type GrantRowFormValues, type OidcProviderFormValues } from "./oidc-provider-api";

const base: OidcProviderFormValues = { label: "Okta", issuer: "https://example.okta.com", clientId: "0oa1", clientSecret: "secret-0123456789", roleClaim: "", roles: [], defaultRole: "operator", deskClaim: "", grantsClaim: "", grants: [] };
const row = (value: string, tool: string, over: Partial<GrantRowFormValues> = {}): GrantRowFormValues => ({ value, tool, canApprove: true, approveLimit: null, canAuthor: false, authorLimit: null, ...over });
const pathsOf = (v: OidcProviderFormValues) => {
  const r = oidcProviderFormSchema.safeParse(v);
  return r.success ? [] : r.error.issues.map((i) => i.path.join("."));
};

describe("the provider form schema", () => {
  it("gives the API body: role table as a record, refuse as null, empty claims as null, grant rows grouped by claim value in row order", () => {
    const refund = { tool: "issue_refund", canApprove: true, approveLimit: { minor: 50_000, currency: "USD" as const }, canAuthor: false, authorLimit: null };
    const note = { tool: "add_ticket_note", canApprove: false, approveLimit: null, canAuthor: true, authorLimit: null };
    const grants = { approvers: [refund, note], "leads.emea": [note] };
    const rows = [row(" approvers ", "issue_refund", refund), row("leads.emea", "add_ticket_note", note), row("approvers", "add_ticket_note", note)];
    const out = oidcProviderFormSchema.parse({ ...base, roleClaim: "realm_access.roles", roles: [{ value: " leads ", role: "supervisor" }], defaultRole: "refuse", grantsClaim: "groups", grants: rows });
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
    const g = { ...base, grantsClaim: "groups" };
    expect(pathsOf({ ...g, grants: [row("", "issue_refund")] })).toEqual(["grants.0.value"]);
    expect(pathsOf({ ...g, grants: [row("a", "issue_refund", { approveLimit: { minor: Number.NaN, currency: "USD" } })] })).toEqual(["grants.0.approveLimit.minor"]);
    expect(pathsOf({ ...g, grants: [row("a", "issue_refund", { authorLimit: { minor: -1, currency: "USD" } })] })).toEqual(["grants.0.authorLimit.minor"]);
    expect(pathsOf({ ...g, grants: [row("a", "issue_refund"), row("b", "issue_refund"), row(" a", "issue_refund")] })).toEqual(["grants.2.tool"]);
    expect(pathsOf({ ...base, grants: [row("a", "issue_refund")] })).toEqual(["grantsClaim"]);
  });

  it("puts a server issue on its field, or on the grants table's cell of that claim value's n-th row", () => {
    const rows = [{ value: "approvers" }, { value: "a.b" }, { value: " approvers" }];
    expect(formPathOfIssue("issuer", rows)).toBe("issuer");
    expect(formPathOfIssue("mapping.roleClaim", rows)).toBe("roleClaim");
    expect(formPathOfIssue("mapping.grants.approvers.1.tool", rows)).toBe("grants.2.tool");
    expect(formPathOfIssue("mapping.grants.approvers.0", rows)).toBe("grants.0.tool");
    expect(formPathOfIssue("mapping.grants.a.b.0.approveLimit.minor", rows)).toBe("grants.1.approveLimit");
    expect(formPathOfIssue("mapping.grants.nobody.0.tool", rows)).toBe("grants");
    expect(formPathOfIssue("mapping", rows)).toBeNull();
    expect(formPathOfIssue("secret", rows)).toBeNull();
  });
});
