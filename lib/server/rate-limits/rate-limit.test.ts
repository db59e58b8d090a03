/**
 * Which bucket a caller takes from and under which rule (lib/server/rate-limits/rate-limit.ts,
 * configured in lib/server/config/config.ts). Pure: the database side is in rate-bucket.test.ts
 * and app/api/rate-limits.test.ts.
 */
import { describe, expect, it } from "vitest";
import { DEFAULT_AGENT_BURST, DEFAULT_AGENT_RATE, DEFAULT_PERSON_BURST, DEFAULT_PERSON_RATE, serverConfig } from "../config/config";
import { bucketOf, ruleInWords } from "./rate-limit";

describe("the rate limits' configuration", () => {
  it("defaults: 10 per second and 60 at once per agent or integration key, 20 and 200 per person, 1 and 60 refused credentials per address", () => {
    expect(serverConfig({}).rateLimits).toEqual({
      agent: { capacity: 60, refillPerSecond: 10 },
      integration: { capacity: 60, refillPerSecond: 10 },
      person: { capacity: 200, refillPerSecond: 20 },
      authFailure: { capacity: 60, refillPerSecond: 1 },
    });
    expect([DEFAULT_AGENT_RATE, DEFAULT_AGENT_BURST, DEFAULT_PERSON_RATE, DEFAULT_PERSON_BURST]).toEqual([10, 60, 20, 200]);
  });

  it("reads each variable; a rate may be a fraction, a burst is whole; anything malformed or out of range is the default", () => {
    const env = {
      PLANDESK_AGENT_RATE: "0.5",
      PLANDESK_AGENT_BURST: "5",
      PLANDESK_INTEGRATION_RATE: "100",
      PLANDESK_INTEGRATION_BURST: "1000",
      PLANDESK_PERSON_RATE: " 2 ",
      PLANDESK_PERSON_BURST: "30",
      PLANDESK_AUTH_FAILURE_RATE: "0.25",
      PLANDESK_AUTH_FAILURE_BURST: "8",
    };
    expect(serverConfig(env).rateLimits).toEqual({
      agent: { capacity: 5, refillPerSecond: 0.5 },
      integration: { capacity: 1000, refillPerSecond: 100 },
      person: { capacity: 30, refillPerSecond: 2 },
      authFailure: { capacity: 8, refillPerSecond: 0.25 },
    });
    for (const bad of ["", "0", "-3", "ten", "1e9", "NaN", "Infinity"]) {
      expect(serverConfig({ PLANDESK_AGENT_RATE: bad, PLANDESK_AGENT_BURST: bad }).rateLimits.agent, bad).toEqual({ capacity: 60, refillPerSecond: 10 });
    }
    expect(serverConfig({ PLANDESK_AGENT_BURST: "2.5" }).rateLimits.agent.capacity).toBe(60);
  });
});

describe("a caller's bucket", () => {
  it("one per agent key, per integration key and per person, each under its own rule, attributed to its caller", () => {
    const env = { PLANDESK_AGENT_BURST: "5", PLANDESK_INTEGRATION_BURST: "7", PLANDESK_PERSON_BURST: "9" };
    expect(bucketOf({ kind: "agent", agentId: "agent_demo", keyId: "key_demo" }, env)).toEqual({ key: "agent-key:key_demo", rule: { capacity: 5, refillPerSecond: 10 }, actor: { kind: "agent", id: "agent_demo" }, per: "agent key" });
    expect(bucketOf({ kind: "integration", keyId: "int_demo" }, env)).toEqual({ key: "integration-key:int_demo", rule: { capacity: 7, refillPerSecond: 10 }, actor: { kind: "integration", id: "int_demo" }, per: "integration key" });
    expect(bucketOf({ kind: "person", userId: "usr_operator" }, env)).toEqual({ key: "person:usr_operator", rule: { capacity: 9, refillPerSecond: 20 }, actor: { kind: "user", id: "usr_operator" }, per: "person" });
  });

  it("says its rule in words", () => {
    expect(ruleInWords({ rule: { capacity: 60, refillPerSecond: 10 }, per: "agent key" })).toBe("at most 60 requests at once, then 10 per second per agent key");
    expect(ruleInWords({ rule: { capacity: 1, refillPerSecond: 1 / 60 }, per: "person" })).toBe("at most 1 request at once, then 0.016667 per second per person");
    expect(ruleInWords({ rule: { capacity: 2000, refillPerSecond: 1500 }, per: "integration key" })).toBe("at most 2,000 requests at once, then 1,500 per second per integration key");
  });
});
