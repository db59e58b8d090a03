"use client";

import { useQuery } from "@tanstack/react-query";
import { useEffect, useId, useState } from "react";
import { useFormContext, useWatch } from "react-hook-form";
import type { AccountSnapshot } from "@/lib/desk/snapshot";
import { apiFetch } from "@/lib/client/api";
import { formatMoney } from "@/lib/money/format-money";
import type { PlanFormValues } from "@/lib/plan/form-schema";
import { syncOfRecord } from "@/lib/records/record-age";
import { SyncAge } from "./sync-age";

/** A record an id field can offer (the shape of `GET /api/account-data/{kind}`). */
export interface RecordOption {
  id: string;
  label: string;
  accountId: string;
  /** The owning account's name (the search endpoint answers it; the page's own records look it up). */
  accountName?: string;
  fees?: { code: string; amount: { minor: number; currency: string } }[];
}

/** A built-in kind, or (any other name) a kind the desk declared: an imported tool's `x-plandesk-record` argument. */
type Kind = "invoice" | "shipment" | "ticket" | "account" | (string & {});

/**
 * The records the run page already has (the plan's and the ticket account's own), the ticket's
 * account first. A declared kind's come from the snapshot's `declared` records, labelled from their
 * roles ("o_118 · Brightside Home Goods · O-118 · open · $40.00 available").
 */
export function snapshotOptions(desk: AccountSnapshot, kind: Kind, ticketAccountId: string): RecordOption[] {
  const name = (a: string) => desk.accounts[a]?.name ?? a;
  const opts: RecordOption[] = !["invoice", "shipment", "ticket", "account"].includes(kind)
    ? Object.values(desk.declared?.[kind] ?? {}).map((r) => ({
        id: r.id,
        accountId: r.accountId ?? "",
        label: [r.id, r.accountId ? name(r.accountId) : null, r.title, r.status, r.available ? `${formatMoney(r.available)} available` : null].filter((p) => p).join(" · "),
      }))
    : kind === "invoice"
      ? Object.values(desk.invoices).map((i) => ({ id: i.id, accountId: i.accountId, fees: i.fees, label: `${i.id} · ${name(i.accountId)} · ${i.status} · ${formatMoney(i.openBalance)} open` }))
      : kind === "shipment"
        ? Object.values(desk.shipments).map((s) => ({ id: s.id, accountId: s.accountId, label: `${s.id} · ${name(s.accountId)} · ${s.destination} · ${s.window.from}${s.window.to !== s.window.from ? ` → ${s.window.to}` : ""}` }))
        : kind === "ticket"
          ? Object.values(desk.tickets).map((t) => ({ id: t.id, accountId: t.accountId, label: `#${t.id} · ${name(t.accountId)} · ${t.subject}` }))
          : Object.values(desk.accounts).map((a) => ({ id: a.id, accountId: a.id, label: `${a.id} · ${a.name}` }));
  return opts.sort((a, b) => Number(b.accountId === ticketAccountId) - Number(a.accountId === ticketAccountId) || a.id.localeCompare(b.id));
}

/** Waits `ms` after the last change of `value` (for search-as-you-type). */
function useDebounced<T>(value: T, ms: number): T {
  const [v, setV] = useState(value);
  useEffect(() => {
    const t = setTimeout(() => setV(value), ms);
    return () => clearTimeout(t);
  }, [value, ms]);
  return v;
}

/**
 * Searches `GET /api/account-data/{kind}?q=` for ids starting with what was typed (at most 20,
 * debounced), so any record of the run's desk — also one of another account — can be named
 * without loading a table into the page. `desk` (the run's tenant desk) keeps the suggestions to
 * records the step may target. Returns the matches (empty until something is typed).
 */
export function useRecordSearch(kind: Kind, typed: string, desk?: string): RecordOption[] {
  const q = useDebounced(typed.trim(), 200);
  const res = useQuery({
    queryKey: ["account-data", kind, q, desk ?? ""],
    queryFn: () => apiFetch<{ records: RecordOption[] }>(`/api/account-data/${kind}?q=${encodeURIComponent(q)}${desk ? `&desk=${encodeURIComponent(desk)}` : ""}`),
    enabled: q.length > 0,
    staleTime: 30_000,
  });
  return res.data?.records ?? [];
}

