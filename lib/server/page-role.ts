import { isDomainError } from "../errors";
import { requireRole, type Role, type Viewer } from "./session";

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
