"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useId, useRef, useState } from "react";
import { ApiError, apiFetch } from "@/lib/client/api";
import type { passkeyRequirementBodySchema, passkeyRequirementOverviewSchema } from "@/lib/api/endpoints/signature-api";
import { ROLES, type RoleName } from "@/lib/people/admin-schemas";
import type { z } from "zod";

/** Body of `PUT /api/admin/passkey-requirements` (lib/api/endpoints/signature-api.ts), as the server parses it. */
type RequirementBody = z.infer<typeof passkeyRequirementBodySchema>;
/** Its 200 answer: the roles that now require a passkey, in ROLES order. */
type RequirementAnswer = { roles: RoleName[] };
/** `GET /api/admin/passkey-requirements`: the roles requiring one and, per role, the enabled people without one. */
type Overview = z.infer<typeof passkeyRequirementOverviewSchema>;
const OVERVIEW_KEY = ["admin", "passkey-requirements"] as const;

const PLURAL: Record<RoleName, string> = { operator: "Operators", supervisor: "Supervisors", admin: "Admins" };
const SINGULAR: Record<RoleName, string> = { operator: "operator", supervisor: "supervisor", admin: "admin" };

/**
 * How many people of `role` have no passkey yet and what happens to them: "2 supervisors have no
 * passkey yet: their next page asks them to register one." when the role is required, "… would be
 * asked …" when it is not; "Every admin has a passkey." when none lacks one.
 */
export function withoutPasskeyText(role: RoleName, count: number, required: boolean): string {
  if (count === 0) return `Every ${SINGULAR[role]} has a passkey.`;
  const who = count === 1 ? `1 ${SINGULAR[role]} has` : `${count} ${PLURAL[role].toLowerCase()} have`;
  return required ? `${who} no passkey yet: their next page asks them to register one.` : `${who} no passkey yet and would be asked to register one.`;
}

/**
 * The sentence for a refused or failed save of `body`: what could not be done, the server's typed
 * message (written for people: `forbidden`, `unauthenticated`, `bad_request`, `network`…) and that
 * the box is back to what it was.
 */
function failureMessage(body: RequirementBody, e: unknown): string {
  const who = PLURAL[body.role].toLowerCase();
  const what = body.required ? `require a passkey for ${who}` : `stop requiring a passkey for ${who}`;
  const why = e instanceof ApiError ? e.message.replace(/([^.!?])$/, "$1.") : "Something went wrong.";
  return `Could not ${what}: ${why} The setting is back to what it was.`;
}

/**
 * Admin → Users, "Passkeys required": one checkbox per role (ROLES order) saying whether people of
 * that role must have a passkey; people of a checked role who have none are sent to
 * /account/passkeys to register one before they can use the console. Each change is one
 * `PUT /api/admin/passkey-requirements` `{role, required}`, shown at once (optimistic) and put
 * back, with the server's typed message, when it is refused or fails. Under each box, how many
 * enabled people of the role have no passkey yet (`GET /api/admin/passkey-requirements`, read
 * again after every save). `initial` is the server's state when the page was rendered
 * (`passkeyRequirementOverview()`); `viewerHasPasskey` says whether the admin viewing the page has
 * a passkey of their own (the admin row warns them if not).
 */
