"use client";

import { zodResolver } from "@hookform/resolvers/zod";
import { useMutation, useQueryClient, type InfiniteData } from "@tanstack/react-query";
import Link from "next/link";
import { useState } from "react";
import { useForm } from "react-hook-form";
import type { z } from "zod";
import { createUserSchema, ROLES, type CreateUserInput } from "@/lib/people/admin-schemas";
import { ApiError, apiFetch } from "@/lib/client/api";
import { formatInstant } from "@/lib/text/format";
import type { AdminUserView } from "@/lib/api/schemas";
import { DEFAULT_DESK } from "@/lib/desk/desks";
import { toast } from "../toaster";
import { DeskSelect, type DeskOption } from "./desks-admin";
import { applyServerError, buttonClass, CellError, dangerButtonClass, Field, FormError, inputClass, quietButtonClass, SavedStatus, useSaveFocus } from "./form-bits";
import { LoadMore, usePagedList, USERS_KEY } from "./paged-list";

/** One page of `GET /api/admin/users` (by name): the users and the cursor of the next page (null on the last). */
export type UsersPage = { users: AdminUserView[]; nextCursor: string | null };

/** Replaces `u` wherever it is in the loaded pages of the users list. */
function replaceUser(data: InfiniteData<UsersPage, string | null> | undefined, u: AdminUserView) {
  if (!data) return data;
  return { ...data, pages: data.pages.map((p) => ({ ...p, users: p.users.map((x) => (x.id === u.id ? u : x)) })) };
}

/** The people of the desk: list (a page at a time, "Load more" for the next), create, disable/enable. */
export function UsersAdmin({ initialPage, viewerId, desks }: { initialPage: UsersPage; viewerId: string; desks: DeskOption[] }) {
  const list = usePagedList(USERS_KEY, "/api/admin/users", initialPage);
  const { data, error, hasNextPage } = list;
  const users = (data?.pages ?? []).flatMap((p) => p.users);
  return (
    <div className="mt-6 grid grid-cols-[minmax(0,1fr)] gap-6 lg:grid-cols-[minmax(0,1fr)_22rem]">
      <section aria-labelledby="users-h" className="rounded-lg border border-slate-200 bg-white">
        <h2 id="users-h" className="border-b border-slate-200 px-4 py-3 font-semibold">
          Users <span className="text-sm font-normal text-slate-600">({users.length}{hasNextPage ? "+" : ""})</span>
        </h2>
        {error && <FormError message={error instanceof ApiError ? error.message : "The list could not be refreshed."} />}
        <div className="relative max-w-full overflow-x-auto" data-scrolls-inside><table className="w-full text-sm">
          <thead className="bg-slate-50 text-left text-slate-600">
            <tr>
              <th scope="col" className="px-3 py-2 font-medium">
                Person
              </th>
              <th scope="col" className="px-3 py-2 font-medium">
                Role
              </th>
              <th scope="col" className="px-3 py-2 font-medium">
                Desk
              </th>
              <th scope="col" className="px-3 py-2 font-medium">
                Grants
              </th>
              <th scope="col" className="px-3 py-2 font-medium">
                Status
              </th>
              <th scope="col" className="px-3 py-2 font-medium">
                <span className="sr-only">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {users.map((u) => (
              <UserRow key={u.id} user={u} isSelf={u.id === viewerId} />
            ))}
          </tbody>
        </table></div>
        <LoadMore list={list} className="flex justify-center border-t border-slate-100 px-4 py-3" />
      </section>
      <CreateUserForm desks={desks} />
    </div>
  );
}

function UserRow({ user, isSelf }: { user: AdminUserView; isSelf: boolean }) {
  const qc = useQueryClient();
  const [confirming, setConfirming] = useState(false);
  const [err, setErr] = useState<string | null>(null);
  const done = useSaveFocus(`user-${user.id}-access`);
  const toggle = useMutation({
    mutationFn: (disabled: boolean) => apiFetch<{ user: AdminUserView }>(`/api/admin/users/${user.id}`, { method: "PATCH", body: { disabled } }),
    onSuccess: ({ user: u }) => {
      setErr(null);
      setConfirming(false);
      qc.setQueryData<InfiniteData<UsersPage, string | null>>(USERS_KEY, (all) => replaceUser(all, u));
      toast(u.disabled ? `${u.name} is disabled and signed out.` : `${u.name} can sign in again.`);
      done.saved(u.disabled ? "Disabled and signed out." : "Can sign in again.");
    },
    onError: (e) => (setErr(e instanceof ApiError ? e.message : "Something went wrong; nothing was changed."), done.refused()),
  });
  return (
    <tr className="border-t border-slate-100 align-top">
      <td className="px-3 py-2">
        <Link href={`/admin/users/${user.id}`} className="font-medium text-blue-700 underline-offset-2 hover:underline">
          {user.name}
        </Link>
        {isSelf && <span className="ml-1 text-xs text-slate-500">(you)</span>}
        <div className="text-xs break-all text-slate-600">{user.email}</div>
      </td>
      <td className="px-3 py-2">{user.role}</td>
      <td className="px-3 py-2">{user.desk}</td>
      <td className="whitespace-nowrap px-3 py-2 tabular-nums">
        <Link href={`/admin/users/${user.id}`} className="text-blue-700 underline-offset-2 hover:underline" aria-label={`Grants of ${user.name}: ${user.grantCount} tools`}>
          {user.grantCount} {user.grantCount === 1 ? "tool" : "tools"}
        </Link>
      </td>
      <td className="px-3 py-2">
        {user.disabled ? (
          <span className="rounded bg-red-100 px-1.5 py-0.5 text-xs text-red-800">disabled</span>
        ) : (
          <span className="rounded bg-emerald-100 px-1.5 py-0.5 text-xs text-emerald-900">active</span>
        )}
        <div className="mt-0.5 text-xs text-slate-500">
          {user.activeSessions} {user.activeSessions === 1 ? "session" : "sessions"} · since {formatInstant(user.createdAt).split(",")[0]}
        </div>
      </td>
      <td className="px-3 py-2 text-right">
        {user.disabled ? (
          <button type="button" className={quietButtonClass} disabled={toggle.isPending} onClick={() => toggle.mutate(false)} aria-label={`Enable ${user.name}`}>
            Enable
          </button>
        ) : confirming ? (
          <div role="group" aria-label={`Confirm disabling ${user.name}`} className="flex flex-col items-end gap-1">
            <span className="text-xs text-slate-700">Signs {user.name} out at once.</span>
            <div className="flex gap-1">
              <button type="button" className={dangerButtonClass} disabled={toggle.isPending} onClick={() => toggle.mutate(true)}>
                Confirm disable
              </button>
              <button type="button" className={quietButtonClass} onClick={() => setConfirming(false)}>
                Cancel
              </button>
            </div>
          </div>
        ) : (
          <button type="button" className={quietButtonClass} onClick={() => setConfirming(true)} aria-label={`Disable ${user.name}`}>
            Disable
          </button>
        )}
        <CellError id={done.errorId} message={err} />
        <SavedStatus id={done.statusId} message={done.message} />
      </td>
    </tr>
  );
}

