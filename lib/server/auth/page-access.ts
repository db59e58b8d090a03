import { headers } from "next/headers";
import { forbidden, notFound, redirect } from "next/navigation";
import { cache } from "react";
import { isDomainError } from "../../errors/domain-error";
import { PAGE_PATH_HEADER } from "../../net/page-path";
import { getViewer, requireRole, type Role, type Viewer } from "./session";
import { mustRegisterPasskey, PASSKEYS_PAGE } from "./passkey-requirement";

/*
 * Access for server pages. Pages check themselves (the header's links and the proxy's redirect
 * are conveniences, not checks), and refuse with real HTTP statuses: 404 through `notFound()`
 * (app/not-found.tsx), 403 through `forbidden()` (app/forbidden.tsx).
 *
 * A page with a route-level loading.tsx streams: once its skeleton is sent the status is 200 and
 * can no longer change. So whatever decides a page's status — the session, the role, whether the
 * run or person it shows exists — is checked in the segment's layout.tsx, above the loading
 * boundary, before anything streams; the page checks again for itself.
 */


/** The viewer of this request, read once however many layouts and pages ask (React `cache` is per request). */
const requestViewer = cache(() => getViewer());

/**
 * The path (with query) of the page being rendered, from the header proxy.ts sets; "/runs" when
 * it is missing or not a same-site path. Used as `next` of the sign-in redirect by layouts,
 * which are not told their URL.
 */
export async function pagePath(): Promise<string> {
  const raw = (await headers()).get(PAGE_PATH_HEADER);
  return raw && raw.startsWith("/") && !raw.startsWith("//") ? raw : "/runs";
}

/**
 * The signed-in viewer, or a redirect to /sign-in with `next` (`nextPath`, else this page's path).
 * A person whose role requires a passkey and who has none is sent to register one
 * (lib/server/auth/passkey-requirement.ts), except on that page itself (`allowWithoutPasskey`).
 */
export async function requirePageViewer(nextPath?: string, opts: { allowWithoutPasskey?: boolean } = {}): Promise<Viewer> {
  const viewer = await requestViewer();
  if (!viewer) redirect(`/sign-in?next=${encodeURIComponent(nextPath ?? (await pagePath()))}`);
  if (!opts.allowWithoutPasskey && (await passkeyMissing(viewer))) redirect(`${PASSKEYS_PAGE}?required=1`);
  return viewer;
}

/** Whether the viewer must register a passkey first, read once per request. */
const passkeyMissing = cache((viewer: Viewer) => mustRegisterPasskey(viewer));

/** Answers 403 unless `viewer` holds one of `roles`; the refusal is audited `denied` by `requireRole`. */
export async function requirePageRole(viewer: Viewer, roles: readonly Role[], action: string): Promise<void> {
  try {
    await requireRole(viewer, roles, action);
  } catch (e) {
    if (isDomainError(e)) forbidden();
    throw e;
  }
}

/**
 * Turns a typed refusal a page's data call threw into the page's answer: `not_found` → 404,
 * `forbidden` → 403 (both already audited where they were raised); anything else is rethrown
 * (app/error.tsx shows it).
 */
export function pageRefusal(e: unknown): never {
  if (isDomainError(e) && e.code === "not_found") notFound();
  if (isDomainError(e) && (e.code === "forbidden" || e.status === 403)) forbidden();
  throw e;
}
