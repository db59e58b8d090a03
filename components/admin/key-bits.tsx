"use client";

import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { ApiError, apiFetch } from "@/lib/client/api";
import { formatInstant } from "@/lib/text/format";
import { toast } from "../toaster";
import { CellError, dangerButtonClass, quietButtonClass } from "./form-bits";

/** A credential as its admin list shows it (agent API keys, integration keys): prefix and revocation (UTC ISO). */
export interface KeyLike {
  prefix: string;
  revokedAt: string | null;
}

/** The status cell of a key row: "active", when it was revoked, or "expired" once its expiry (UTC ISO; agent keys) has passed. */
export function KeyStatusCell({ revokedAt, expiresAt = null }: { revokedAt: string | null; expiresAt?: string | null }) {
  const [now] = useState(() => Date.now());
  const expired = !revokedAt && expiresAt !== null && Date.parse(expiresAt) <= now;
  return (
    <td className="py-1.5 text-xs">
      {revokedAt ? (
        <span className="text-red-800">revoked {formatInstant(revokedAt)}</span>
      ) : expired ? (
        <span className="text-red-800">expired</span>
      ) : (
        <span className="text-emerald-900">active</span>
      )}
    </td>
  );
}

/**
 * The revoke cell of a key row: "Revoke", then "Confirm revoke"/"Cancel"; POSTs `revokeUrl`
 * (an admin endpoint answering the revoked key), invalidates `queryKey` and toasts. A refusal
 * stays in the cell (`role="alert"`). Nothing for a key already revoked.
 */
export function RevokeKeyCell({ apiKey, revokeUrl, queryKey }: { apiKey: KeyLike; revokeUrl: string; queryKey: readonly unknown[] }) {
  const qc = useQueryClient();
  const [confirming, setConfirming] = useState(false);
  const [err, setErr] = useState<string | null>(null);
  const revoke = useMutation({
    mutationFn: () => apiFetch(revokeUrl, { method: "POST" }),
    onSuccess: () => {
      setErr(null);
      setConfirming(false);
      void qc.invalidateQueries({ queryKey });
      toast(`Key ${apiKey.prefix}… revoked.`);
    },
    onError: (e) => setErr(e instanceof ApiError ? e.message : "Something went wrong; nothing was changed."),
  });
  return (
    <td className="py-1.5 text-right">
      {!apiKey.revokedAt &&
        (confirming ? (
          <span role="group" aria-label={`Confirm revoking key ${apiKey.prefix}`} className="inline-flex gap-1">
            <button type="button" className={dangerButtonClass} disabled={revoke.isPending} onClick={() => revoke.mutate()}>
              Confirm revoke
            </button>
            <button type="button" className={quietButtonClass} onClick={() => setConfirming(false)}>
              Cancel
            </button>
          </span>
        ) : (
          <button type="button" className={quietButtonClass} onClick={() => setConfirming(true)} aria-label={`Revoke key ${apiKey.prefix}`}>
            Revoke
          </button>
        ))}
      <CellError message={err} />
    </td>
  );
}