const CREATE_FIELDS = ["email", "name", "role", "password", "desk"] as const;

function CreateUserForm({ desks }: { desks: DeskOption[] }) {
  const qc = useQueryClient();
  const [formError, setFormError] = useState<string | null>(null);
  const done = useSaveFocus("create-user");
  const form = useForm<z.input<typeof createUserSchema>, unknown, CreateUserInput>({
    resolver: zodResolver(createUserSchema),
    defaultValues: { email: "", name: "", role: "operator", password: "", desk: desks[0]?.id ?? DEFAULT_DESK },
  });
  const {
    register,
    handleSubmit,
    formState: { errors },
  } = form;
  const create = useMutation({
    mutationFn: (v: CreateUserInput) => apiFetch<{ user: AdminUserView }>("/api/admin/users", { method: "POST", body: v }),
    onSuccess: ({ user }) => {
      setFormError(null);
      void qc.invalidateQueries({ queryKey: USERS_KEY });
      form.reset();
      toast(`Created ${user.email} (${user.role}, desk ${user.desk}). Set their grants next.`);
      done.saved(`Created ${user.email}.`);
    },
    onError: (e) => (setFormError(applyServerError(e, form.setError, CREATE_FIELDS)), done.refused()),
  });
  const err = (k: (typeof CREATE_FIELDS)[number]) => errors[k]?.message;
  const described = (k: (typeof CREATE_FIELDS)[number]) => (errors[k] ? `new-${k}-error` : undefined);
  return (
    <section aria-labelledby="create-user-h" className="h-fit rounded-lg border border-slate-200 bg-white p-4">
      <h2 id="create-user-h" className="font-semibold">
        Create a user
      </h2>
      <p className="mt-1 text-xs text-slate-600">They sign in with this email and initial password. New users have no grants.</p>
      <form noValidate onSubmit={handleSubmit((v) => create.mutate(v))} className="mt-3 space-y-3">
        <FormError id={done.errorId} message={formError} />
        <Field id="new-email" label="Email" error={err("email")}>
          <input id="new-email" type="email" autoComplete="off" {...register("email")} aria-invalid={!!errors.email} aria-describedby={described("email")} className={inputClass} />
        </Field>
        <Field id="new-name" label="Name" error={err("name")}>
          <input id="new-name" autoComplete="off" {...register("name")} aria-invalid={!!errors.name} aria-describedby={described("name")} className={inputClass} />
        </Field>
        <Field id="new-role" label="Role" error={err("role")}>
          <select id="new-role" {...register("role")} aria-invalid={!!errors.role} aria-describedby={described("role")} className={inputClass}>
            {ROLES.map((r) => (
              <option key={r} value={r}>
                {r}
              </option>
            ))}
          </select>
        </Field>
        <Field id="new-desk" label="Desk" error={err("desk")} help="Operators see and reach only this desk's runs and records.">
          <DeskSelect id="new-desk" desks={desks} register={register("desk")} invalid={!!errors.desk} />
        </Field>
        <Field id="new-password" label="Initial password" error={err("password")} help="At least 10 characters. Share it with the person over a separate channel.">
          <input
            id="new-password"
            type="password"
            autoComplete="new-password"
            {...register("password")}
            aria-invalid={!!errors.password}
            aria-describedby={described("password")}
            className={inputClass}
          />
        </Field>
        <button type="submit" disabled={create.isPending} className={buttonClass}>
          {create.isPending ? "Creating…" : "Create user"}
        </button>
        <SavedStatus id={done.statusId} message={done.message} />
      </form>
    </section>
  );
}
