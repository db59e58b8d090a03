import { createAuthClient } from "better-auth/react";

/** better-auth's browser client; same-origin, so no base URL is needed. */
export const authClient = createAuthClient();
