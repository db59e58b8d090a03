import Link from "next/link";

/** The body of a page the viewer's role may not see (HTTP semantics: 403). */
export function ForbiddenNotice({ message }: { message: string }) {
  return (
    <main className="mx-auto max-w-xl px-6 py-24 text-center" data-testid="forbidden">
      <p className="text-sm font-semibold uppercase tracking-wide text-slate-500">403 · Not allowed</p>
      <h1 className="mt-2 text-2xl font-semibold">You can’t open this page</h1>
      <p className="mt-2 text-slate-600">{message}</p>
      <Link href="/runs" className="mt-6 inline-block text-blue-700 underline">
        Back to the queue
      </Link>
    </main>
  );
}
