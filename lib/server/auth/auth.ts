import { betterAuth } from "better-auth";
import { APIError, createAuthMiddleware, getSessionFromCtx } from "better-auth/api";
import { prismaAdapter } from "better-auth/adapters/prisma";
import { DB_PROVIDER, prisma } from "../db/db";
import { assertStartable, serverConfig } from "../config/config";
import { CLIENT_IP_HEADER } from "../../net/client-address.mjs";
import { recordSessionEnd } from "../feed/live-feed";
import { plandeskOidc } from "./oidc-plugin";
import { passkeyPlugin } from "./passkey-plugin";
import { log } from "../../net/log.mjs";

// Production mode without a real session secret must not serve anything (lib/server/config/config.ts).
// Checked inside the Next.js server only (not during `next build`, not in scripts or tests).
if (process.env.NEXT_RUNTIME && process.env.NEXT_PHASE !== "phase-production-build") assertStartable();
const config = serverConfig();

/**
 * better-auth: email + password, database sessions (no cookie cache, so disabling a user
 * ends their sessions at once), sign-up closed (admins create users), roles on the user.
 * Trusted origin is PLANDESK_URL only; better-auth refuses foreign-origin sign-in with 403.
 */
export const auth = betterAuth({
  appName: "Plandesk",
  baseURL: config.publicUrl,
  secret: config.secret,
  trustedOrigins: [config.origin],
  // An error that is not better-auth's own refusal (e.g. the database went away) is thrown to the
  // route file instead of becoming a bare 500, so it is answered like every endpoint's
  // (503 database_unavailable; app/api/auth/[...all]/route.ts). Refusals are still answered by better-auth.
  onAPIError: { throw: true },
  database: prismaAdapter(prisma, { provider: DB_PROVIDER === "postgresql" ? "postgresql" : "sqlite" }),
  account: { modelName: "authAccount" },
  emailAndPassword: { enabled: true, disableSignUp: true, minPasswordLength: 10 },
  session: {
    expiresIn: 60 * 60 * 12, // 12 hours
    updateAge: 60 * 30,
    cookieCache: { enabled: false },
  },
  user: {
    additionalFields: {
      role: { type: "string", input: false, defaultValue: "operator" },
      disabled: { type: "boolean", input: false, defaultValue: false },
      // read with the session, so a request's viewer needs no second read of the user (session.ts)
      desk: { type: "string", input: false, required: false },
    },
  },
  advanced: {
    useSecureCookies: config.https,
    // The client address is the one the custom server (scripts/server.mjs) took from the socket;
    // X-Forwarded-For, which any client can set, is never read here.
    ipAddress: { ipAddressHeaders: [CLIENT_IP_HEADER] },
  },
  // A display name shows in presence, the audit trail and "who acts next": people cannot change
  // their own (nor their picture); an admin renames them (lib/server/admin/admin.ts updateUser,
  // audited). better-auth's /update-user is refused for everyone.
  //
  // A changed password ends the person's other sessions (whoever held the old password is out):
  // /change-password always runs with revokeOtherSessions, whatever the body says.
  //
  // /revoke-session with an empty token, an unknown one or another person's answers 404
  // `session_not_found` (better-auth answered `{status: true}` and revoked nothing).
  hooks: {
    before: createAuthMiddleware(async (ctx) => {
      if (ctx.path === "/update-user") {
        throw new APIError("FORBIDDEN", { code: "NAME_CHANGE_BY_ADMIN_ONLY", message: "Display names are changed by an admin (Admin → Users); ask one to rename you." });
      }
      if (ctx.path === "/change-password" && ctx.body && typeof ctx.body === "object") {
        return { context: { body: { ...(ctx.body as Record<string, unknown>), revokeOtherSessions: true } } };
      }
      if (ctx.path === "/revoke-session") {
        const current = await getSessionFromCtx(ctx);
        if (!current) return; // better-auth answers 401
        const token: unknown = (ctx.body as { token?: unknown } | undefined)?.token;
        const target = typeof token === "string" && token ? await prisma.session.findUnique({ where: { token }, select: { userId: true } }) : null;
        if (!target || target.userId !== current.user.id) {
          throw new APIError("NOT_FOUND", { code: "SESSION_NOT_FOUND", message: "No session of yours has that token." });
        }
      }
    }),
  },
  databaseHooks: {
    session: {
      create: {
        before: async (session) => {
          const user = await prisma.user.findUnique({ where: { id: session.userId }, select: { disabled: true } });
          if (!user || user.disabled) return false;
          return { data: session };
        },
      },
      // Signed out (or a session removed): that person's open live streams re-check at once, on every instance.
      delete: {
        after: async (session) => {
          await recordSessionEnd(prisma, session.userId).catch((e) => log.error({ err: e }, "plandesk: could not record a session end"));
        },
      },
    },
  },
  // A general guard on better-auth's own endpoints, per client address. Email sign-in has its
  // own limits per address AND per account, stored in the database (lib/server/auth/sign-in-limits.ts).
  rateLimit: {
    enabled: true,
    window: 60,
    max: 300,
    customRules: { "/sign-in/email": false },
  },
  telemetry: { enabled: false },
  // Single sign-on through the OpenID Connect providers admins register per desk (lib/server/auth/oidc-plugin.ts);
  // passkeys: registered from the account menu, sign-in with one, and the key that signs approvals (lib/server/auth/passkey-plugin.ts).
  plugins: [plandeskOidc(), passkeyPlugin()],
});
