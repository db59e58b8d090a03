/** The queue's views (issue #16): whose runs, or which need attention. Client-safe. */
export const QUEUE_VIEWS = ["all", "mine", "unassigned", "beyond_my_limit", "near_deadline", "requested"] as const;
export type QueueView = (typeof QUEUE_VIEWS)[number];

/** Labels of the views, as the queue's view switcher shows them. */
export const QUEUE_VIEW_LABELS: Record<QueueView, string> = {
  all: "All",
  mine: "Mine",
  unassigned: "Unassigned",
  beyond_my_limit: "Beyond my limit",
  near_deadline: "Near deadline",
  requested: "Requested of me",
};

/** A waiting run whose deadline is this close (ms) is "near deadline". */
export const NEAR_DEADLINE_MS = 2 * 60 * 60 * 1000;
