"use client";

import { useEffect, useState } from "react";

type Toast = { id: number; message: string; tone: "success" | "error" };
let push: ((t: Omit<Toast, "id">) => void) | null = null;
let nextId = 1;

/**
 * Shows a short message: a success in the polite live region, gone after 5 s; an error in the
 * assertive one, kept until the person dismisses it (an error someone missed is a change they
 * think was saved).
 */
export function toast(message: string, tone: Toast["tone"] = "success") {
  push?.({ message, tone });
}

/** The toast regions, mounted once in Providers: under the header on a phone (the decision bar has the bottom), successes above the decision bar from 640 px; never wider than the screen. */
export function Toaster() {
  const [toasts, setToasts] = useState<Toast[]>([]);
  useEffect(() => {
    push = (t) => {
      const id = nextId++;
      setToasts((all) => [...all, { ...t, id }]);
      if (t.tone === "success") setTimeout(() => setToasts((all) => all.filter((x) => x.id !== id)), 5000);
    };
    return () => {
      push = null;
    };
  }, []);
  const dismiss = (id: number) => setToasts((all) => all.filter((x) => x.id !== id));
  const item = (t: Toast) => (
    <div
      key={t.id}
      data-testid={`toast-${t.tone}`}
      className={`pointer-events-auto flex max-w-full items-start gap-3 break-words rounded-md px-4 py-2 text-sm shadow-lg ${t.tone === "success" ? "bg-emerald-800 text-emerald-50" : "bg-red-800 text-red-50"}`}
    >
      <span className="min-w-0 flex-1">{t.message}</span>
      {t.tone === "error" && (
        <button type="button" onClick={() => dismiss(t.id)} className="shrink-0 rounded border border-red-200 px-1.5 text-xs font-medium">
          Dismiss
        </button>
      )}
    </div>
  );
  const box = "pointer-events-none fixed left-4 right-4 z-50 flex flex-col items-end gap-2 sm:left-auto sm:max-w-md";
  return (
    <>
      <div aria-live="polite" role="status" className={`${box} top-16 sm:top-auto sm:bottom-20`}>
        {toasts.filter((t) => t.tone === "success").map(item)}
      </div>
      <div aria-live="assertive" role="alert" className={`${box} top-16`}>
        {toasts.filter((t) => t.tone === "error").map(item)}
      </div>
    </>
  );
}
