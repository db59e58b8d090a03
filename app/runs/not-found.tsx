import Link from "next/link";
import { AppHeader } from "@/components/app-header";
import { getViewer } from "@/lib/server/session";

/** A run id that does not exist (or is another desk's): said inside the app frame, header and all. */
export default async function RunNotFound() {
  const viewer = await getViewer();
  return (
    <>
      {viewer && <AppHeader viewer={viewer} />}
      <main className="mx-auto max-w-xl px-6 py-24 text-center">
        <h1 className="text-2xl font-semibold">Run not found</h1>
        <p className="mt-2 text-slate-600">No run of your desk has this id. It may have been mistyped, or the link may be for another desk.</p>
        <Link href="/runs" className="mt-6 inline-block text-blue-700 underline">
          Back to the queue
        </Link>
      </main>
    </>
  );
}
