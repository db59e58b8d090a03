import { describeAdminChange, type AdminChangeSummary } from "../../audit/admin-changes";
import { actorPeople, auditEventPage } from "./audit-page";
import { requireRole } from "../auth/require-role";
import type { Viewer } from "../auth/viewer";

/** One admin change as the admins' change log shows it. */
export interface AdminChangeRow extends AdminChangeSummary {
  seq: number;
  /** When it was written (ISO 8601, UTC). */
  at: string;
  /** Who changed it: a person (name and email), the command line, or the system (an identity provider's logout). */
  actor: { kind: string; id: string | null; name: string };
}

/**
 * The latest `admin_change` audit events, newest first (docs/design.md §11): who changed what
 * (people, grants, agents and keys, desks, identity providers, tool servers, record kinds, gate
 * policy, desk rules, webhooks) and each field's value before and after (`describeAdminChange`;
 * credentials never shown). Read by the `(type, seq)` index, `limit` + 1 rows at a time: pages
 * with `before` (an audit sequence number) and `limit` (1–200, default 50); `nextBefore` is the
 * cursor of the next older page, null on the last.
 * Errors: 403 `forbidden` unless admin (audited as `denied`).
 */
export async function listAdminChanges(viewer: Pick<Viewer, "id" | "role">, opts: { before?: number; limit?: number } = {}): Promise<{ rows: AdminChangeRow[]; nextBefore: number | null }> {
  await requireRole(viewer, ["admin"], "view admin changes");
  const { events: page, nextBefore } = await auditEventPage("admin_change", { before: opts.before, limit: opts.limit ?? 50 });
  const userName = await actorPeople(page);
  const rows = page.map((e): AdminChangeRow => {
    const data = (e.data ?? {}) as Record<string, unknown>;
    const name =
      e.actorKind === "user"
        ? (userName.get(e.actorId ?? "") ?? `user ${e.actorId}`)
        : data.via === "cli"
          ? "the command line (npm run admin:create)"
          : e.actorKind === "system"
            ? "Plandesk (system)"
            : e.actorKind;
    return { seq: e.seq, at: e.createdAt.toISOString(), actor: { kind: e.actorKind, id: e.actorId, name }, ...describeAdminChange(data) };
  });
  return { rows, nextBefore };
}
