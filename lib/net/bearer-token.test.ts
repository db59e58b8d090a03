/** The Bearer header parser every credential check reads: what it accepts and what it refuses. */
import { describe, expect, it } from "vitest";
import { bearerToken } from "./bearer-token";

describe("bearerToken", () => {
  it("reads the token of a Bearer header, the scheme in any case", () => {
    expect(bearerToken("Bearer pd_abc")).toBe("pd_abc");
    expect(bearerToken("bearer pdi_x-y_z")).toBe("pdi_x-y_z");
    expect(bearerToken("BEARER   tok")).toBe("tok");
  });

  it("refuses a missing header, another scheme, no token or two tokens", () => {
    for (const h of [null, "", "Basic dXNlcjpwdw==", "Bearer", "Bearer ", "Bearer a b", "Token pd_abc", " Bearer pd_abc"]) expect(bearerToken(h), String(h)).toBeNull();
  });
});
