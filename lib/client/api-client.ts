import type { z } from "zod";
import type { Endpoint } from "../api/contract";

/**
 * A typed client for any declared endpoint (lib/api/endpoints.ts), fetch-based, for Node ≥ 20
 * (and runtimes with `node:crypto`, which the shared schemas import). `callEndpoint(endpoint,
 * input)` builds the path from the declaration's template and `params`, adds `query`, the JSON
 * `body`, the `Idempotency-Key` header and the Bearer credential, and resolves — never throws —
 * with `{ok: true, status, replayed, ...body}` (the body typed by the declaration's success
 * schema) or `{ok: false, status, error: {code, message, ...details}}` (the code typed by the
 * declaration's refusals). A network failure is `status: 0, code: "network_error"`; an answer
 * that is not the API's JSON is `code: "bad_response"`.
 */

/** Refusals any call can get besides the endpoint's own (transport and generic ones). */
export type CommonErrorCode = "unauthorized" | "forbidden" | "bad_request" | "invalid_json" | "payload_too_large" | "not_found" | "internal" | "network_error" | "bad_response";

/** An error body of docs/api.md: `{code, message, ...details}`. */
export type ApiError<C extends string> = { code: C | CommonErrorCode; message: string } & Record<string, unknown>;

/** A refused call: HTTP status (0 for a network failure) and the typed error body. */
export type Failure<C extends string> = { ok: false; status: number; error: ApiError<C> };

/** Every call's answer: the body with `ok: true`, or a `Failure` with the call's refusal codes. */
export type Result<T, C extends string = never> = ({ ok: true; status: number; replayed: boolean } & T) | Failure<C>;

/** What an endpoint answers on success. */
export type SuccessOf<E extends Endpoint> = z.output<E["success"]["schema"]>;
/** The refusal codes an endpoint declares. */
export type RefusalOf<E extends Endpoint> = E["refusals"][number];

/** The request parts a declared endpoint takes. */
export type InputOf<E extends Endpoint> = {
  params?: E["params"] extends z.ZodType ? z.input<E["params"]> : never;
  query?: E["query"] extends z.ZodType ? z.input<E["query"]> : never;
  body?: E["body"] extends z.ZodType ? z.input<E["body"]> : never;
  idempotencyKey?: string;
};

/** Where and as whom to call: the console's origin, the Bearer credential, an optional fetch (tests). */
export interface ClientOptions {
  /** Origin of the console, e.g. "http://localhost:3000". */
  baseUrl: string;
  /** Sent as `Authorization: Bearer <credential>` (an agent or integration key). */
  credential?: string;
  fetch?: typeof fetch;
}

/** The URL of `endpoint` with `params` filled in (each URI-encoded) and `query` appended. */
export function urlOf(baseUrl: string, endpoint: Endpoint, params: Record<string, unknown> = {}, query: Record<string, unknown> = {}): string {
  const path = endpoint.path.replace(/\{(\w+)\}/g, (_m, k: string) => encodeURIComponent(String(params[k] ?? "")));
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) if (v !== undefined && v !== null) q.set(k, String(v));
  const qs = q.toString();
  return `${baseUrl.replace(/\/+$/, "")}${path}${qs ? `?${qs}` : ""}`;
}

/** Calls one declared endpoint (see the module comment). */
export async function callEndpoint<E extends Endpoint>(opts: ClientOptions, endpoint: E, input: InputOf<E> = {}): Promise<Result<SuccessOf<E>, RefusalOf<E>>> {
  const doFetch = opts.fetch ?? fetch;
  const url = urlOf(opts.baseUrl, endpoint, input.params as Record<string, unknown>, input.query as Record<string, unknown>);
  let res: Response;
  try {
    res = await doFetch(url, {
      method: endpoint.method,
      headers: {
        accept: "application/json",
        ...(opts.credential ? { authorization: `Bearer ${opts.credential}` } : {}),
        ...(input.body === undefined ? {} : { "content-type": "application/json" }),
        ...(input.idempotencyKey ? { "idempotency-key": input.idempotencyKey } : {}),
      },
      body: input.body === undefined ? undefined : JSON.stringify(input.body),
    });
  } catch (e) {
    return { ok: false, status: 0, error: { code: "network_error", message: `The console at ${opts.baseUrl} could not be reached: ${e instanceof Error ? e.message : String(e)}` } };
  }
  let json: unknown;
  try {
    json = await res.json();
  } catch {
    return { ok: false, status: res.status, error: { code: "bad_response", message: `The console answered ${res.status} without a JSON body.` } };
  }
  if (!res.ok) {
    const err = (json as { error?: ApiError<RefusalOf<E>> } | null)?.error;
    if (!err || typeof err.code !== "string") return { ok: false, status: res.status, error: { code: "bad_response", message: `The console answered ${res.status} without an error body.` } };
    return { ok: false, status: res.status, error: err };
  }
  return { ok: true, status: res.status, replayed: res.headers.get("idempotent-replayed") === "true", ...(json as object) } as Result<SuccessOf<E>, RefusalOf<E>>;
}
