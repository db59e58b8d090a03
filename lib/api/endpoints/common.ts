/** What every endpoint declaration shares: path parameters, pagination and the kinds of caller. */
import { z } from "zod";
import { stepIdSchema } from "../../plan/schema";


/** An identifier in a path: 1–128 letters, digits, `_`, `-`, `.` or `:` (anything else is simply not found). */
export const idParam = z
  .string()
  .min(1)
  .max(128)
  .regex(/^[A-Za-z0-9][A-Za-z0-9_.:-]*$/, "not an identifier");
/** A plan version in a path or query (1 … 2^31-1). */
export const version = z.coerce.number().int().min(1).max(2_147_483_647);
/** `{runId}` path params. */
export const runParams = z.object({ runId: idParam });
/** `{runId, stepId}` path params. */
export const stepParams = z.object({ runId: idParam, stepId: stepIdSchema });
/** `{taskId}` path params. */
export const taskParams = z.object({ taskId: idParam });
/** Keyset pagination query params (`cursor`, `limit` 1–200). */
export const page = { cursor: z.string().max(500).optional(), limit: z.coerce.number().int().min(1).max(200).optional() };

/** Callers: an agent key; people by role (see lib/api/contract.ts `caller`). */
export const AGENT = { kind: "agent" } as const;
export const PEOPLE = { kind: "session", roles: ["operator", "supervisor", "admin"] } as const;
export const DESK = { kind: "session", roles: ["operator", "supervisor"] } as const;
export const SUPERVISOR = { kind: "session", roles: ["supervisor"] } as const;
export const ADMIN = { kind: "session", roles: ["admin"] } as const;
