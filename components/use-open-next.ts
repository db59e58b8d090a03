"use client";

import { useRouter } from "next/navigation";
import { apiFetch } from "@/lib/client/api";
import { focusHeading } from "./keyboard-shortcuts";
import { toast } from "./toaster";

/**
 * Opens the next run waiting for the viewer after `runId` (`GET /api/runs/{runId}/next`), for
 * every "… & next" action (approve, reject, hand off). With none left it says so and puts the
 * focus on the first of `headings` on the page (the decision's heading by default).
 */
export function useOpenNext(runId: string, ...headings: string[]): () => Promise<void> {
  const router = useRouter();
  return async () => {
    try {
      const { next } = await apiFetch<{ next: { id: string; ticketId: string } | null }>(`/api/runs/${runId}/next`);
      if (next) {
        toast(`Next: ticket #${next.ticketId}.`);
        router.push(`/runs/${next.id}`);
      } else {
        toast("No other run is waiting for review; this was the last one.");
        focusHeading(...(headings.length ? headings : ["decide-h", "review-h"]));
      }
    } catch {
      toast("The next run could not be found.", "error");
    }
  };
}
