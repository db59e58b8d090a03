"use client";

import { zodResolver } from "@hookform/resolvers/zod";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useRouter } from "next/navigation";
import { useState } from "react";
import { useForm, type UseFormRegisterReturn } from "react-hook-form";
import type { z } from "zod";
import { createDeskSchema, updateAgentSchema, type CreateDeskInput, type DeskView, type UpdateAgentInput } from "@/lib/desk/desks";
import { updateUserSchema, type UpdateUserInput } from "@/lib/people/admin-schemas";
import { ApiError, apiFetch } from "@/lib/client/api";
import { formatInstant } from "@/lib/text/format";
import type { AdminUserView, AgentView } from "@/lib/api/schemas";
import { toast } from "../toaster";
import { applyServerError, buttonClass, Field, FormError, inputClass, quietButtonClass, SavedStatus, useSaveFocus } from "./form-bits";
import { USERS_KEY } from "./paged-list";

/** A desk as a select offers it: its id and name. */
export type DeskOption = Pick<DeskView, "id" | "name">;

/** The tenant desks (id, name, people, agents, accounts) and the form that creates one. */
export function DesksAdmin({ desks }: { desks: DeskView[] }) {
  return (
    <div className="mt-6 grid grid-cols-[minmax(0,1fr)] gap-6 lg:grid-cols-[minmax(0,1fr)_22rem]">
      <section aria-labelledby="desks-h" className="rounded-lg border border-slate-200 bg-white">
        <h2 id="desks-h" className="border-b border-slate-200 px-4 py-3 font-semibold">
          Desks <span className="text-sm font-normal text-slate-600">({desks.length})</span>
        </h2>
        <div className="relative max-w-full overflow-x-auto" data-scrolls-inside>
          <table className="w-full text-sm">
            <thead className="bg-slate-50 text-left text-slate-600">
              <tr>
                <th scope="col" className="px-4 py-2 font-medium">Desk</th>
                <th scope="col" className="px-4 py-2 text-right font-medium">People</th>
                <th scope="col" className="px-4 py-2 text-right font-medium">Agents</th>
                <th scope="col" className="px-4 py-2 text-right font-medium">Accounts</th>
                <th scope="col" className="px-4 py-2 font-medium">Created</th>
                <th scope="col" className="px-4 py-2 font-medium">Intents and record kinds</th>
              </tr>
            </thead>
            <tbody>
              {desks.map((d) => (
                <tr key={d.id} className="border-t border-slate-100">
                  <td className="px-4 py-2">
                    <span className="font-medium">{d.name}</span> <code className="text-xs text-slate-500">{d.id}</code>
                  </td>
                  <td className="px-4 py-2 text-right tabular-nums">{d.users}</td>
                  <td className="px-4 py-2 text-right tabular-nums">{d.agents}</td>
                  <td className="px-4 py-2 text-right tabular-nums">{d.accounts}</td>
                  <td className="whitespace-nowrap px-4 py-2 text-slate-600">{formatInstant(d.createdAt).split(",")[0]}</td>
                  <td className="whitespace-nowrap px-4 py-2">
                    <Link href={`/admin/desks/${d.id}/intents`} className="text-blue-700 underline" aria-label={`Edit the intent catalog of ${d.name}`}>
                      Edit intents
                    </Link>
                    {" · "}
                    <Link href={`/admin/desks/${d.id}/record-kinds`} className="text-blue-700 underline" aria-label={`Edit the record kinds of ${d.name}`}>
                      Record kinds
                    </Link>
                    {" · "}
                    <Link href={`/admin/desks/${d.id}/sign-in`} className="text-blue-700 underline" aria-label={`Sign-in and identity providers of ${d.name}`}>
                      Sign-in
                    </Link>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </section>
      <CreateDeskForm />
    </div>
  );
}

const DESK_FIELDS = ["id", "name"] as const;

function CreateDeskForm() {
  const router = useRouter();
  const [formError, setFormError] = useState<string | null>(null);
  const createDone = useSaveFocus("create-desk");
  const form = useForm<z.input<typeof createDeskSchema>, unknown, CreateDeskInput>({ resolver: zodResolver(createDeskSchema), defaultValues: { id: "", name: "" } });
  const {
    register,
    handleSubmit,
    formState: { errors },
  } = form;
  const create = useMutation({
    mutationFn: (v: CreateDeskInput) => apiFetch<{ desk: DeskView }>("/api/admin/desks", { method: "POST", body: v }),
    onSuccess: ({ desk }) => {
      setFormError(null);
      form.reset();
      toast(`Created the ${desk.name} desk. Assign people and agents to it next.`);
      createDone.saved(`Created the ${desk.name} desk.`);
      router.refresh();
    },
    onError: (e) => {
      if (e instanceof ApiError && e.code === "desk_taken") {
        form.setError("id", { type: "server", message: e.message });
        return;
      }
      setFormError(applyServerError(e, form.setError, DESK_FIELDS));
      createDone.refused();
    },
  });
  const described = (k: (typeof DESK_FIELDS)[number]) => (errors[k] ? `new-desk-${k}-error` : undefined);
  return (
    <section aria-labelledby="create-desk-h" className="h-fit rounded-lg border border-slate-200 bg-white p-4">
      <h2 id="create-desk-h" className="font-semibold">
        Create a desk
      </h2>
      <p className="mt-1 text-xs text-slate-600">A desk is a boundary: its people and agents see and reach only its own accounts, tickets and runs.</p>
      <form noValidate onSubmit={handleSubmit((v) => create.mutate(v))} className="mt-3 space-y-3">
        <FormError id={createDone.errorId} message={formError} />
        <Field id="new-desk-id" label="Desk id" error={errors.id?.message} help="Lower-case letters, digits or hyphens, e.g. retail.">
          <input id="new-desk-id" autoComplete="off" {...register("id")} aria-invalid={!!errors.id} aria-describedby={described("id")} className={inputClass} />
        </Field>
        <Field id="new-desk-name" label="Name" error={errors.name?.message}>
          <input id="new-desk-name" autoComplete="off" {...register("name")} aria-invalid={!!errors.name} aria-describedby={described("name")} className={inputClass} />
        </Field>
        <button type="submit" disabled={create.isPending} className={buttonClass}>
          {create.isPending ? "Creating…" : "Create desk"}
        </button>
        <SavedStatus id={createDone.statusId} message={createDone.message} />
      </form>
    </section>
  );
}

/** Assigns a person to a desk (`PATCH /api/admin/users/{id}` {desk}); operators then work that desk only. */
export function UserDeskControl({ user, desks }: { user: AdminUserView; desks: DeskOption[] }) {
  const router = useRouter();
  const qc = useQueryClient();
  const [formError, setFormError] = useState<string | null>(null);
  const userDone = useSaveFocus("user-desk");
  const form = useForm<z.input<typeof updateUserSchema>, unknown, UpdateUserInput>({ resolver: zodResolver(updateUserSchema), defaultValues: { desk: user.desk } });
  const save = useMutation({
    mutationFn: (v: UpdateUserInput) => apiFetch<{ user: AdminUserView }>(`/api/admin/users/${user.id}`, { method: "PATCH", body: { desk: v.desk } }),
    onSuccess: ({ user: u }) => {
      setFormError(null);
      form.reset({ desk: u.desk });
      void qc.invalidateQueries({ queryKey: USERS_KEY });
      toast(`${u.name} now works the ${desks.find((d) => d.id === u.desk)?.name ?? u.desk} desk.`);
      userDone.saved(`Saved: desk ${desks.find((d) => d.id === u.desk)?.name ?? u.desk}.`);
      router.refresh();
    },
    onError: (e) => (setFormError(applyServerError(e, form.setError, ["desk"])), userDone.refused()),
  });
  const deskError = form.formState.errors.desk?.message;
  return (
    <form noValidate className="flex flex-wrap items-end gap-2" onSubmit={form.handleSubmit((v) => save.mutate(v))}>
      <div>
        <label htmlFor="user-desk" className="block text-sm font-medium">
          Desk
        </label>
        <DeskSelect id="user-desk" desks={desks} register={form.register("desk")} invalid={!!deskError} />
      </div>
      <button type="submit" className={quietButtonClass} disabled={save.isPending || !form.formState.isDirty}>
        Save desk
      </button>
      {deskError && <p className="w-full text-sm text-red-700">{deskError}</p>}
      <div className="w-full">
        <FormError id={userDone.errorId} message={formError} />
        <SavedStatus id={userDone.statusId} message={userDone.message} />
      </div>
    </form>
  );
}

/** Assigns an agent to a desk (`PATCH /api/admin/agents/{id}` {desk}); it then reads, plans and claims for that desk only. */
export function AgentDeskControl({ agent, desks, onSaved }: { agent: AgentView; desks: DeskOption[]; onSaved: () => void }) {
  const [formError, setFormError] = useState<string | null>(null);
  const agentDone = useSaveFocus(`agent-desk-${agent.id}`);
  const form = useForm<z.input<typeof updateAgentSchema>, unknown, UpdateAgentInput>({ resolver: zodResolver(updateAgentSchema), defaultValues: { desk: agent.desk } });
  const save = useMutation({
    mutationFn: (v: UpdateAgentInput) => apiFetch<{ agent: AgentView }>(`/api/admin/agents/${agent.id}`, { method: "PATCH", body: v }),
    onSuccess: ({ agent: a }) => {
      setFormError(null);
      form.reset({ desk: a.desk });
      toast(`${a.name} now works the ${desks.find((d) => d.id === a.desk)?.name ?? a.desk} desk.`);
      agentDone.saved(`Saved: desk ${desks.find((d) => d.id === a.desk)?.name ?? a.desk}.`);
      onSaved();
    },
    onError: (e) => (setFormError(applyServerError(e, form.setError, ["desk"])), agentDone.refused()),
  });
  const id = `agent-desk-${agent.id}`;
  return (
    <form noValidate className="mt-3 flex flex-wrap items-end gap-2" onSubmit={form.handleSubmit((v) => save.mutate(v))}>
      <div>
        <label htmlFor={id} className="block text-sm font-medium">
          Desk
        </label>
        <DeskSelect id={id} desks={desks} register={form.register("desk")} invalid={!!form.formState.errors.desk} label={`Desk of ${agent.name}`} />
      </div>
      <button type="submit" className={quietButtonClass} disabled={save.isPending || !form.formState.isDirty} aria-label={`Save desk of ${agent.name}`}>
        Save desk
      </button>
      <div className="w-full">
        <FormError id={agentDone.errorId} message={formError ?? form.formState.errors.desk?.message ?? null} />
        <SavedStatus id={agentDone.statusId} message={agentDone.message} />
      </div>
    </form>
  );
}

/** A select of the desks for a react-hook-form field. */
export function DeskSelect({ id, desks, register, invalid, label }: { id: string; desks: DeskOption[]; register: UseFormRegisterReturn; invalid: boolean; label?: string }) {
  return (
    <select id={id} {...register} aria-label={label} aria-invalid={invalid} className="mt-1 rounded-md border border-slate-300 px-2 py-1.5 text-sm">
      {desks.map((d) => (
        <option key={d.id} value={d.id}>
          {d.name} ({d.id})
        </option>
      ))}
    </select>
  );
}
