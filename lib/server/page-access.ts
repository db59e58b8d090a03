import { redirect } from "next/navigation";
import { isDomainError } from "../errors";
import { getViewer, requireRole, type Role, type Viewer } from "./session";

/** For server pages: the signed-in viewer, or a redirect to /sign-in (with `next`). */
export async function requirePageViewer(nextPath: string): Promise<Viewer> {
  const viewer = await getViewer();
  if (!viewer) redirect(`/sign-in?next=${encodeURIComponent(nextPath)}`);
  return viewer;
}

/**
 * For server pages: null when `viewer` holds one of `roles`, else the refusal message to show.
 * The refusal is audited as `denied` by `requireRole` (pages check themselves; the header's
 * links are a convenience, not a check).
 */
export async function pageRoleRefusal(viewer: Viewer, roles: readonly Role[], action: string): Promise<string | null> {
  try {
    await requireRole(viewer, roles, action);
    return null;
  } catch (e) {
    if (isDomainError(e)) return e.message;
    throw e;
  }
}
