"use client";

export default function ErrorPage({ reset }: { error: Error; reset: () => void }) {
  return (
    <main className="mx-auto max-w-xl px-6 py-24 text-center">
      <h1 className="text-2xl font-semibold">Something went wrong</h1>
      <p className="mt-2 text-slate-600">The page could not be shown. Nothing was changed.</p>
      <button type="button" onClick={reset} className="mt-6 rounded-md bg-blue-700 px-4 py-2 text-white">
        Try again
      </button>
    </main>
  );
}
