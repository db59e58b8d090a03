/** The queue's views: whose runs, or which need attention. Client-safe. */
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

/**
 * The queue's ownership view and filters, as the URL and `GET /api/runs` carry them:
 * `view`, `tool`, `accountId` (prefix), `minAmountMinor` / `maxAmountMinor` (one step's money,
 * minor units), `minAgeHours` / `maxAgeHours`; `q` (search: a run id, a ticket number or the start
 * of an account's id or name; a leading "#" is ignored); `sort` ("newest" first, the default, or
 * "at_stake": most money at stake first).
 */
export interface QueueFilterState {
  q?: string;
  sort?: QueueSort;
  view?: QueueView;
  tool?: string;
  accountId?: string;
  minAmountMinor?: number;
  maxAmountMinor?: number;
  minAgeHours?: number;
  maxAgeHours?: number;
}

/** The queue's orders: newest first (default), or most money at stake first (the largest per-currency total). */
export const QUEUE_SORTS = ["newest", "at_stake"] as const;
export type QueueSort = (typeof QUEUE_SORTS)[number];

/** The search text as the query uses it: trimmed, a leading "#" dropped, at most 64 characters; undefined when empty. */
export function normalizeQueueSearch(q: string | undefined): string | undefined {
  const t = (q ?? "").trim().replace(/^#/, "").trim().slice(0, 64);
  return t === "" ? undefined : t;
}

/** Largest amount filter in minor units: the stored amounts are 32-bit integers (PostgreSQL `Int`). */
export const MAX_FILTER_MINOR = 2_147_483_647;
/** Largest age filter in hours (about eleven years). */
export const MAX_FILTER_AGE_HOURS = 100_000;

const KEYS = ["q", "sort", "view", "tool", "accountId", "minAmountMinor", "maxAmountMinor", "minAgeHours", "maxAgeHours"] as const;
const NUMERIC = new Set(["minAmountMinor", "maxAmountMinor", "minAgeHours", "maxAgeHours"]);

/** The filters as URL search params (only the set ones; the "all" view is the default and left out). */
export function queueFilterParams(f: QueueFilterState): URLSearchParams {
  const p = new URLSearchParams();
  for (const k of KEYS) {
    const v = f[k];
    if (v === undefined || v === "" || (k === "view" && v === "all") || (k === "sort" && v === "newest")) continue;
    p.set(k, String(v));
  }
  return p;
}

/** Reads the filters from URL search params, dropping anything malformed (the page's first render). */
export function parseQueueFilters(sp: Record<string, string | string[] | undefined>): QueueFilterState {
  const f: QueueFilterState = {};
  const one = (k: string) => (typeof sp[k] === "string" ? (sp[k] as string) : undefined);
  const view = one("view");
  if (view && (QUEUE_VIEWS as readonly string[]).includes(view)) f.view = view as QueueView;
  const q = normalizeQueueSearch(one("q"));
  if (q) f.q = q;
  const sort = one("sort");
  if (sort && (QUEUE_SORTS as readonly string[]).includes(sort)) f.sort = sort as QueueSort;
  const tool = one("tool");
  if (tool && /^[a-z0-9_.-]{1,64}$/i.test(tool)) f.tool = tool;
  const account = one("accountId");
  if (account && /^[A-Za-z0-9_.:-]{1,128}$/.test(account)) f.accountId = account;
  for (const k of NUMERIC) {
    const raw = one(k);
    const n = raw !== undefined && /^\d{1,11}(\.\d+)?$/.test(raw) ? Number(raw) : NaN;
    const max = k.endsWith("Minor") ? MAX_FILTER_MINOR : MAX_FILTER_AGE_HOURS;
    if (Number.isFinite(n) && n <= max) (f as Record<string, number>)[k] = k.endsWith("Minor") ? Math.round(n) : n;
  }
  return f;
}

