/**
 * What a page shows while the server renders it (its route-level `loading.tsx`), inside the app
 * frame: the header above it is the segment layout's and stays; here grey blocks stand where the
 * title and the rows, the plan or the form will be — never an empty page, never "0 runs".
 * Accessible: the `main` is `aria-busy` and a `status` says in words what is loading
 * ("Loading the queue…"), which a screen reader announces.
 */
export function PageSkeleton({ label, kind = "list", width = "max-w-7xl" }: { label: string; kind?: "list" | "run" | "form"; width?: "max-w-7xl" | "max-w-5xl" | "max-w-3xl" }) {
  return (
    <main className={`mx-auto ${width} px-4 py-6 sm:px-6`} aria-busy="true" data-testid="page-skeleton" data-kind={kind}>
      <p role="status" className="text-sm text-slate-600">
        {label}
      </p>
      <div aria-hidden="true" className="mt-2 animate-pulse">
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
        ) : kind === "form" ? (
          <div className="mt-6 space-y-4 rounded-lg border border-slate-200 bg-white p-4">
            {[0, 1, 2, 3].map((i) => (
              <div key={i} className="space-y-2">
                <div className="h-4 w-40 max-w-full rounded bg-slate-200" />
                <div className="h-9 w-full rounded bg-slate-100" />
              </div>
            ))}
          </div>
        ) : (
          <div className="mt-6 space-y-2">
            {[0, 1, 2, 3, 4, 5].map((i) => (
              <div key={i} className="h-11 rounded-lg border border-slate-200 bg-white" />
            ))}
          </div>
        )}
      </div>
    </main>
  );
}
