"use client";

import { zodResolver } from "@hookform/resolvers/zod";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useState } from "react";
import { Controller, useForm } from "react-hook-form";
import { grantInputSchema, ROLES, type GrantInput, type RoleName } from "@/lib/admin-schemas";
import { ApiError, apiFetch } from "@/lib/client/api";
import { formatMoney } from "@/lib/money";
import type { AdminUserView, GrantView } from "@/lib/server/admin";
import { toast } from "../toaster";
import { applyServerError, buttonClass, CeilingInput, FormError, quietButtonClass } from "./form-bits";
import { USERS_KEY } from "./users-admin";

/** One sentence for a grant, e.g. "approves up to $500.00; may not author". */
export function describeGrant(g: Pick<GrantView, "canApprove" | "approveLimit" | "canAuthor" | "authorLimit">): string {
  const part = (can: boolean, limit: GrantView["approveLimit"], verb: string) =>
    !can ? `may not ${verb}` : limit && Number.isFinite(limit.minor) ? `${verb}s up to ${formatMoney(limit)}` : `${verb}s (no ceiling)`;
  return `${part(g.canApprove, g.approveLimit, "approve")}; ${part(g.canAuthor, g.authorLimit, "author")}`;
}

/** Role of a person (the last active admin cannot be demoted: the server says so). */
export function RoleControl({ user }: { user: AdminUserView }) {
  const router = useRouter();
  const qc = useQueryClient();
  const [role, setRole] = useState<RoleName>(user.role);
  const [err, setErr] = useState<string | null>(null);
  const save = useMutation({
    mutationFn: (r: RoleName) => apiFetch<{ user: AdminUserView }>(`/api/admin/users/${user.id}`, { method: "PATCH", body: { role: r } }),
    onSuccess: ({ user: u }) => {
      setErr(null);
      void qc.invalidateQueries({ queryKey: USERS_KEY });
      toast(`${u.name} is now ${u.role}.`);
      router.refresh();
    },
    onError: (e) => setErr(e instanceof ApiError ? e.message : "Something went wrong; nothing was changed."),
  });
  return (
    <form
      className="flex flex-wrap items-end gap-2"
      onSubmit={(e) => {
        e.preventDefault();
        save.mutate(role);
      }}
    >
      <div>
        <label htmlFor="role" className="block text-sm font-medium">
          Role
        </label>
        <select id="role" value={role} onChange={(e) => setRole(e.target.value as RoleName)} className="mt-1 rounded-md border border-slate-300 px-2 py-1.5 text-sm">
          {ROLES.map((r) => (
            <option key={r} value={r}>
              {r}
            </option>
          ))}
        </select>
      </div>
      <button type="submit" className={quietButtonClass} disabled={save.isPending || role === user.role}>
        Save role
      </button>
      {err && (
        <p role="alert" className="w-full text-sm text-red-700">
          {err}
        </p>
      )}
    </form>
  );
}

/** The person's grants: one row per tool (approve + ceiling, author + ceiling), each saved on its own. */
export function GrantsTable({ userId, userName, initialGrants }: { userId: string; userName: string; initialGrants: GrantView[] }) {
  return (
    <section aria-labelledby="grants-h" className="mt-6 rounded-lg border border-slate-200 bg-white">
      <div className="border-b border-slate-200 px-4 py-3">
        <h2 id="grants-h" className="font-semibold">
          Grants of {userName}
        </h2>
        <p className="mt-1 text-xs text-slate-600">
          Approving and authoring are separate permissions. A ceiling caps the amount a step may move (exactly the ceiling is allowed); leave it empty for no ceiling.
        </p>
      </div>
      <table className="w-full text-sm">
        <thead className="bg-slate-50 text-left text-slate-600">
          <tr>
            <th scope="col" className="px-4 py-2 font-medium">
              Tool
            </th>
            <th scope="col" className="px-4 py-2 font-medium">
              Approve
            </th>
            <th scope="col" className="px-4 py-2 font-medium">
              Author
            </th>
            <th scope="col" className="px-4 py-2 font-medium">
              <span className="sr-only">Save</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {initialGrants.map((g) => (
            <GrantRow key={g.tool} userId={userId} initial={g} />
          ))}
        </tbody>
      </table>
    </section>
  );
}

