/**
 * Who calls: the signed-in person (`Viewer`), an agent key's caller (`AgentCaller`) and an
 * integration key's caller (`IntegrationCaller`), with the plain reads and scopes built from them.
 * No request, cookie or sign-in library here (those are lib/server/auth/session.ts), so domain
 * code that only needs a person or a caller's desk does not load the sign-in machinery.
 */
import { DEFAULT_DESK } from "../../desk/desks";
import type { Prisma } from "../../generated/prisma/client";
import type { Grant } from "../../people/grants";
import type { Currency } from "../../money/format-money";
import type { IntegrationScope } from "../../api/integration-scopes";
import { prisma } from "../db/db";

/** A signed-in person as route handlers and pages see them, with their grants loaded once. */
export interface Viewer {
  id: string;
  name: string;
  email: string;
  role: "operator" | "supervisor" | "admin";
  /** The exceptions desk an operator works; supervisors and admins see every desk. */
  desk: string;
  grants: Grant[];
}

/** The calling integration (a ticketing or record system; its own credential, not an agent's). */
export interface IntegrationCaller {
  id: string;
  name: string;
  /** The desk whose tasks the key may post ticket events for; null or absent: every desk. */
  desk?: string | null;
  /** What the key may do (lib/api/integration-scopes.ts); absent (hand-built callers in tests): every scope. */
  scopes?: readonly IntegrationScope[];
}

/** The calling agent of an `/api/v1` request. */
export interface AgentCaller {
  id: string;
  name: string;
  allowedTools: string[];
  keyId: string;
  /**
   * The tenant desk the agent works: it reads and submits for that desk's tasks only and reaches
   * only that desk's runs. Absent (hand-built callers in tests) means the default desk.
   */
  desk?: string;
}

/** The tenant desk of an agent caller (`DEFAULT_DESK` when the caller names none). */
export function agentDesk(agent: Pick<AgentCaller, "desk">): string {
  return agent.desk ?? DEFAULT_DESK;
}

/**
 * Loads a person with their role and grants by user id; null when unknown or disabled.
 * Grants' ceilings come back as Money (minor units + currency).
 */
export async function loadViewer(userId: string): Promise<Viewer | null> {
  const user = await prisma.user.findUnique({ where: { id: userId }, include: { grants: true } });
  if (!user || user.disabled) return null;
  return {
    id: user.id,
    name: user.name,
    email: user.email,
    role: (["operator", "supervisor", "admin"].includes(user.role) ? user.role : "operator") as Viewer["role"],
    desk: user.desk,
    grants: grantsOf(user.grants),
  };
}

/** Grant rows (ceilings as minor units + currency columns) as `Grant`s with Money ceilings. */
export function grantsOf(rows: readonly Prisma.GrantGetPayload<object>[]): Grant[] {
  return rows.map((g) => ({
    tool: g.tool,
    canApprove: g.canApprove,
    approveLimit: g.approveLimitMinor != null ? { minor: g.approveLimitMinor, currency: (g.approveLimitCurrency ?? "USD") as Currency } : null,
    canAuthor: g.canAuthor,
    authorLimit: g.authorLimitMinor != null ? { minor: g.authorLimitMinor, currency: (g.authorLimitCurrency ?? "USD") as Currency } : null,
  }));
}

/** The roles a person can hold (docs/design.md "People and machines"). */
export type Role = Viewer["role"];

/**
 * Object-level scope of runs for `viewer`: an operator reaches only the runs of their
 * own desk (the desk of the ticket's customer account); supervisors and admins reach all desks.
 * Used in the `where` of every run lookup, so another desk's run is simply not found (404).
 */
export function deskScope(viewer: Pick<Viewer, "role" | "desk">): Prisma.RunWhereInput {
  return viewer.role === "operator" ? { desk: viewer.desk } : {};
}
