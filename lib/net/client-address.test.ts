import { describe, expect, it } from "vitest";
import { applyClientAddress, clientAddress, CLIENT_IP_HEADER, parseTrustedProxies } from "./client-address.mjs";

describe("the client address (issue #13: X-Forwarded-For is believed only from trusted proxies)", () => {
  const none = parseTrustedProxies("");
  const proxies = parseTrustedProxies("127.0.0.1, 10.0.0.0/8, fd00::/8");

  it("without trusted proxies the socket's peer is the client, whatever X-Forwarded-For says", () => {
    expect(clientAddress({ peer: "203.0.113.7", forwardedFor: "10.0.0.1", trusted: none })).toBe("203.0.113.7");
    expect(clientAddress({ peer: "203.0.113.7", forwardedFor: "10.0.0.1", trusted: null })).toBe("203.0.113.7");
    expect(clientAddress({ peer: "::ffff:203.0.113.7", forwardedFor: undefined, trusted: none })).toBe("203.0.113.7");
  });

  it("a peer that is not a trusted proxy is the client even when proxies are configured", () => {
    expect(clientAddress({ peer: "198.51.100.4", forwardedFor: "1.2.3.4", trusted: proxies })).toBe("198.51.100.4");
  });

  it("behind trusted proxies: the right-most entry that is not a trusted proxy", () => {
    expect(clientAddress({ peer: "127.0.0.1", forwardedFor: "198.51.100.9", trusted: proxies })).toBe("198.51.100.9");
    // the client's own claims (left of what the first trusted proxy saw) are ignored
    expect(clientAddress({ peer: "127.0.0.1", forwardedFor: "1.1.1.1, 9.9.9.9, 198.51.100.9, 10.2.3.4", trusted: proxies })).toBe("198.51.100.9");
    // several headers are one list
    expect(clientAddress({ peer: "10.9.9.9", forwardedFor: ["6.6.6.6", "198.51.100.10, 10.0.0.2"], trusted: proxies })).toBe("198.51.100.10");
  });

  it("all hops trusted: the left-most; garbage in the list stops the walk at the last good hop", () => {
    expect(clientAddress({ peer: "127.0.0.1", forwardedFor: "10.0.0.5, 10.0.0.6", trusted: proxies })).toBe("10.0.0.5");
    expect(clientAddress({ peer: "127.0.0.1", forwardedFor: "", trusted: proxies })).toBe("127.0.0.1");
    expect(clientAddress({ peer: "127.0.0.1", forwardedFor: "__proto__, 10.0.0.7", trusted: proxies })).toBe("10.0.0.7");
    expect(clientAddress({ peer: "127.0.0.1", forwardedFor: "not-an-ip", trusted: proxies })).toBe("127.0.0.1");
  });

  it("IPv6 proxies and clients", () => {
    expect(clientAddress({ peer: "fd00::1", forwardedFor: "2001:db8::7", trusted: proxies })).toBe("2001:db8::7");
    expect(clientAddress({ peer: undefined, forwardedFor: "1.2.3.4", trusted: proxies })).toBe("unknown");
  });

  it("a PLANDESK_TRUSTED_PROXIES entry that is not an address or range is refused, naming it", () => {
    expect(() => parseTrustedProxies("10.0.0.0/8, localhost")).toThrow(/"localhost"/);
    expect(() => parseTrustedProxies("10.0.0.0/33")).toThrow(/10\.0\.0\.0\/33/);
    expect(() => parseTrustedProxies("10.0.0.0/8/1")).toThrow();
    expect(parseTrustedProxies(" , ").size).toBe(0);
  });

  it("the server replaces any x-plandesk-client-ip a client sent with the socket's address", () => {
    const req = {
      socket: { remoteAddress: "203.0.113.50" },
      headers: { [CLIENT_IP_HEADER]: "1.1.1.1", "x-forwarded-for": "2.2.2.2" } as Record<string, string | string[] | undefined>,
      rawHeaders: ["X-Plandesk-Client-Ip", "1.1.1.1", "X-Forwarded-For", "2.2.2.2", "x-plandesk-client-ip", "3.3.3.3"],
    };
    expect(applyClientAddress(req, none)).toBe("203.0.113.50");
    expect(req.headers[CLIENT_IP_HEADER]).toBe("203.0.113.50");
    expect(req.rawHeaders).toEqual(["X-Forwarded-For", "2.2.2.2", CLIENT_IP_HEADER, "203.0.113.50"]);
  });
});
