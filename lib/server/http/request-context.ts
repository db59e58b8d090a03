import { AsyncLocalStorage } from "node:async_hooks";
import { CLIENT_IP_HEADER } from "../../net/client-address.mjs";

/** Who a request has been identified as so far (set by requireViewer / requireAgent). */
export type RequestActor = { kind: "user"; id: string } | { kind: "agent"; id: string } | { kind: "integration"; id: string };

/**
 * What the server knows about the API request being handled, for the denial audit trail:
 * the endpoint, who the caller turned out to be, and whether a refusal of this request has
 * already been dealt with (recorded as a `denied` event, or deliberately not recorded).
 */
export interface RequestContext {
  method: string;
  path: string;
  /** The declared route, e.g. "POST /api/runs/{runId}/approvals" (bounded; the raw path is not). */
  route: string;
  /** The client address the custom server put in `x-plandesk-client-ip`, or null. */
  address: string | null;
  /** Route parameters (e.g. `runId`), when the handler got them. */
  params: Record<string, string>;
  actor: RequestActor | null;
  denialHandled: boolean;
  /** A refusal of this request is already on the record (a `denied`, `*_refused`, `fenced` or `refused` event). */
  refusalRecorded: boolean;
}

const storage = new AsyncLocalStorage<RequestContext>();

/** Runs `fn` with a fresh context for `req` (used by `route()` in lib/server/route/route.ts); `route` is the declared template ("POST /api/runs/{runId}"). */
export function runWithRequestContext<T>(req: Request, params: Record<string, string>, fn: () => T, route?: string): T {
  let path = "";
  try {
    path = new URL(req.url).pathname;
  } catch {
    path = req.url;
  }
  const method = req.method.toUpperCase();
  return storage.run(
    { method, path, route: route ?? `${method} ${path.slice(0, 150)}`, address: req.headers.get(CLIENT_IP_HEADER), params, actor: null, denialHandled: false, refusalRecorded: false },
    fn,
  );
}

/** The context of the request being handled, or undefined outside an API handler (pages, tests, scripts). */
export function currentRequest(): RequestContext | undefined {
  return storage.getStore();
}

/** Records who the current request was authenticated as. */
export function setRequestActor(actor: RequestActor): void {
  const ctx = storage.getStore();
  if (ctx) ctx.actor = actor;
}

/** Marks the current request's refusal as dealt with, so `handle()` writes no second `denied` event. */
export function markDenialHandled(): void {
  const ctx = storage.getStore();
  if (ctx) ctx.denialHandled = true;
}

/** Marks that a refusal of the current request was written to the audit log (by whichever service refused). */
export function markRefusalRecorded(): void {
  const ctx = storage.getStore();
  if (ctx) ctx.refusalRecorded = true;
}

/** `"POST /api/runs/run_1/approvals"` for the current request, or undefined outside one. */
export function currentEndpoint(): string | undefined {
  const ctx = storage.getStore();
  return ctx ? `${ctx.method} ${ctx.path}` : undefined;
}
