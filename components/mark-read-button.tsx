"use client";

import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { apiFetch } from "@/lib/client/api";

/** "Mark all read" on the notifications page (`POST /api/notifications/read {ids: "all"}`). */
export function MarkReadButton({ disabled }: { disabled: boolean }) {
  const router = useRouter();
  const qc = useQueryClient();
  const mark = useMutation({
    mutationFn: () => apiFetch("/api/notifications/read", { method: "POST", body: { ids: "all" } }),
    onSuccess: () => {
      void qc.invalidateQueries({ queryKey: ["notifications"] });
      router.refresh();
    },
  });
  return (
    <button type="button" disabled={disabled || mark.isPending} onClick={() => mark.mutate()} className="rounded-md border border-slate-300 bg-white px-3 py-1.5 text-sm font-medium hover:bg-slate-50 disabled:opacity-60">
      Mark all read
    </button>
  );
}
