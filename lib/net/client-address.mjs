// The client address of a request, shared by the custom server (scripts/server.mjs,
// plain Node: it runs before any TypeScript is compiled) and the tests. No dependencies but
// node:net. Types: client-address.d.mts.
import { BlockList, isIP } from "node:net";

/**
 * The request header that carries the client address inside the console. The custom server
 * removes any copy a client sent and sets it from the TCP socket (or the trusted proxies'
 * X-Forwarded-For); better-auth and the sign-in limits read only this header.
 */
export const CLIENT_IP_HEADER = "x-plandesk-client-ip";

/** "::ffff:10.0.0.1" → "10.0.0.1"; brackets and a zone index removed; anything else unchanged. */
export function normalizeAddress(raw) {
  let a = String(raw ?? "").trim();
  if (a.startsWith("[") && a.includes("]")) a = a.slice(1, a.indexOf("]"));
  const zone = a.indexOf("%");
  if (zone > 0) a = a.slice(0, zone);
  const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i.exec(a);
  if (mapped) a = mapped[1];
  return a.toLowerCase();
}

/**
 * Parses `PLANDESK_TRUSTED_PROXIES`: comma-separated IPv4/IPv6 addresses and CIDR ranges
 * (e.g. "10.0.0.0/8, 127.0.0.1, fd00::/8"). Returns `{ has(address), size }` where `has` says
 * whether an address is one of them. Throws an Error naming the entry that is not an address or
 * range (a typo must not silently trust nothing — or everything).
 */
export function parseTrustedProxies(text) {
  const list = new BlockList();
  let size = 0;
  for (const part of String(text ?? "").split(",")) {
    const entry = part.trim();
    if (!entry) continue;
    const [addr, bits, extra] = entry.split("/");
    const ip = normalizeAddress(addr);
    const family = isIP(ip);
    const prefix = bits === undefined ? null : Number(bits);
    const max = family === 4 ? 32 : 128;
    if (!family || extra !== undefined || (prefix !== null && (!/^\d{1,3}$/.test(bits) || prefix > max))) {
      throw new Error(`PLANDESK_TRUSTED_PROXIES: "${entry}" is not an IP address or CIDR range (e.g. 10.0.0.0/8).`);
    }
    const type = family === 4 ? "ipv4" : "ipv6";
    if (prefix === null) list.addAddress(ip, type);
    else list.addSubnet(ip, prefix, type);
    size++;
  }
  return {
    size,
    has(address) {
      const ip = normalizeAddress(address);
      const family = isIP(ip);
      return family !== 0 && list.check(ip, family === 4 ? "ipv4" : "ipv6");
    },
  };
}

/**
 * The address of the client that sent a request:
 * - the TCP peer (`peer`), unless the peer is a trusted proxy;
 * - when it is, the right-most X-Forwarded-For entry that is not itself a trusted proxy (each
 *   proxy appends the address it saw, so entries left of the first untrusted one are the
 *   client's own claims and are ignored); when every entry is trusted, the left-most one.
 * An X-Forwarded-For entry that is not an IP address ends the walk: the address it was appended
 * by (the last good one, or the peer) is used. IPv4-mapped IPv6 addresses are returned as IPv4.
 * `forwardedFor` is the header's value(s) (several headers are read as one list); `trusted` is
 * what `parseTrustedProxies` returns (or null: no proxy is trusted). Returns "unknown" when the
 * peer is unknown (a closed socket).
 */
export function clientAddress({ peer, forwardedFor, trusted }) {
  const from = normalizeAddress(peer);
  if (!from || !isIP(from)) return "unknown";
  if (!trusted || trusted.size === 0 || !trusted.has(from)) return from;
  const values = Array.isArray(forwardedFor) ? forwardedFor.join(",") : String(forwardedFor ?? "");
  const hops = values
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);
  let current = from;
  for (let i = hops.length - 1; i >= 0; i--) {
    const hop = normalizeAddress(hops[i]);
    if (!isIP(hop)) return current;
    current = hop;
    if (!trusted.has(hop)) return hop;
  }
  return current;
}

/**
 * Rewrites a Node request's headers the way the custom server does before Next.js sees them:
 * removes every incoming `x-plandesk-client-ip` and sets it to `clientAddress(...)`. `headers`
 * is `IncomingMessage.headers` (mutated); `rawHeaders` (if given) is filtered the same way.
 * Returns the address.
 */
export function applyClientAddress(req, trusted) {
  const address = clientAddress({ peer: req.socket?.remoteAddress, forwardedFor: req.headers["x-forwarded-for"], trusted });
  delete req.headers[CLIENT_IP_HEADER];
  if (Array.isArray(req.rawHeaders)) {
    const raw = [];
    for (let i = 0; i + 1 < req.rawHeaders.length; i += 2) {
      if (req.rawHeaders[i].toLowerCase() !== CLIENT_IP_HEADER) raw.push(req.rawHeaders[i], req.rawHeaders[i + 1]);
    }
    raw.push(CLIENT_IP_HEADER, address);
    req.rawHeaders.length = 0;
    req.rawHeaders.push(...raw);
  }
  req.headers[CLIENT_IP_HEADER] = address;
  return address;
}
