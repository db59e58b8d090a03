import { passkey } from "@better-auth/passkey";
import { serverConfig } from "../config/config";

/** The relying party name authenticators show when a person registers or uses a passkey. */
export const RP_NAME = "Plandesk";

/**
 * The WebAuthn relying party of this instance, from `PLANDESK_URL` (lib/server/config/config.ts):
 * `rpID` its host name (a passkey registered on it works only there), `origin` its origin (the
 * only one an assertion may come from). The same values verify signed approvals
 * (lib/server/signatures/verify-signature.ts), so a passkey signs in and signs with one identity.
 */
export function relyingParty(): { rpID: string; rpName: string; origin: string } {
  const config = serverConfig();
  return { rpID: new URL(config.publicUrl).hostname, rpName: RP_NAME, origin: config.origin };
}

/**
 * better-auth's passkey plugin (on SimpleWebAuthn) for lib/server/auth/auth.ts: a signed-in person
 * registers passkeys (`/passkey/generate-register-options`, `/passkey/verify-registration`, a fresh
 * session required), lists, renames and deletes their own, and signs in with one
 * (`/passkey/generate-authenticate-options`, `/passkey/verify-authentication`). Registration asks
 * for user verification, so the same passkey can sign approvals that require it.
 */
export function passkeyPlugin() {
  const rp = relyingParty();
  return passkey({
    rpID: rp.rpID,
    rpName: rp.rpName,
    origin: rp.origin,
    authenticatorSelection: { residentKey: "preferred", userVerification: "required" },
  });
}
