"use client";

import { createContext, useContext, type ReactNode } from "react";
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
  const bar = (
    <div
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
