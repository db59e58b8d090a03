/**
 * Browser-side calls to the operator API. Every non-2xx answer becomes an `ApiError` carrying
 * the typed body of docs/api.md (`{error: {code, message, ...details}}`), so components can branch on
 * `code` and show `message`, which is written for people.
 */
export class ApiError extends Error {
  readonly status: number;
  readonly code: string;
  readonly details: Record<string, unknown>;

  constructor(status: number, code: string, message: string, details: Record<string, unknown>) {
    super(message);
    this.name = "ApiError";
    this.status = status;
    this.code = code;
    this.details = details;
  }
}

/** JSON request to the same origin; resolves with the parsed body or throws `ApiError`. */
export async function apiFetch<T>(url: string, init: { method?: string; body?: unknown } = {}): Promise<T> {
  let res: Response;
  try {
    res = await fetch(url, {
      method: init.method ?? "GET",
      headers: { "content-type": "application/json", accept: "application/json" },
      body: init.body === undefined ? undefined : JSON.stringify(init.body),
      credentials: "same-origin",
    });
  } catch {
    throw new ApiError(0, "network", "The console could not be reached. Check your connection; nothing was changed.", {});
  }
  const text = await res.text();
  let json: unknown = null;
  try {
    json = text ? JSON.parse(text) : null;
  } catch {
    json = null;
  }
  if (!res.ok) {
    const err = (json as { error?: { code?: string; message?: string } } | null)?.error;
    const { code, message, ...details } = (err ?? {}) as Record<string, unknown>;
    throw new ApiError(
      res.status,
      typeof code === "string" ? code : "unexpected",
      typeof message === "string"
        ? message
        : res.status >= 500
          ? `The server failed (${res.status}) without an answer; this change was not saved (what was saved before is kept). Try again.`
          : `The request failed (${res.status}); nothing was changed.`,
      details,
    );
  }
  return json as T;
}

/** A fresh idempotency key for one intent (one click of one button). */
export function newIdempotencyKey(): string {
  return typeof crypto !== "undefined" && "randomUUID" in crypto ? crypto.randomUUID() : `${Date.now()}-${Math.random().toString(36).slice(2)}`;
}
