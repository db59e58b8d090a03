"use client";

import { useEffect, useState } from "react";

type Toast = { id: number; message: string; tone: "success" | "error" };
let push: ((t: Omit<Toast, "id">) => void) | null = null;
let nextId = 1;

/** Shows a short message in the polite live region (success) or assertive (error). */
export function toast(message: string, tone: Toast["tone"] = "success") {
  push?.({ message, tone });
}

/** The toast region; mounted once in Providers. */
export function Toaster() {
  const [toasts, setToasts] = useState<Toast[]>([]);
  useEffect(() => {
    push = (t) => {
      const id = nextId++;
      setToasts((all) => [...all, { ...t, id }]);
      setTimeout(() => setToasts((all) => all.filter((x) => x.id !== id)), 5000);
    };
    return () => {
      push = null;
    };
  }, []);
  return (
    <div aria-live="polite" role="status" className="pointer-events-none fixed bottom-4 right-4 z-50 flex flex-col gap-2">
      {toasts.map((t) => (
        <div
          key={t.id}
          className={`pointer-events-auto rounded-md px-4 py-2 text-sm shadow-lg ${t.tone === "success" ? "bg-emerald-700 text-white" : "bg-red-700 text-white"}`}
        >
          {t.message}
        </div>
      ))}
    </div>
  );
}