export function PasskeyRequirementsAdmin({ initial, viewerHasPasskey }: { initial: Overview; viewerHasPasskey: boolean }) {
  const ids = useId();
  const qc = useQueryClient();
  const overview = useQuery({ queryKey: OVERVIEW_KEY, queryFn: () => apiFetch<Overview>("/api/admin/passkey-requirements"), initialData: initial });
  const [required, setRequired] = useState<ReadonlySet<RoleName>>(() => new Set(initial.roles));
  const [pending, setPending] = useState<ReadonlySet<RoleName>>(() => new Set());
  // the same set for the mutation's callbacks, which keep the closure of the render that started them
  const pendingNow = useRef<Set<RoleName>>(new Set());
  const [error, setError] = useState<{ role: RoleName; message: string } | null>(null);
  const [status, setStatus] = useState("");

  const withRole = (s: ReadonlySet<RoleName>, role: RoleName, on: boolean) => {
    const next = new Set(s);
    if (on) next.add(role);
    else next.delete(role);
    return next;
  };

  const save = useMutation({
    mutationFn: (body: RequirementBody) => apiFetch<RequirementAnswer>("/api/admin/passkey-requirements", { method: "PUT", body }),
    onMutate: (body) => {
      // optimistic: the box shows the new value while the request is out; rolled back per role on failure
      setError(null);
      setStatus("");
      pendingNow.current.add(body.role);
      setPending((p) => withRole(p, body.role, true));
      setRequired((r) => withRole(r, body.role, body.required));
    },
    onSuccess: ({ roles }, body) => {
      // the server's list is the truth, except for roles whose own request is still out
      setRequired((r) => new Set(ROLES.filter((role) => (role !== body.role && pendingNow.current.has(role) ? r.has(role) : roles.includes(role)))));
      setStatus(body.required ? `${PLURAL[body.role]} must now have a passkey.` : `${PLURAL[body.role]} no longer need a passkey.`);
      void qc.invalidateQueries({ queryKey: OVERVIEW_KEY });
    },
    onError: (e, body) => {
      setRequired((r) => withRole(r, body.role, !body.required));
      setError({ role: body.role, message: failureMessage(body, e) });
    },
    onSettled: (_d, _e, body) => {
      pendingNow.current.delete(body.role);
      setPending((p) => withRole(p, body.role, false));
    },
  });

  const hintId = `${ids}-consequence`;
  const errorId = `${ids}-error`;
  return (
    <section aria-labelledby={`${ids}-h`} className="mt-6 rounded-lg border border-slate-200 bg-white p-4">
      <h2 id={`${ids}-h`} className="font-semibold">
        Passkeys required
      </h2>
      <p id={hintId} className="mt-1 text-sm text-slate-600">
        People of a checked role without a passkey must register one (under <span className="font-medium">Passkeys</span> in the account menu) before they can use the console.
      </p>
      <fieldset className="mt-3" aria-describedby={error ? errorId : undefined}>
        <legend className="sr-only">Roles that must have a passkey</legend>
        <ul className="grid grid-cols-1 gap-3 md:grid-cols-3 md:gap-x-6">
          {ROLES.map((role) => {
            const checked = required.has(role);
            const busy = pending.has(role);
            const warnSelf = role === "admin" && checked && !viewerHasPasskey;
            const missing = overview.data.withoutPasskey[role];
            return (
              <li key={role}>
                <label className="flex items-center gap-2 text-sm">
                  <input
                    type="checkbox"
                    name="passkey-required"
                    value={role}
                    checked={checked}
                    // aria-disabled, not disabled: the box keeps focus while its request is out
                    aria-disabled={busy || undefined}
                    aria-describedby={[hintId, `${ids}-${role}-count`, error?.role === role ? errorId : null, warnSelf ? `${ids}-self` : null].filter(Boolean).join(" ")}
                    onChange={(e) => {
                      if (busy) return;
                      save.mutate({ role, required: e.target.checked });
                    }}
                    className="h-4 w-4 aria-disabled:opacity-60"
                  />
                  <span>
                    {PLURAL[role]} <span className="sr-only">must have a passkey</span>
                    {busy && <span className="ml-1 text-xs text-slate-500">saving…</span>}
                  </span>
                </label>
                <p id={`${ids}-${role}-count`} className={`ml-6 mt-0.5 text-xs ${checked && missing > 0 ? "text-amber-800" : "text-slate-500"}`}>
                  {withoutPasskeyText(role, missing, checked)}
                </p>
                {warnSelf && (
                  <p id={`${ids}-self`} className="ml-6 mt-0.5 text-xs text-amber-800">
                    You have no passkey yet: your next page will ask you to register one.
                  </p>
                )}
              </li>
            );
          })}
        </ul>
      </fieldset>
      {error && (
        <p id={errorId} role="alert" className="mt-3 rounded-md border border-red-300 bg-red-50 px-3 py-2 text-sm text-red-800">
          {error.message}
        </p>
      )}
      <p role="status" className="mt-2 min-h-4 text-xs text-emerald-800">
        {status}
      </p>
    </section>
  );
}
