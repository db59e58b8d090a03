import Link from "next/link";
import type { Viewer } from "@/lib/server/session";
import { SignOutButton } from "./sign-out-button";

/** Top bar: product name, navigation, the signed-in person and their role. */
export function AppHeader({ viewer }: { viewer: Viewer }) {
  return (
    <header className="border-b border-slate-200 bg-white">
      <div className="mx-auto flex max-w-7xl items-center gap-6 px-6 py-3">
        <Link href="/runs" className="text-lg font-semibold tracking-tight text-slate-900">
          Plandesk
        </Link>
        <nav aria-label="Main" className="flex gap-4 text-sm">
          <Link href="/runs" className="text-slate-700 hover:text-slate-950">
            Queue
          </Link>
          {viewer.role === "supervisor" && (
            <>
              <Link href="/escalations" className="text-slate-700 hover:text-slate-950">
                Escalations
              </Link>
              <Link href="/reconciliation" className="text-slate-700 hover:text-slate-950">
                Reconciliation
              </Link>
              <Link href="/insights" className="text-slate-700 hover:text-slate-950">
                Insights
              </Link>
            </>
          )}
          {(viewer.role === "supervisor" || viewer.role === "admin") && (
            <Link href="/denials" className="text-slate-700 hover:text-slate-950">
              Denials
            </Link>
          )}
          {viewer.role === "admin" && (
            <Link href="/admin/users" className="text-slate-700 hover:text-slate-950">
              Admin
            </Link>
          )}
        </nav>
        <div className="ml-auto flex items-center gap-3 text-sm">
          <span>
            {viewer.name} <span className="rounded bg-slate-100 px-1.5 py-0.5 text-xs text-slate-700">{viewer.role}</span>
          </span>
          <SignOutButton />
        </div>
      </div>
    </header>
  );
}
