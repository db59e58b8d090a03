"use client";

import { zodResolver } from "@hookform/resolvers/zod";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useState } from "react";
import { Controller, useForm, useWatch } from "react-hook-form";
import type { z } from "zod";
import { grantInputSchema, ROLES, updateUserSchema, type GrantInput, type UpdateUserInput } from "@/lib/people/admin-schemas";
import { apiFetch } from "@/lib/client/api";
import { formatMoney } from "@/lib/money/format-money";
import type { AdminUserView, GrantView } from "@/lib/api/schemas";
import { toast } from "../toaster";
import { applyServerError, buttonClass, CeilingInput, FormError, quietButtonClass, SavedStatus, useSaveFocus } from "./form-bits";
import { USERS_KEY } from "./paged-list";

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
  const [formError, setFormError] = useState<string | null>(null);
  const done = useSaveFocus("role-form");
  const form = useForm<z.input<typeof updateUserSchema>, unknown, UpdateUserInput>({ resolver: zodResolver(updateUserSchema), defaultValues: { role: user.role } });
  const save = useMutation({
    mutationFn: (v: UpdateUserInput) => apiFetch<{ user: AdminUserView }>(`/api/admin/users/${user.id}`, { method: "PATCH", body: v }),
    onSuccess: ({ user: u }) => {
      setFormError(null);
      form.reset({ role: u.role });
      void qc.invalidateQueries({ queryKey: USERS_KEY });
      toast(`${u.name} is now ${u.role}.`);
      done.saved(`Saved: role ${u.role}.`);
      router.refresh();
    },
    onError: (e) => (setFormError(applyServerError(e, form.setError, ["role"])), done.refused()),
  });
  const roleError = form.formState.errors.role?.message;
  return (
    <form noValidate className="flex flex-wrap items-end gap-2" onSubmit={form.handleSubmit((v) => save.mutate(v))}>
      <div>
        <label htmlFor="role" className="block text-sm font-medium">
          Role
        </label>
        <select id="role" {...form.register("role")} aria-invalid={!!roleError} aria-describedby={roleError ? "role-error" : undefined} className="mt-1 rounded-md border border-slate-300 px-2 py-1.5 text-sm">
          {ROLES.map((r) => (
            <option key={r} value={r}>
              {r}
            </option>
          ))}
        </select>
      </div>
      <button type="submit" className={quietButtonClass} disabled={save.isPending || !form.formState.isDirty}>
        Save role
      </button>
      {roleError && (
        <p id="role-error" className="w-full text-sm text-red-700">
          {roleError}
        </p>
      )}
      <div className="w-full">
        <FormError id={done.errorId} message={formError} />
        <SavedStatus id={done.statusId} message={done.message} />
      </div>
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
      <div className="relative max-w-full overflow-x-auto" data-scrolls-inside><table className="w-full text-sm">
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
      </table></div>
    </section>
  );
}

function GrantRow({ userId, initial }: { userId: string; initial: GrantView }) {
  const [saved, setSaved] = useState<GrantView>(initial);
  const [formError, setFormError] = useState<string | null>(null);
  const done = useSaveFocus(`grant-${initial.tool}`);
  const form = useForm<GrantInput>({
    resolver: zodResolver(grantInputSchema),
    defaultValues: { canApprove: initial.canApprove, approveLimit: initial.approveLimit, canAuthor: initial.canAuthor, authorLimit: initial.authorLimit },
  });
  const { register, control, handleSubmit, formState } = form;
  const canApprove = useWatch({ control, name: "canApprove" });
  const canAuthor = useWatch({ control, name: "canAuthor" });
  const save = useMutation({
    mutationFn: (v: GrantInput) => apiFetch<{ grant: GrantView }>(`/api/admin/users/${userId}/grants/${initial.tool}`, { method: "PUT", body: v }),
    onSuccess: ({ grant }) => {
      setFormError(null);
      setSaved(grant);
      form.reset({ canApprove: grant.canApprove, approveLimit: grant.approveLimit, canAuthor: grant.canAuthor, authorLimit: grant.authorLimit });
      toast(`${grant.label}: ${describeGrant(grant)}.`);
      done.saved(`Saved: ${describeGrant(grant)}.`);
    },
    onError: (e) => (setFormError(applyServerError(e, form.setError, ["canApprove", "approveLimit", "canAuthor", "authorLimit"])), done.refused()),
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
          <FormError id={done.errorId} message={formError} />
          <SavedStatus id={done.statusId} message={done.message} />
        </div>
      </td>
    </tr>
  );
}
