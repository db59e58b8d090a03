"use client";

import { useMutation, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { apiFetch } from "@/lib/client/api";
import { formatInstant } from "@/lib/text/format";
import type { WebhookDeliveryView } from "@/lib/api/endpoints/live-api";
import { toast } from "../toaster";
import { quietButtonClass } from "./form-bits";
import { LoadMore, usePagedList } from "./paged-list";

const KEYS = ["admin", "webhooks"] as const;
/** One page of `GET /api/admin/webhooks`. */
export type WebhookFailuresPage = { deliveries: WebhookDeliveryView[]; nextCursor: string | null };

/** Webhook deliveries that failed or are failing: event, run, attempts, last error, and "Retry now". */
export function WebhooksAdmin({ initialPage }: { initialPage: WebhookFailuresPage }) {
  const list = usePagedList(KEYS, "/api/admin/webhooks", initialPage);
  const rows = (list.data?.pages ?? []).flatMap((p) => p.deliveries);
  return (
    <section aria-labelledby="webhooks-h" className="mt-6 rounded-lg border border-slate-200 bg-white p-4">
      <h2 id="webhooks-h" className="font-semibold">
        Failed deliveries
      </h2>
      {rows.length === 0 ? (
        <p className="mt-1 text-sm text-slate-600">No failed deliveries.</p>
      ) : (
        <div className="mt-2 overflow-x-auto">
        <table className="w-full text-sm">
          <thead className="text-left text-xs text-slate-600">
            <tr>
              <th scope="col" className="py-1 font-medium">Event</th>
              <th scope="col" className="py-1 font-medium">Run</th>
              <th scope="col" className="py-1 font-medium">Status</th>
              <th scope="col" className="py-1 font-medium">Attempts</th>
              <th scope="col" className="py-1 font-medium">Last error</th>
              <th scope="col" className="py-1 font-medium">Created</th>
              <th scope="col" className="py-1 font-medium">
                <span className="sr-only">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {rows.map((d) => (
              <DeliveryRow key={d.id} d={d} />
            ))}
          </tbody>
        </table>
        </div>
      )}
      <LoadMore list={list} />
    </section>
  );
}

function DeliveryRow({ d }: { d: WebhookDeliveryView }) {
  const qc = useQueryClient();
  const retry = useMutation({
    mutationFn: () => apiFetch(`/api/admin/webhooks/${d.id}/retry`, { method: "POST" }),
    onSuccess: () => {
      toast("Sent again on the next pass.");
      void qc.invalidateQueries({ queryKey: KEYS });
    },
    onError: (e) => toast((e as Error).message, "error"),
  });
  return (
    <tr className="border-t border-slate-100 align-top">
      <td className="py-1.5">{d.event}</td>
      <td className="py-1.5 font-mono text-xs">{d.runId ? <Link href={`/runs/${d.runId}`} className="text-blue-800 underline">{d.runId}</Link> : "—"}</td>
      <td className="py-1.5 text-xs">{d.status === "failed" ? "Gave up" : `Retrying at ${formatInstant(d.nextAttemptAt)}`}</td>
      <td className="py-1.5 tabular-nums">{d.attempts}</td>
      <td className="max-w-sm py-1.5 text-xs break-words">{d.lastError}</td>
      <td className="py-1.5 text-xs">{formatInstant(d.createdAt)}</td>
      <td className="py-1.5">
        <button type="button" className={quietButtonClass} disabled={retry.isPending} onClick={() => retry.mutate()}>
          Retry now
        </button>
      </td>
    </tr>
  );
}
