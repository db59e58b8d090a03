import type { Metadata } from "next";
import { AuditPageNav, beforeCursor } from "@/components/audit-page-nav";
import { AdminNav } from "@/components/admin/admin-nav";
import { formatInstant } from "@/lib/text/format";
import { listAdminChanges } from "@/lib/server/audit/list-admin-changes";
import { requirePageRole, requirePageViewer } from "@/lib/server/auth/page-access";

export const metadata: Metadata = { title: "Changes · Admin" };
export const dynamic = "force-dynamic";

/** Admins' change log: every admin change, newest first, with each field before and after (docs/design.md §11). */
export default async function AdminChangesPage({ searchParams }: { searchParams: Promise<{ before?: string }> }) {
  const viewer = await requirePageViewer("/admin/changes");
  await requirePageRole(viewer, ["admin"], "view /admin/changes");
  const { before: rawBefore } = await searchParams;
  const before = beforeCursor(rawBefore);
  const { rows, nextBefore } = await listAdminChanges(viewer, { before, limit: 50 });
  return (
    <main className="mx-auto max-w-7xl px-4 py-6 sm:px-6">
      <h1 className="text-xl font-semibold">Admin</h1>
      <p className="mt-1 text-sm text-slate-600">
        Every change to people, grants, agents and keys, desks, sign-in, tools, record kinds, the gate policy, desk rules and webhooks, newest first: who made it, when, and
        each field before and after. Credentials are never shown. The log is append-only.
      </p>
      <AdminNav current="changes" />
      {rows.length === 0 ? (
        <p className="mt-6 text-sm text-slate-600">{before ? "No older changes." : "No admin changes on record."}</p>
      ) : (
        <ol aria-label="Admin changes, newest first" className="mt-4 space-y-3">
          {rows.map((r) => (
            <li key={r.seq} className="rounded-lg border border-slate-200 bg-white p-3 text-sm" data-testid="admin-change">
              <p className="font-medium text-slate-900">
                {r.label}
                {r.target && <span className="ml-2 break-all font-mono text-xs font-normal text-slate-600">{r.target}</span>}
              </p>
              <p className="mt-0.5 text-xs text-slate-600">
                by {r.actor.name} · <time dateTime={r.at}>{formatInstant(r.at)}</time>
              </p>
              {r.fields.length > 0 ? (
                <dl className="mt-2 grid grid-cols-1 gap-x-4 gap-y-1 sm:grid-cols-[minmax(8rem,auto)_1fr]">
                  {r.fields.map((f) => (
                    <div key={f.name} className="contents">
                      <dt className="font-mono text-xs text-slate-700">{f.name}</dt>
                      <dd className="break-all text-xs">
                        <span className="text-slate-600 line-through decoration-slate-400">{f.before}</span>
                        <span aria-hidden="true" className="mx-1 text-slate-500">→</span>
                        <span className="sr-only"> changed to </span>
                        <span className="text-slate-900">{f.after}</span>
                      </dd>
                    </div>
                  ))}
                </dl>
              ) : (
                <p className="mt-2 text-xs text-slate-600">No field changed.</p>
              )}
            </li>
          ))}
        </ol>
      )}
      <AuditPageNav path="/admin/changes" before={before} nextBefore={nextBefore} olderLabel="Older changes" />
    </main>
  );
}
