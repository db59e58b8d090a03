import Link from "next/link";

/**
 * "Newest" and "Older …" links under a list of audit events paged by sequence number (`?before=`):
 * Newest when the page is not the first, Older when `nextBefore` says there is more.
 */
export function AuditPageNav({ path, before, nextBefore, olderLabel }: { path: string; before: number | undefined; nextBefore: number | null; olderLabel: string }) {
  return (
    <nav aria-label="Pages" className="mt-4 flex gap-4 text-sm">
      {before !== undefined ? (
        <Link href={path} className="text-blue-700 underline">
          Newest
        </Link>
      ) : null}
      {nextBefore !== null ? (
        <Link href={`${path}?before=${nextBefore}`} className="text-blue-700 underline">
          {olderLabel}
        </Link>
      ) : null}
    </nav>
  );
}

/** The `?before=` cursor of a page of audit events: an audit sequence number, else none (the first page). */
export function beforeCursor(raw: string | undefined): number | undefined {
  // anything else (or past a 32-bit integer) is the first page
  return raw && /^\d{1,10}$/.test(raw) && Number(raw) <= 2_147_483_647 ? Number(raw) : undefined;
}