function GrantRow({ userId, initial }: { userId: string; initial: GrantView }) {
  const [saved, setSaved] = useState<GrantView>(initial);
  const [formError, setFormError] = useState<string | null>(null);
  const form = useForm<GrantInput>({
    resolver: zodResolver(grantInputSchema),
    defaultValues: { canApprove: initial.canApprove, approveLimit: initial.approveLimit, canAuthor: initial.canAuthor, authorLimit: initial.authorLimit },
  });
  const { register, control, watch, handleSubmit, formState } = form;
  const canApprove = watch("canApprove");
  const canAuthor = watch("canAuthor");
  const save = useMutation({
    mutationFn: (v: GrantInput) => apiFetch<{ grant: GrantView }>(`/api/admin/users/${userId}/grants/${initial.tool}`, { method: "PUT", body: v }),
    onSuccess: ({ grant }) => {
      setFormError(null);
      setSaved(grant);
      form.reset({ canApprove: grant.canApprove, approveLimit: grant.approveLimit, canAuthor: grant.canAuthor, authorLimit: grant.authorLimit });
      toast(`${grant.label}: ${describeGrant(grant)}.`);
    },
    onError: (e) => setFormError(applyServerError(e, form.setError, ["canApprove", "approveLimit", "canAuthor", "authorLimit"])),
  });
  const id = (k: string) => `grant-${initial.tool}-${k}`;
  const limitError = (k: "approveLimit" | "authorLimit") => {
    const e = formState.errors[k] as { message?: string; minor?: { message?: string } } | undefined;
    return e?.minor?.message ?? e?.message;
  };
  const ceiling = (k: "approveLimit" | "authorLimit", enabled: boolean, verb: string) =>
    initial.movesMoney ? (
      <div className="mt-1">
        <Controller
          control={control}
          name={k}
          render={({ field }) => (
            <CeilingInput
              id={id(k)}
              label={`${verb} ceiling for ${initial.label}`}
              value={field.value}
              onChange={field.onChange}
              disabled={!enabled}
              invalid={!!limitError(k)}
              describedBy={limitError(k) ? `${id(k)}-error` : undefined}
            />
          )}
        />
        {limitError(k) && (
          <p id={`${id(k)}-error`} className="mt-1 text-xs text-red-700">
            {limitError(k)}
          </p>
        )}
      </div>
    ) : null;
  return (
    <tr className="border-t border-slate-100 align-top">
      <th scope="row" className="px-4 py-2 text-left font-normal">
        <div className="font-medium">{initial.label}</div>
        <div className="font-mono text-xs text-slate-500">{initial.tool}</div>
        <div className="mt-1 text-xs text-slate-600" data-testid={`grant-summary-${initial.tool}`}>
          {describeGrant(saved)}
        </div>
      </th>
      <td className="px-4 py-2">
        <label className="flex items-center gap-2">
          <input type="checkbox" {...register("canApprove")} />
          <span>
            May approve <span className="sr-only">{initial.label}</span>
          </span>
        </label>
        {ceiling("approveLimit", canApprove, "Approval")}
      </td>
      <td className="px-4 py-2">
        <label className="flex items-center gap-2">
          <input type="checkbox" {...register("canAuthor")} />
          <span>
            May author <span className="sr-only">{initial.label}</span>
          </span>
        </label>
        {ceiling("authorLimit", canAuthor, "Authoring")}
      </td>
      <td className="px-4 py-2 text-right">
        <form noValidate onSubmit={handleSubmit((v) => save.mutate(v))}>
          <button type="submit" className={buttonClass} disabled={save.isPending || !formState.isDirty} aria-label={`Save ${initial.label} grant`}>
            {save.isPending ? "Saving…" : "Save"}
          </button>
        </form>
        <div className="mt-1 text-left">
          <FormError message={formError} />
        </div>
      </td>
    </tr>
  );
}
