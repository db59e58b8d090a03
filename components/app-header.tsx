import Link from "next/link";
import type { Viewer } from "@/lib/server/auth/session";
import { ShortcutsButton } from "./shortcuts-button";
import { SignOutButton } from "./sign-out-button";
import { NotificationBell } from "./notification-bell";
import { CommandPalette } from "./command-palette";

/** Top bar: product name, navigation, the signed-in person and their role. */
export function AppHeader({ viewer }: { viewer: Viewer }) {
  const links: { href: string; label: string }[] = [
    { href: "/runs", label: "Queue" },
    ...(viewer.role === "supervisor"
      ? [
          { href: "/escalations", label: "Escalations" },
          { href: "/reconciliation", label: "Reconciliation" },
          { href: "/insights", label: "Insights" },
          { href: "/outcomes/review", label: "Outcomes" },
        ]
      : []),
    ...(viewer.role === "supervisor" || viewer.role === "admin"
      ? [
          { href: "/denials", label: "Denials" },
          { href: "/desk-rules", label: "Desk rules" },
        ]
      : []),
    ...(viewer.role === "admin" ? [{ href: "/admin/users", label: "Admin" }] : []),
  ];
  return (
    <header className="border-b border-slate-200 bg-white">
      <div className="mx-auto flex max-w-7xl items-center gap-3 px-4 py-3 sm:gap-6 sm:px-6">
        <Link href="/runs" className="text-lg font-semibold tracking-tight text-slate-900">
          Plandesk
        </Link>
        <nav aria-label="Main" className="hidden gap-4 text-sm md:flex">
          {links.map((l) => (
            <Link key={l.href} href={l.href} className="text-slate-700 hover:text-slate-950">
              {l.label}
            </Link>
          ))}
        </nav>
        {/* narrow screens: the same links behind a menu button (works without JavaScript) */}
        <details className="relative md:hidden">
          <summary className="cursor-pointer list-none rounded-md border border-slate-300 px-2.5 py-1 text-sm text-slate-800">Menu</summary>
          <nav aria-label="Main menu" className="absolute left-0 z-30 mt-1 flex w-48 flex-col rounded-md border border-slate-200 bg-white py-1 text-sm shadow-lg">
            {/* who is signed in: on phones the bar has no room for it */}
            <p className="border-b border-slate-100 px-3 pb-2 pt-1 text-xs text-slate-600 sm:hidden">
              {viewer.name} · {viewer.role}
            </p>
            {links.map((l) => (
              <Link key={l.href} href={l.href} className="px-3 py-2 text-slate-800 hover:bg-slate-50">
                {l.label}
              </Link>
            ))}
            <Link href="/account/passkeys" className="border-t border-slate-100 px-3 py-2 text-slate-800 hover:bg-slate-50 sm:hidden">
              Passkeys
            </Link>
          </nav>
        </details>
        <div className="ml-auto flex min-w-0 items-center gap-2 text-sm sm:gap-3">
          <span className="hidden min-w-0 truncate sm:inline">
            <span className="hidden sm:inline">{viewer.name} </span>
            <span className="rounded bg-slate-100 px-1.5 py-0.5 text-xs text-slate-700" title={viewer.name}>
              {viewer.role}
            </span>
          </span>
          <ShortcutsButton />
          {viewer.role !== "admin" && <NotificationBell />}
          {/* on phones it is in the menu: the bar has no room for it at 360 px */}
          <Link href="/account/passkeys" className="hidden whitespace-nowrap text-slate-700 hover:text-slate-950 sm:inline">
            Passkeys
          </Link>
          <SignOutButton />
        </div>
        <CommandPalette links={links} />
      </div>
    </header>
  );
}
