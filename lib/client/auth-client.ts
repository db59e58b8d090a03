import { createAuthClient } from "better-auth/react";
import { passkeyClient } from "@better-auth/passkey/client";

/** better-auth's browser client with the passkey plugin's calls (`authClient.passkey.*`, `authClient.signIn.passkey`); same-origin, so no base URL is needed. */
export const authClient = createAuthClient({ plugins: [passkeyClient()] });
