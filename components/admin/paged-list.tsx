"use client";

import { useInfiniteQuery } from "@tanstack/react-query";
import { apiFetch } from "@/lib/client/api";
import { quietButtonClass } from "./form-bits";

/** One page of a keyset-paginated admin list (`GET …?cursor=`): its rows under some key, and the next page's cursor (null on the last). */
export type Page = { nextCursor?: string | null };

/**
 * A keyset-paginated admin list (no list reads a whole table): the server-rendered
 * first page, then "Load more" fetches `url?cursor=…` pages in order. Mutations invalidate
 * `queryKey` as before (every loaded page refetches). Returns the loaded pages and the controls.
 */
export function usePagedList<P extends Page>(queryKey: readonly unknown[], url: string, initialPage: P) {
  return useInfiniteQuery({
    queryKey,
    queryFn: ({ pageParam }) => apiFetch<P>(pageParam ? `${url}?cursor=${encodeURIComponent(pageParam)}` : url),
    initialPageParam: null as string | null,
    getNextPageParam: (last) => last.nextCursor ?? null,
    initialData: { pages: [initialPage], pageParams: [null] },
  });
}

/** "Load more" under a paginated list, shown while there is a next page (`className`: its row's spacing). */
export function LoadMore({
  list,
  className = "mt-3 flex justify-center",
}: {
  list: { hasNextPage: boolean; isFetchingNextPage: boolean; fetchNextPage: () => unknown };
  className?: string;
}) {
  if (!list.hasNextPage) return null;
  return (
    <div className={className}>
      <button type="button" className={quietButtonClass} onClick={() => void list.fetchNextPage()} disabled={list.isFetchingNextPage}>
        {list.isFetchingNextPage ? "Loading…" : "Load more"}
      </button>
    </div>
  );
}

/** The react-query key of the admin people list (users-admin.tsx), invalidated by desk and user edits. */
export const USERS_KEY = ["admin", "users"] as const;
