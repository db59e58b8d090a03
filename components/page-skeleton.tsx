/**
 * What a page shows while the server renders it (route-level `loading.tsx`): the header's bar and
 * grey blocks where the title, the plan or the rows will be — never an empty page, never "0 runs".
 */
export function PageSkeleton({ kind = "list" }: { kind?: "list" | "run" }) {
  return (
    <>
      <div aria-hidden="true" className="h-[57px] border-b border-slate-200 bg-white" />
      <main className="mx-auto max-w-7xl px-4 py-6 sm:px-6" aria-busy="true">
        <div role="status" data-testid="page-skeleton">
          <span className="sr-only">Loading…</span>
          <div aria-hidden="true" className="animate-pulse">
            <div className="h-6 w-64 max-w-full rounded bg-slate-200" />
            <div className="mt-2 h-4 w-96 max-w-full rounded bg-slate-100" />
            {kind === "run" ? (
              <div className="mt-6 grid gap-6 lg:grid-cols-[1fr_22rem]">
                <div className="space-y-3">
                  {[0, 1, 2].map((i) => (
                    <div key={i} className="h-32 rounded-lg border border-slate-200 bg-white" />
                  ))}
                </div>
                <div className="h-64 rounded-lg border border-slate-200 bg-white" />
              </div>
            ) : (
              <div className="mt-6 space-y-2">
                {[0, 1, 2, 3, 4, 5].map((i) => (
                  <div key={i} className="h-11 rounded-lg border border-slate-200 bg-white" />
                ))}
              </div>
            )}
          </div>
        </div>
      </main>
    </>
  );
}
