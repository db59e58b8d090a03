import { ENDPOINTS } from "./endpoints";

/** One API path template (`/api/runs/{runId}`; `{...rest}` matches one or more segments) and the methods it answers. */
export interface ApiRoute {
  path: string;
  methods: readonly string[];
}

/**
 * API routes that are not endpoint declarations: better-auth's own endpoints (one catch-all) and
 * the benchmark's bare route (answers 404 unless benchmarking).
 */
export const UNDECLARED_API_ROUTES: readonly ApiRoute[] = [
  { path: "/api/auth/{...all}", methods: ["GET", "POST"] },
  { path: "/api/bench/bare", methods: ["GET", "POST"] },
];

interface Compiled {
  re: RegExp;
  methods: Set<string>;
  /** A `{...rest}` route: Next.js sends a path there only when no more specific route file has it. */
  catchAll: boolean;
}

/** Every API route (declarations and the undeclared ones), grouped by path, compiled once. */
function compile(): Compiled[] {
  const byPath = new Map<string, Set<string>>();
  for (const r of [...ENDPOINTS.map((e) => ({ path: e.path, methods: [e.method] })), ...UNDECLARED_API_ROUTES]) {
    const set = byPath.get(r.path) ?? new Set<string>();
    for (const m of r.methods) set.add(m);
    byPath.set(r.path, set);
  }
  return [...byPath].map(([path, methods]) => {
    const pattern = path
      .split(/(\{\.\.\.\w+\}|\{\w+\})/)
      .map((part) => (part.startsWith("{...") ? ".+" : part.startsWith("{") ? "[^/]+" : part.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")))
      .join("");
    // HEAD is answered wherever GET is; OPTIONS everywhere (Next.js answers both itself).
    if (methods.has("GET")) methods.add("HEAD");
    methods.add("OPTIONS");
    return { re: new RegExp(`^${pattern}$`), methods, catchAll: path.includes("{...") };
  }).sort((a, b) => Number(a.catchAll) - Number(b.catchAll));
}

let table: Compiled[] | null = null;

/** How an API request's path and method meet the route table. */
export type ApiRouteMatch = { kind: "found" } | { kind: "not_found" } | { kind: "method_not_allowed"; allow: string[] };

/**
 * Whether `method` on `pathname` (an `/api/...` path as received, percent-escapes kept) names an
 * API route: `found`; a path no route has: `not_found`; a route without that method:
 * `method_not_allowed` with the methods it does answer (for the `Allow` header). One pass over
 * the ~60 compiled routes; no allocation beyond the answer.
 */
export function matchApiRoute(pathname: string, method: string): ApiRouteMatch {
  table ??= compile();
  const path = pathname.length > 1 && pathname.endsWith("/") ? pathname.slice(0, -1) : pathname;
  let allow: Set<string> | null = null;
  for (const r of table) {
    // a route file for the path shadows a catch-all (its other methods are 405, not the catch-all's)
    if (r.catchAll && allow) break;
    if (!r.re.test(path)) continue;
    if (r.methods.has(method.toUpperCase())) return { kind: "found" };
    allow ??= new Set();
    for (const m of r.methods) allow.add(m);
  }
  return allow ? { kind: "method_not_allowed", allow: [...allow].sort() } : { kind: "not_found" };
}
