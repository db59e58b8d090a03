import Link from "next/link";

export default function RunNotFound() {
  return (
    <main className="mx-auto max-w-xl px-6 py-24 text-center">
      <h1 className="text-2xl font-semibold">Run not found</h1>
      <p className="mt-2 text-slate-600">No run has this id. It may have been mistyped.</p>
      <Link href="/runs" className="mt-6 inline-block text-blue-700 underline">
        Back to the queue
      </Link>
    </main>
  );
}
