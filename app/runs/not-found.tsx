import Link from "next/link";

/**
 * A run id that does not exist (or is another desk's), as app/runs/[id]/layout.tsx answers it:
 * 404, inside the app frame (app/runs/layout.tsx renders the header above it).
 */
export default function RunNotFound() {
  return (
    <main className="mx-auto max-w-xl px-6 py-24 text-center">
      <h1 className="text-2xl font-semibold">Run not found</h1>
      <p className="mt-2 text-slate-600">No run of your desk has this id. It may have been mistyped, or the link may be for another desk.</p>
      <Link href="/runs" className="mt-6 inline-block text-blue-700 underline">
        Back to the queue
      </Link>
    </main>
  );
}
