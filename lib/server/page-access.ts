import { forbidden, notFound, redirect } from "next/navigation";
import { isDomainError } from "../errors/domain-error";
import { getViewer, requireRole, type Role, type Viewer } from "./session";

/*
 * Access for server pages. Pages check themselves (the header's links and the proxy's redirect
 * are conveniences, not checks), and refuse with real HTTP statuses: 404 through `notFound()`
 * (app/not-found.tsx), 403 through `forbidden()` (app/forbidden.tsx).
 */

/** The signed-in viewer, or a redirect to /sign-in (with `next`). */
export async function requirePageViewer(nextPath: string): Promise<Viewer> {
  const viewer = await getViewer();
  if (!viewer) redirect(`/sign-in?next=${encodeURIComponent(nextPath)}`);
  return viewer;
}

/** Answers 403 unless `viewer` holds one of `roles`; the refusal is audited `denied` by `requireRole`. */
export async function requirePageRole(viewer: Viewer, roles: readonly Role[], action: string): Promise<void> {
  try {
    await requireRole(viewer, roles, action);
  } catch (e) {
    if (isDomainError(e)) forbidden();
    throw e;
  }
}

/**
 * Turns a typed refusal a page's data call threw into the page's answer: `not_found` → 404,
 * `forbidden` → 403 (both already audited where they were raised); anything else is rethrown
 * (app/error.tsx shows it).
 */
export function pageRefusal(e: unknown): never {
  if (isDomainError(e) && e.code === "not_found") notFound();
  if (isDomainError(e) && (e.code === "forbidden" || e.status === 403)) forbidden();
  throw e;
}
