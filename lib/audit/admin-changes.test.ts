/** How the admins' change log reads an `admin_change` event: fields changed, credentials hidden, every writer's `what` in words. */
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { describeAdminChange, KNOWN_ADMIN_CHANGES, VALUE_CHARS } from "./admin-changes";

describe("describeAdminChange", () => {
  it("lists only the fields that differ, key order ignored, with before and after", () => {
    const d = describeAdminChange({
      what: "grant.set",
      target: { kind: "grant", id: "usr_erin:issue_refund" },
      before: { canApprove: false, approveLimit: null, scope: { b: 1, a: 2 } },
      after: { canApprove: true, approveLimit: { minor: 25000, currency: "USD" }, scope: { a: 2, b: 1 } },
      userId: "usr_erin",
    });
    expect(d).toEqual({
      what: "grant.set",
      label: "Grant set",
      target: "grant usr_erin:issue_refund",
      fields: [
        { name: "approveLimit", before: "—", after: "$250.00" },
        { name: "canApprove", before: "false", after: "true" },
      ],
    });
  });

  it("a creation lists every field of the new object", () => {
    const d = describeAdminChange({ what: "user.create", target: { kind: "user", id: "usr_1" }, before: null, after: { email: "e@x.test", role: "operator" } });
    expect(d.fields).toEqual([
      { name: "email", before: "—", after: "e@x.test" },
      { name: "role", before: "—", after: "operator" },
    ]);
  });

  it("never shows a credential a writer stored, and cuts long values", () => {
    const d = describeAdminChange({
      what: "desk.oidc_provider.register",
      before: null,
      after: { clientSecret: "s3cr3t-value", passwordHash: "scrypt$abc", token: "tok_live", issuer: "https://idp.example", note: "x".repeat(500) },
    });
    const text = JSON.stringify(d);
    for (const secret of ["s3cr3t-value", "scrypt$abc", "tok_live"]) expect(text).not.toContain(secret);
    expect(d.fields.find((f) => f.name === "clientSecret")).toEqual({ name: "clientSecret", before: "—", after: "(hidden)" });
    expect(d.fields.find((f) => f.name === "issuer")!.after).toBe("https://idp.example");
    const note = d.fields.find((f) => f.name === "note")!.after;
    expect(note).toHaveLength(VALUE_CHARS);
    expect(note.endsWith("…")).toBe(true);
  });

  it("reads any stored shape without throwing: an unknown what, a scalar, nothing", () => {
    expect(describeAdminChange({ what: "something.new", before: 1, after: 2 })).toEqual({ what: "something.new", label: "something.new", target: "", fields: [{ name: "value", before: "1", after: "2" }] });
    expect(describeAdminChange(null)).toEqual({ what: "admin_change", label: "admin_change", target: "", fields: [] });
    expect(describeAdminChange({ what: "webhook.retry", before: { status: "failed" }, after: { status: "failed" } }).fields).toEqual([]);
  });

  it("knows every change the server writes in words", () => {
    const root = path.resolve(__dirname, "../..");
    const written = new Set<string>();
    const walk = (dir: string) => {
      for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
        const p = path.join(dir, e.name);
        if (e.isDirectory()) walk(p);
        else if (e.name.endsWith(".ts") && !e.name.endsWith(".test.ts")) {
          const src = fs.readFileSync(p, "utf8");
          if (!src.includes("admin_change")) continue;
          for (const m of src.matchAll(/what: "([a-z_.]+)"/g)) written.add(m[1]);
          for (const m of src.matchAll(/audit\(tx, \{[^}]*\}, "([a-z_.]+)"/g)) written.add(m[1]);
        }
      }
    };
    walk(path.join(root, "lib/server"));
    expect(written.size).toBeGreaterThan(15);
    expect([...written].filter((w) => !KNOWN_ADMIN_CHANGES.includes(w)).sort()).toEqual([]);
  });
});
