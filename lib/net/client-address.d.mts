/** Types of client-address.mjs (plain JavaScript so the custom server runs it without a compile step). */

/** The request header that carries the client address inside the console (set by the custom server only). */
export declare const CLIENT_IP_HEADER: "x-plandesk-client-ip";

/** The trusted proxies of `PLANDESK_TRUSTED_PROXIES`. */
export interface TrustedProxies {
  /** How many addresses/ranges were listed. */
  readonly size: number;
  /** Whether `address` is one of them. */
  has(address: string): boolean;
}

/** "::ffff:10.0.0.1" → "10.0.0.1"; brackets and a zone index removed; lower case. */
export declare function normalizeAddress(raw: string | null | undefined): string;

/** Parses comma-separated IPs/CIDRs. Throws an Error naming an entry that is neither. */
export declare function parseTrustedProxies(text: string | null | undefined): TrustedProxies;

/** The client address: the peer, or (peer trusted) the right-most untrusted X-Forwarded-For entry. "unknown" without a peer. */
export declare function clientAddress(input: { peer: string | null | undefined; forwardedFor: string | string[] | null | undefined; trusted: TrustedProxies | null }): string;

/** Strips any incoming x-plandesk-client-ip from a Node request and sets it from the socket; returns the address. */
export declare function applyClientAddress(
  req: { socket?: { remoteAddress?: string | null }; headers: Record<string, string | string[] | undefined>; rawHeaders?: string[] },
  trusted: TrustedProxies | null,
): string;
