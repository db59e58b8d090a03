import type { DeadlineTone, DeadlineUrgency } from "@/lib/deadline/urgency";

const BADGE: Record<DeadlineTone, string> = {
  calm: "",
  near: "bg-amber-100 text-amber-950 ring-1 ring-amber-400",
  urgent: "bg-red-700 text-white",
  escalated: "bg-red-100 text-red-900 ring-1 ring-red-400",
  expired: "bg-slate-200 text-slate-800",
};

/** The colour of a deadline's own text (the time left) for its tone: amber near, red urgent or escalated. */
export function deadlineTextClass(tone: DeadlineTone): string {
  return tone === "near" ? "text-amber-900" : tone === "urgent" || tone === "escalated" ? "font-medium text-red-800" : "";
}

/**
 * A deadline's urgency as a small badge in words ("due soon", "escalated", "expires soon",
 * "expired") and colour (lib/deadline/urgency.ts); nothing when the deadline is far.
 */
export function DeadlineBadge({ urgency }: { urgency: DeadlineUrgency }) {
  if (urgency.tone === "calm") return null;
  return (
    <span data-testid="deadline-badge" data-tone={urgency.tone} className={`ml-1 whitespace-nowrap rounded px-1.5 py-0.5 text-xs font-semibold ${BADGE[urgency.tone]}`}>
      {urgency.label}
    </span>
  );
}
