"use client";

import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { apiFetch } from "@/lib/client/api";

/**
 * The header's notifications link with the unread count (hand-offs notify people in the
 * console). Reads `GET /api/notifications?unread=1&limit=1` every 15 s.
 */
export function NotificationBell() {
  const { data } = useQuery({
    queryKey: ["notifications", "unread"],
    queryFn: () => apiFetch<{ unread: number }>("/api/notifications?unread=1&limit=1"),
    refetchInterval: 15_000,
  });
  const unread = data?.unread ?? 0;
  return (
    <Link
      href="/notifications"
      className="relative inline-flex items-center rounded-md border border-slate-300 px-2 py-1 text-sm text-slate-800 hover:bg-slate-50"
      aria-label={unread ? `Notifications, ${unread} unread` : "Notifications"}
      data-testid="notification-bell"
    >
      {/* a drawn bell: an emoji needs a font this machine (and many kiosks) may not have */}
      <svg aria-hidden="true" viewBox="0 0 24 24" className="h-4 w-4" fill="none" stroke="currentColor" strokeWidth="2" strokeLinecap="round" strokeLinejoin="round">
        <path d="M6 8a6 6 0 0 1 12 0c0 7 3 9 3 9H3s3-2 3-9" />
        <path d="M10.3 21a1.94 1.94 0 0 0 3.4 0" />
      </svg>
      {unread > 0 && (
        <span aria-hidden="true" className="ml-1 rounded-full bg-red-700 px-1.5 text-xs font-semibold text-white">
          {unread}
        </span>
      )}
    </Link>
  );
}
