"use client";

import { createContext, useContext, useEffect, useRef, type ReactNode } from "react";
import { createPortal } from "react-dom";

/** Where the decision bar goes: the end of the run page's main column (sticky at the viewport's bottom). */
export const DecisionBarSlot = createContext<HTMLElement | null>(null);

/**
 * The sticky decision bar: the decision's summary and its buttons, pinned to the bottom of the
 * viewport on desktop and phone while the plan is on screen, so the decision is never 2,000 px
 * away. Rendered into the slot the run workspace provides (a portal keeps the decision panel's
 * state); where there is no slot, in place.
 */
export function DecisionBar({ summary, children }: { summary: ReactNode; children: ReactNode }) {
  const slot = useContext(DecisionBarSlot);
  const ref = useRef<HTMLDivElement>(null);
  useEffect(() => followBarHeight(ref.current), []);
  const bar = (
    <div
      ref={ref}
      role="region"
      aria-label="Decision bar"
      data-testid="decision-bar"
      className="flex flex-wrap items-center gap-x-3 gap-y-2 border-t border-slate-300 bg-white/95 px-3 py-2 shadow-[0_-4px_12px_rgba(0,0,0,0.08)] backdrop-blur sm:rounded-t-lg sm:border-x"
    >
      {/* at least 16rem before the buttons wrap under it: never one word per line on a phone */}
      <div className="min-w-0 grow basis-64 text-sm" data-testid="decision-summary">
        {summary}
      </div>
      <div className="flex flex-wrap gap-2">{children}</div>
    </div>
  );
  return slot ? createPortal(bar, slot) : bar;
}

/**
 * Keeps `--decision-bar-height` on the document equal to the bar's height as it wraps, grows or
 * shrinks (a longer summary, buttons on two rows on a phone): app/globals.css pads the page's
 * scrolling by it, so an element the focus moves to is scrolled above the bar, never under it
 * (WCAG 2.4.11 Focus Not Obscured); when the bar grows over the focused element, that element is
 * scrolled above it. Returns the cleanup that stops following and removes the height.
 */
function followBarHeight(bar: HTMLElement | null): (() => void) | undefined {
  if (!bar || typeof ResizeObserver === "undefined") return undefined;
  const root = document.documentElement;
  const update = () => {
    const barBox = bar.getBoundingClientRect();
    root.style.setProperty("--decision-bar-height", `${Math.ceil(barBox.height)}px`);
    // a bar that grew (a longer summary after a checkbox was ticked) does not cover the focus either
    const focused = document.activeElement;
    if (focused instanceof HTMLElement && focused !== document.body && !bar.contains(focused)) {
      const box = focused.getBoundingClientRect();
      if (box.bottom > barBox.top && box.top < barBox.bottom) focused.scrollIntoView({ block: "nearest" });
    }
  };
  const observer = new ResizeObserver(update);
  observer.observe(bar);
  update();
  return () => {
    observer.disconnect();
    root.style.removeProperty("--decision-bar-height");
  };
}
