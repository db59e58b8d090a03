import { headers as nextHeaders } from "next/headers";
import { DomainError } from "../errors";
import type { Grant } from "../grants";
import type { Currency } from "../money";
import { auth } from "./auth";
import { serverConfig } from "./config";
import { hashApiKey } from "./api-keys";
import { prisma } from "./db";

/** A signed-in person as route handlers and pages see them, with their grants loaded once. */
export interface Viewer {
  id: string;
  name: string;
  email: string;
  role: "operator" | "supervisor" | "admin";
  grants: Grant[];
}

/** The calling agent of an `/api/v1` request. */
export interface AgentCaller {
  id: string;
  name: string;
  allowedTools: string[];
  keyId: string;
}

/**
 * Loads the signed-in, non-disabled user for `headers` (session cookie), or null.
 * Reads the database on every call (no cookie cache), so a disabled user is refused at once.
 */
export async function getViewer(headers?: Headers): Promise<Viewer | null> {
  const h = headers ?? (await nextHeaders());
  const session = await auth.api.getSession({ headers: h });
  if (!session) return null;
  return loadViewer(session.user.id);
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
    grants: user.grants.map((g) => ({
      tool: g.tool,
      canApprove: g.canApprove,
      approveLimit: g.approveLimitMinor != null ? { minor: g.approveLimitMinor, currency: (g.approveLimitCurrency ?? "USD") as Currency } : null,
      canAuthor: g.canAuthor,
      authorLimit: g.authorLimitMinor != null ? { minor: g.authorLimitMinor, currency: (g.authorLimitCurrency ?? "USD") as Currency } : null,
    })),
  };
}

/**
 * Authenticates an operator API request. Errors: 401 `unauthorized` when an agent key is sent
 * (agent keys work only on /api/v1) or no valid session exists; 403 `cross_origin` when
 * `mutating` and the `Origin` header is missing or not PLANDESK_URL's origin.
 */
export async function requireViewer(req: Request, opts: { mutating?: boolean } = {}): Promise<Viewer> {
  if (opts.mutating) assertSameOrigin(req);
  if (req.headers.get("authorization")) {
    throw new DomainError("unauthorized", "Agent API keys are not accepted here; sign in as a person.");
  }
  const viewer = await getViewer(req.headers);
  if (!viewer) throw new DomainError("unauthorized", "Sign in to continue.");
  return viewer;
}

/** Refuses a mutating request whose `Origin` is missing or foreign (403 `cross_origin`). */
export function assertSameOrigin(req: Request): void {
  const origin = req.headers.get("origin");
  if (!origin || origin !== serverConfig().origin) {
    throw new DomainError("cross_origin", "This request must come from the Plandesk console itself.");
  }
}

/**
 * Authenticates an agent by `Authorization: Bearer <key>`. A session cookie is not accepted.
 * Errors: 401 `unauthorized` for a missing, unknown or revoked key.
 */
export async function requireAgent(req: Request): Promise<AgentCaller> {
  const header = req.headers.get("authorization") ?? "";
  const m = /^Bearer\s+(\S+)$/i.exec(header);
  if (!m) throw new DomainError("unauthorized", "Send the agent API key as 'Authorization: Bearer <key>'.");
  const key = await prisma.apiKey.findUnique({ where: { hash: hashApiKey(m[1]) }, include: { agent: true } });
  if (!key || key.revokedAt) throw new DomainError("unauthorized", "This API key is unknown or revoked.");
  return {
    id: key.agent.id,
    name: key.agent.name,
    allowedTools: Array.isArray(key.agent.allowedTools) ? (key.agent.allowedTools as string[]) : [],
    keyId: key.id,
  };
}
