import type { Metadata } from "next";
import { OutcomeReview } from "@/components/outcome-review";
import { pageRefusal, requirePageRole, requirePageViewer } from "@/lib/server/auth/page-access";
import { listOutcomeReview } from "@/lib/server/outcomes/run-outcomes";
import { isDomainError } from "@/lib/errors/domain-error";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Did the edit help?" };

/**
 * `/outcomes/review`: edited runs that executed, for supervisors to label better / same / worse
 * (unlabelled first, then the largest money difference to the agent's plan). Supervisors only:
 * anyone else gets 403 (audited). Keyboard: j/k, 1/b 2/s 3/w, then Enter.
 */
export default async function OutcomeReviewPage({ searchParams }: { searchParams: Promise<{ cursor?: string }> }) {
  const viewer = await requirePageViewer("/outcomes/review");
  await requirePageRole(viewer, ["supervisor"], "view /outcomes/review");
  const { cursor } = await searchParams;
  let page: Awaited<ReturnType<typeof listOutcomeReview>>;
  try {
    page = await listOutcomeReview(viewer, { cursor, limit: 25 });
  } catch (e) {
    // a cursor that is not ours (hand-edited, truncated): start again from the first page
    if (!(isDomainError(e) && e.code === "bad_request")) pageRefusal(e);
    page = await listOutcomeReview(viewer, { limit: 25 });
  }
  return (
    <>
      <main className="mx-auto max-w-4xl px-4 py-6 sm:px-6">
        <h1 className="text-xl font-semibold">Did the edit help?</h1>
        <p className="mt-1 text-sm text-slate-600">
          Edited runs that executed, unlabelled first, then the largest money difference to the agent&apos;s own plan. Judge each better, same or worse and
          say why; the signals are a suggestion, never the label. Keys: <kbd>j</kbd>/<kbd>k</kbd> move, <kbd>1</kbd>/<kbd>b</kbd> better, <kbd>2</kbd>/<kbd>s</kbd> same,{" "}
          <kbd>3</kbd>/<kbd>w</kbd> worse (focus goes to the reason), <kbd>Enter</kbd> saves.
        </p>
        <OutcomeReview items={page.items} />
        {page.nextCursor && (
          <p className="mt-6">
            <a href={`/outcomes/review?cursor=${encodeURIComponent(page.nextCursor)}`} className="text-sm text-blue-700 underline">
              Next page
            </a>
          </p>
        )}
      </main>
    </>
  );
}
