import { describe, expect, it } from "vitest";
import { listenUrl, poolerMode } from "./pooler";

const DB = "postgresql://app@pooler:6432/plandesk";

describe("pooler settings", () => {
  it("session unless PLANDESK_DATABASE_POOLER says transaction; a misspelt value stops the start", () => {
    expect(poolerMode({})).toBe("session");
    expect(poolerMode({ PLANDESK_DATABASE_POOLER: "none" })).toBe("session");
    expect(poolerMode({ PLANDESK_DATABASE_POOLER: " Transaction " })).toBe("transaction");
    expect(() => poolerMode({ PLANDESK_DATABASE_POOLER: "transactions" })).toThrow(/PLANDESK_DATABASE_POOLER/);
  });

  it("the live feed listens on the listen URL when set, on DATABASE_URL in session mode, and polls behind a transaction pooler without one", () => {
    const direct = "postgresql://app@db:5432/plandesk";
    expect(listenUrl(DB, { PLANDESK_DATABASE_LISTEN_URL: direct, PLANDESK_DATABASE_POOLER: "transaction" })).toBe(direct);
    expect(listenUrl(DB, {})).toBe(DB);
    expect(listenUrl(DB, { PLANDESK_DATABASE_POOLER: "transaction" })).toBeNull();
    expect(() => listenUrl(DB, { PLANDESK_DATABASE_LISTEN_URL: "mysql://x" })).toThrow(/LISTEN_URL/);
  });
});
