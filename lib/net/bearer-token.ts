/**
 * The one parser of an `Authorization: Bearer` header, shared by the agent, integration and
 * metrics credentials. A leaf module: it imports nothing, so any server folder may use it.
 */
/**
 * The credential of an `Authorization: Bearer <token>` header (scheme case-insensitive, RFC 6750
 * §2.1; one token, no spaces), or null when the header is missing or has another form.
 */
export function bearerToken(authorization: string | null): string | null {
  return /^Bearer\s+(\S+)$/i.exec(authorization ?? "")?.[1] ?? null;
}
