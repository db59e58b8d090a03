"use client";

import { usePathname } from "next/navigation";
import { useEffect, useState } from "react";

let announce: ((pending: boolean) => void) | null = null;

/** Says a navigation began that a link click does not show (a `router.push` from a key or the search). */
export function navigationStarted() {
  announce?.(true);
}

/**
 * Feedback while the next page renders on the server: a bar across the top of the screen and a
 * "Loading the page…" status, from the moment an in-app link is followed (or `navigationStarted`
 * is called) until the new page is there. The page being left stays on screen meanwhile, so a
 * slow network never shows an empty page; once the router has the next page's route-level
 * skeleton (its loading.tsx, prefetched with the link) that stands in the page's place under the
 * header, and the bar goes.
 */
export function NavigationProgress() {
  const pathname = usePathname();
  const [pending, setPending] = useState(false);
  const [from, setFrom] = useState(pathname);
  // adjusted while rendering: the new page is there
  if (pathname !== from) {
    setFrom(pathname);
    setPending(false);
  }
  useEffect(() => {
    announce = setPending;
    const onClick = (e: MouseEvent) => {
      if (e.defaultPrevented || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
      const a = e.target instanceof Element ? e.target.closest("a[href]") : null;
      if (!(a instanceof HTMLAnchorElement) || a.target === "_blank" || a.hasAttribute("download")) return;
      const url = new URL(a.href, location.href);
      if (url.origin !== location.origin || url.pathname === location.pathname || url.pathname.startsWith("/api/")) return;
      setPending(true);
    };
    document.addEventListener("click", onClick);
    return () => {
      document.removeEventListener("click", onClick);
      announce = null;
    };
  }, []);
  useEffect(() => {
    if (!pending) return;
    const t = setTimeout(() => setPending(false), 20_000); // never a bar that stays forever
    return () => clearTimeout(t);
  }, [pending]);
  if (!pending) return null;
  return (
    <div role="status" data-testid="navigation-progress" className="pointer-events-none fixed inset-x-0 top-0 z-50">
      <div className="h-1 w-full animate-pulse bg-blue-700" />
      <span className="sr-only">Loading the page…</span>
    </div>
  );
}
