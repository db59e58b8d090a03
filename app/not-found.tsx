import Link from "next/link";
import { AppHeader } from "@/components/app-header";
import { getViewer } from "@/lib/server/auth/session";

/** Nothing at this address: said inside the app frame (the header, when signed in). */
export default async function NotFound() {
  const viewer = await getViewer();
  return (
    <>
      {viewer && <AppHeader viewer={viewer} />}
      <main className="mx-auto max-w-xl px-6 py-24 text-center">
        <h1 className="text-2xl font-semibold">Not found</h1>
        <p className="mt-2 text-slate-600">There is nothing at this address.</p>
        <Link href="/runs" className="mt-6 inline-block text-blue-700 underline">
          Back to the queue
        </Link>
      </main>
    </>
  );
}