/**
 * An id argument as a text input with suggestions: the records the page knows (the ticket
 * account's first) and, as the operator types, records found by id prefix. What is typed is what
 * is submitted; the server validates it (an id that does not exist is refused with a "did you
 * mean", one of another account is a warning to acknowledge).
 */
export function RecordIdField(props: {
  name: string;
  kind: Kind;
  desk: AccountSnapshot;
  ticketAccountId: string;
  describedBy?: string;
  invalid: boolean;
  className: string;
}) {
  const { register, control } = useFormContext<PlanFormValues>();
  const value = (useWatch({ control, name: props.name as `steps.${number}.args.${string}` }) as string | undefined) ?? "";
  const found = useRecordSearch(props.kind, value, props.desk.desk);
  const known = snapshotOptions(props.desk, props.kind, props.ticketAccountId);
  const options = [...known, ...found.filter((f) => !known.some((k) => k.id === f.id))].slice(0, 60);
  const listId = `${useId()}-records`;
  return (
    <>
      <input
        id={props.name}
        type="text"
        autoComplete="off"
        spellCheck={false}
        list={listId}
        placeholder={`Type a ${props.kind} id…`}
        {...register(props.name as `steps.${number}.args.${string}`)}
        aria-invalid={props.invalid}
        aria-describedby={props.describedBy}
        className={props.className}
      />
      <datalist id={listId}>
        {options.map((o) => (
          <option key={o.id} value={o.id} label={o.label} />
        ))}
      </datalist>
      <KnownRecordAge desk={props.desk} kind={props.kind} id={value.trim()} />
      <OtherAccountHint desk={props.desk} option={options.find((o) => o.id === value.trim())} ticketAccountId={props.ticketAccountId} />
    </>
  );
}

/**
 * Below an id field: the typed record belongs to another customer than the ticket's ("in_74119 is
 * Halvorsen Freight's, not this ticket's customer"), said while typing — the server's validator
 * makes it a warning the approver must acknowledge (an agent's step is refused).
 */
function OtherAccountHint({ desk, option, ticketAccountId }: { desk: AccountSnapshot; option: RecordOption | undefined; ticketAccountId: string }) {
  if (!option || !ticketAccountId || option.accountId === ticketAccountId) return null;
  const owner = option.accountName ?? desk.accounts[option.accountId]?.name ?? option.accountId;
  return (
    <span className="mt-1 block text-xs font-medium text-amber-800" data-testid="record-other-account">
      {option.id} is {owner}&rsquo;s, not this ticket&rsquo;s customer: whoever approves the step must acknowledge it.
    </span>
  );
}

/** What a record's age speaks of in the form's hint: "in_74119: balance as of 14:02 UTC, synced 2 min ago". */
const AGE_WORD: Partial<Record<string, string>> = { invoice: "balance", shipment: "window", account: "account" };

/** Below an id field: how old the page's copy of the typed record is (nothing for a record the page does not have, or one never synced). */
function KnownRecordAge({ desk, kind, id }: { desk: AccountSnapshot; kind: Kind; id: string }) {
  const declared = id && desk.declared?.[kind] && Object.prototype.hasOwnProperty.call(desk.declared[kind], id) ? desk.declared[kind][id] : undefined;
  const what = declared ? (declared.available ? "balance" : "record") : AGE_WORD[kind];
  const sync = declared ? declared.sync : what && id ? syncOfRecord(desk, kind as "invoice" | "shipment" | "account", id) : undefined;
  if (!what || !sync?.syncedAt) return null;
  return <SyncAge sync={sync} what={what} prefix={`${id}: `} className="mt-1 block text-xs text-slate-600" />;
}

/** The fees of invoice `invoiceId`: from the page's records, else from the search endpoint (exact id). */
export function useInvoiceFees(desk: AccountSnapshot, invoiceId: string | undefined): RecordOption["fees"] {
  const known = invoiceId && Object.prototype.hasOwnProperty.call(desk.invoices, invoiceId) ? desk.invoices[invoiceId] : undefined;
  const found = useRecordSearch("invoice", known ? "" : (invoiceId ?? ""), desk.desk);
  return known?.fees ?? found.find((r) => r.id === invoiceId)?.fees ?? [];
}
