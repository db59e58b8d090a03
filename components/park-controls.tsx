"use client";

import { useQueryClient } from "@tanstack/react-query";
import { useRef, useState } from "react";
import { ApiError, apiFetch } from "@/lib/client/api";
import { snoozeChoices } from "@/lib/queue/park";
import { focusElement, useShortcut } from "./keyboard-shortcuts";
import { useOpenNext } from "./use-open-next";
import { toast } from "./toaster";

/** The words of a snooze's end in the person's own clock, e.g. "Mon 09:00". */
function untilWords(until: Date): string {
  return until.toLocaleString("en-US", { weekday: "short", hour: "2-digit", minute: "2-digit", hour12: false });
}

/**
 * Skip and Snooze… on the run page (docs/design.md "Skip and snooze"): parks the run for the
 * viewer only — Skip until the run changes (n, "not now"), Snooze until 1 h, 4 h or tomorrow 09:00 or a
 * change, whichever comes first (z opens the choices) — then opens the next waiting run
 * (decide-and-advance); with none left, the focus goes to the decision's heading.
 */
export function ParkControls({ runId, disabled }: { runId: string; disabled?: boolean }) {
  const openNext = useOpenNext(runId);
  const [busy, setBusy] = useState(false);
  const [menu, setMenu] = useState(false);
  const snoozeRef = useRef<HTMLButtonElement>(null);
  const firstChoice = (el: HTMLButtonElement | null) => {
    if (el) focusElement(el);
  };

  const park = async (until: Date | null, label: string) => {
    if (busy || disabled) return;
    setBusy(true);
    try {
      await apiFetch(`/api/runs/${runId}/park`, { method: "POST", body: { until: until?.toISOString() ?? null } });
      setMenu(false);
      toast(label);
      await openNext();
    } catch (e) {
      toast(e instanceof ApiError ? `Not parked: ${e.message}` : "The run could not be parked.", "error");
    } finally {
      setBusy(false);
    }
  };
  const skip = () => void park(null, "Skipped: it comes back to you when the run changes.");
  const openMenu = () => {
    if (!disabled) setMenu(true);
  };
  useShortcut("skip", skip, !disabled);
  useShortcut("snooze", openMenu, !disabled);

  const choices = snoozeChoices(new Date(), -new Date().getTimezoneOffset());
  return (
    <>
      <button
        type="button"
        disabled={disabled || busy}
        onClick={skip}
        aria-keyshortcuts="n"
        title="Leave this run out of your next until it changes (others still get it)"
        className="rounded-md border border-slate-300 bg-white px-3 py-2 text-sm font-medium text-slate-800 hover:bg-slate-50 disabled:cursor-not-allowed disabled:opacity-50"
      >
        Skip
      </button>
      <div className="relative">
        <button
          ref={snoozeRef}
          type="button"
          disabled={disabled || busy}
          aria-expanded={menu}
          aria-controls={`snooze-${runId}`}
          aria-keyshortcuts="z"
          onClick={() => setMenu((m) => !m)}
          className="rounded-md border border-slate-300 bg-white px-3 py-2 text-sm font-medium text-slate-800 hover:bg-slate-50 disabled:cursor-not-allowed disabled:opacity-50"
        >
          Snooze…
        </button>
        {menu && (
          <div
            id={`snooze-${runId}`}
            role="group"
            aria-label="Snooze until"
            onKeyDown={(e) => {
              if (e.key === "Escape") {
                e.preventDefault();
                setMenu(false);
                snoozeRef.current?.focus();
              }
            }}
            className="absolute bottom-full left-0 z-20 mb-2 flex w-56 sm:right-0 sm:left-auto flex-col gap-1 rounded-md border border-slate-300 bg-white p-2 shadow-lg"
          >
            <p className="px-1 text-xs text-slate-600">Out of your next until (or until the run changes):</p>
            {choices.map((c, i) => (
              <button
                key={c.label}
                ref={i === 0 ? firstChoice : undefined}
                type="button"
                disabled={busy}
                onClick={() => void park(c.until, `Snoozed until ${untilWords(c.until)} (or until the run changes).`)}
                className="rounded px-2 py-1.5 text-left text-sm hover:bg-slate-100"
              >
                {c.label} <span className="text-xs text-slate-600">· {untilWords(c.until)}</span>
              </button>
            ))}
          </div>
        )}
      </div>
    </>
  );
}

/**
 * The queue's mark of a run the viewer parked (the row's `park`): in words — skipped or handed off
 * until it changes, or snoozed until a time — with Unpark, which puts it back in their next and
 * keeps the focus on the row's link.
 */
export function ParkedBadge({ runId, park }: { runId: string; park: { kind: "skip" | "snooze" | "handoff"; until: string | null } }) {
  const queryClient = useQueryClient();
  const [busy, setBusy] = useState(false);
  const words =
    park.kind === "handoff" ? "handed off by you: out of your next until it changes" : park.until ? `snoozed by you until ${untilWords(new Date(park.until))}` : "skipped by you until it changes";
  const unpark = async () => {
    setBusy(true);
    try {
      await apiFetch(`/api/runs/${runId}/park`, { method: "DELETE" });
      toast("Unparked: the run is in your next again.");
      await queryClient.invalidateQueries({ queryKey: ["queue"] });
      focusElement(document.querySelector(`a[href="/runs/${runId}"]`));
    } catch {
      toast("The run could not be unparked.", "error");
    } finally {
      setBusy(false);
    }
  };
  return (
    <span className="mt-1 flex w-fit flex-wrap items-center gap-1 rounded bg-violet-100 px-1.5 py-0.5 text-xs font-medium text-violet-950" data-testid="parked-badge">
      <span>{words}</span>
      <button type="button" disabled={busy} onClick={() => void unpark()} className="rounded border border-violet-700 bg-white px-1.5 text-violet-900 hover:bg-violet-50 disabled:opacity-50">
        Unpark<span className="sr-only"> run of this row</span>
      </button>
    </span>
  );
}
