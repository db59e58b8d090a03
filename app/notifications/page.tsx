import type { Metadata } from "next";
import Link from "next/link";
import { Instant } from "@/components/instant";
import { MarkReadButton } from "@/components/mark-read-button";
import { listNotifications } from "@/lib/server/ownership/notifications";
import { requirePageViewer } from "@/lib/server/auth/page-access";

export const metadata: Metadata = { title: "Notifications" };
export const dynamic = "force-dynamic";

/** The signed-in person's notifications, newest first (approval requests, assignments, suggestions). */
export default async function NotificationsPage() {
  const viewer = await requirePageViewer("/notifications");
  const page = await listNotifications(viewer, { limit: 100 });
  return (
    <>
      <main className="mx-auto max-w-3xl px-4 py-6 sm:px-6">
        <div className="flex items-center gap-3">
          <h1 className="text-xl font-semibold">Notifications</h1>
          <span className="text-sm text-slate-600">{page.unread} unread</span>
          <div className="ml-auto">
            <MarkReadButton disabled={page.unread === 0} />
          </div>
        </div>
        {page.notifications.length === 0 ? (
          <p className="mt-6 text-sm text-slate-600">Nothing for you yet.</p>
        ) : (
          <ul className="mt-4 space-y-2" aria-label="Notifications">
            {page.notifications.map((n) => (
              <li key={n.id} className={`rounded-lg border p-3 text-sm ${n.readAt ? "border-slate-200 bg-white" : "border-blue-300 bg-blue-50"}`}>
                <p>
                  {!n.readAt && <span className="mr-2 rounded bg-blue-800 px-1.5 py-0.5 text-xs font-semibold text-white">New</span>}
                  {n.text}
                </p>
                <p className="mt-1 text-xs text-slate-600">
                  <Instant iso={n.createdAt} />
                  {n.runId && (
                    <>
                      {" · "}
                      <Link href={`/runs/${n.runId}`} className="text-blue-800 underline">
                        Open the run
                      </Link>
                    </>
                  )}
                </p>
              </li>
            ))}
          </ul>
        )}
      </main>
    </>
  );
}
