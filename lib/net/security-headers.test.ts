import { describe, expect, it } from "vitest";
import { API_CSP, newNonce, pageCsp, securityHeaders } from "./security-headers";

describe("security headers (issue #13)", () => {
  it("pages: a nonce-based script policy, never 'unsafe-inline' for scripts, no framing", () => {
    const csp = pageCsp("abc123==");
    const script = csp.split("; ").find((d) => d.startsWith("script-src "))!;
    expect(script).toBe("script-src 'self' 'nonce-abc123==' 'strict-dynamic'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).toContain("object-src 'none'");
    expect(csp).not.toContain("upgrade-insecure-requests");
    expect(pageCsp("n", { dev: true })).toContain("'unsafe-eval'");
    expect(pageCsp("n", { https: true })).toContain("upgrade-insecure-requests");
  });

  it("API answers load nothing; HSTS only over https; the base headers everywhere", () => {
    const api = securityHeaders("/api/runs", { nonce: "ignored" });
    expect(api["Content-Security-Policy"]).toBe(API_CSP);
    expect(api["Strict-Transport-Security"]).toBeUndefined();
    const page = securityHeaders("/runs", { nonce: "n1", https: true });
    expect(page["Content-Security-Policy"]).toContain("'nonce-n1'");
    expect(page["Strict-Transport-Security"]).toMatch(/^max-age=\d+/);
    for (const h of [api, page]) {
      expect(h["X-Content-Type-Options"]).toBe("nosniff");
      expect(h["Referrer-Policy"]).toBeTruthy();
      expect(h["Permissions-Policy"]).toContain("camera=()");
    }
  });

  it("a fresh nonce per call: 16 random bytes, base64", () => {
    const a = newNonce();
    expect(Buffer.from(a, "base64")).toHaveLength(16);
    expect(newNonce()).not.toBe(a);
  });
});
