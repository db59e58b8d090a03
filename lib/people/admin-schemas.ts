import { z } from "zod";
import { INTEGRATION_SCOPES, integrationScopeSchema } from "../api/integration-scopes";
import { deskIdSchema } from "../desk/desks";
import { currencySchema } from "../money/money";
import { getTool } from "../tools/builtin-tools";

/**
 * Admin inputs: one zod schema per concept, used by the admin forms
 * (react-hook-form resolver) and by the route handlers under app/api/admin/** alike.
 * Client-safe: no server imports.
 */

/** The roles a person can hold (docs/design.md "People and machines"). */
export const ROLES = ["operator", "supervisor", "admin"] as const;
export const roleSchema = z.enum(ROLES, { error: "Choose operator, supervisor or admin" });
export type RoleName = z.infer<typeof roleSchema>;

/** better-auth's password bounds as configured in lib/server/auth/auth.ts. */
export const PASSWORD_MIN = 10;
export const PASSWORD_MAX = 128;
export const passwordSchema = z
  .string({ error: "Enter a password" })
  .min(PASSWORD_MIN, `At least ${PASSWORD_MIN} characters`)
  .max(PASSWORD_MAX, `At most ${PASSWORD_MAX} characters`);

export const emailSchema = z
  .string({ error: "Enter an email address" })
  .trim()
  .toLowerCase()
  .max(200, "At most 200 characters")
  .pipe(z.email({ error: "Enter a valid email address" }));

/** Body of `POST /api/admin/users`: a person with a role, an initial password and their desk (absent: the default desk). */
export const createUserSchema = z
  .object({
    email: emailSchema,
    name: z.string({ error: "Enter a name" }).trim().min(1, "Enter a name").max(100, "At most 100 characters"),
    role: roleSchema,
    password: passwordSchema,
    desk: deskIdSchema.optional(),
  })
  .strict();
export type CreateUserInput = z.infer<typeof createUserSchema>;

/** Body of `PATCH /api/admin/users/{userId}`: disable/enable, change the role and/or assign another desk. */
export const updateUserSchema = z
  .object({ disabled: z.boolean().optional(), role: roleSchema.optional(), desk: deskIdSchema.optional(), name: z.string().trim().min(1, "Give a name").max(100, "Keep the name under 100 characters").optional() })
  .strict()
  .refine((v) => v.disabled !== undefined || v.role !== undefined || v.desk !== undefined || v.name !== undefined, { error: "Nothing to change: send disabled, role, desk and/or name" });
export type UpdateUserInput = z.infer<typeof updateUserSchema>;

/**
 * The largest whole number a money column holds on every supported database (PostgreSQL `int4`,
 * 2^31 − 1; SQLite would hold more): a grant ceiling of at most 21,474,836.47 in a 2-decimal currency.
 */
export const MAX_STORED_MINOR = 2_147_483_647;

/** A grant ceiling: whole minor units 0…MAX_STORED_MINOR plus currency, or `null` for no ceiling. */
export const ceilingSchema = z
  .object({
    minor: z
      .number({ error: "Enter an amount like 500.00, or leave it empty for no ceiling" })
      .int("Enter an amount like 500.00")
      .min(0, "A ceiling cannot be negative")
      .max(MAX_STORED_MINOR, "That ceiling is too large (at most 21,474,836.47)"),
    currency: currencySchema,
  })
  .strict()
  .nullable();
export type Ceiling = z.infer<typeof ceilingSchema>;

/**
 * Body of `PUT /api/admin/users/{userId}/grants/{tool}`: may approve (with an optional ceiling),
 * may author (likewise). A ceiling only counts together with its permission; both off removes the grant.
 */
export const grantInputSchema = z
  .object({
    canApprove: z.boolean(),
    approveLimit: ceilingSchema,
    canAuthor: z.boolean(),
    authorLimit: ceilingSchema,
  })
  .strict();
export type GrantInput = z.infer<typeof grantInputSchema>;

/** True when `tool` moves money, so its grants may carry a ceiling (a field of kind `money`). */
export function toolMovesMoney(tool: string): boolean {
  return getTool(tool)?.fields.some((f) => f.kind === "money") ?? false;
}

/** A tool name in an allowlist (whether the catalog knows it is checked by the service, against the one catalog). */
const toolNameSchema = z.string({ error: "Choose a tool" }).min(1, "Choose a tool").max(64, "At most 64 characters");

/**
 * Body of `POST /api/admin/agents`: a named agent, the tools it may call (its allowlist) —
 * built-in or imported names of the current catalog, like `PUT …/allowed-tools` — and its desk
 * (absent: the default desk).
 */
export const createAgentSchema = z
  .object({
    name: z.string({ error: "Enter a name" }).trim().min(1, "Enter a name").max(100, "At most 100 characters"),
    desk: deskIdSchema.optional(),
    allowedTools: z.array(toolNameSchema).min(1, "Allow at least one tool").max(500, "At most 500 tools"),
  })
  .strict();
export type CreateAgentInput = z.infer<typeof createAgentSchema>;

/** The choices of the console's "Expires" field, in days (null: never). */
export const API_KEY_LIFETIME_DAYS = [null, 30, 90, 365] as const;

/**
 * Creating an agent API key: a name saying where the key is used (the console asks for one; the
 * API accepts none, for callers made before names) and when it stops being accepted, an ISO-8601
 * instant with its offset (absent or null: never). An instant that is not in the future is
 * refused by the server (`validation_failed` at `expiresAt`), since the key would be dead on arrival.
 */
export const createApiKeySchema = z
  .object({
    name: z.string({ error: "Enter a name" }).trim().min(1, "Enter a name").max(100, "At most 100 characters").optional(),
    expiresAt: z.iso.datetime({ offset: true, error: "An ISO-8601 instant, e.g. 2027-03-01T00:00:00Z" }).nullish(),
  })
  .strict();
export type CreateApiKeyInput = z.infer<typeof createApiKeySchema>;

/**
 * Creating an integration key: a name saying which system holds it, optionally the desk whose
 * tasks and records it reaches (absent or null: every desk), and its scopes
 * (lib/api/integration-scopes.ts: at least one, each at most once; absent: every scope, as keys
 * made before scopes existed).
 */
export const createIntegrationKeySchema = z
  .object({
    name: z.string({ error: "Enter a name" }).trim().min(1, "Enter a name").max(100, "At most 100 characters"),
    desk: z.string().min(1).max(32).nullish(),
    scopes: z
      .array(integrationScopeSchema)
      .min(1, "Choose at least one scope")
      .max(INTEGRATION_SCOPES.length)
      .refine((a) => new Set(a).size === a.length, "Each scope at most once")
      .optional(),
  })
  .strict();
export type CreateIntegrationKeyInput = z.infer<typeof createIntegrationKeySchema>;
