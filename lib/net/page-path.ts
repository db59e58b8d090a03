/**
 * The request header that carries a page request's path and query (without Next.js's `_rsc`
 * marker) from proxy.ts to the render: layouts are not told their URL, and the sign-in redirect
 * of a layout's session check needs it as `next` (lib/server/auth/page-access.ts).
 */
export const PAGE_PATH_HEADER = "x-plandesk-path";

/** `pathname` and `search` of a page request as one path, Next.js's `_rsc` cache-busting parameter dropped. */
export function pagePathOf(pathname: string, search: string): string {
  const params = new URLSearchParams(search);
  params.delete("_rsc");
  const qs = params.toString();
  return qs ? `${pathname}?${qs}` : pathname;
}
