import type { AccountSnapshot } from "@/lib/desk/snapshot";
import { formatIsoDate } from "@/lib/text/format";
import { formatMoney, type Money } from "@/lib/money/format-money";
import { getToolMeta } from "@/lib/tools/builtin-meta";
import type { ToolMetaCatalog } from "@/lib/tools/meta-catalog";
import type { FieldSpec } from "@/lib/tools/types";
import { VisibleText } from "./visible-text";
import { SyncAge } from "./sync-age";
import { syncOfRecord } from "@/lib/records/record-age";
import type { CopiedSpan } from "@/lib/queue/risk";
import { TEXT_SOURCE_LABELS, type TextSource } from "@/lib/task-contract/text-sources";

/** Names an account-data id for people, e.g. "in_74119 · Halvorsen Freight". */
function idWithOwner(desk: AccountSnapshot, kind: FieldSpec["kind"], id: string): { id: string; owner?: string; missing?: boolean } {
  const accountName = (accId?: string) => (accId ? desk.accounts[accId]?.name : undefined);
  const own = <T,>(map: Record<string, T>) => (Object.prototype.hasOwnProperty.call(map, id) ? map[id] : undefined);
  switch (kind) {
    case "invoice_id": {
      const r = own(desk.invoices);
      return r ? { id, owner: accountName(r.accountId) } : { id, missing: true };
    }
    case "shipment_id": {
      const r = own(desk.shipments);
      return r ? { id, owner: accountName(r.accountId) } : { id, missing: true };
    }
    case "ticket_id": {
      const r = own(desk.tickets);
      return r ? { id: `#${id}`, owner: accountName(r.accountId) } : { id: `#${id}`, missing: true };
    }
    case "account_id": {
      const r = own(desk.accounts);
      return r ? { id, owner: r.name } : { id, missing: true };
    }
    default:
      return { id };
  }
}

/** What a record's age speaks of: an invoice's balance, a shipment's window, an account's data. */
const AGE_OF: Partial<Record<FieldSpec["kind"], { kind: "invoice" | "shipment" | "account"; what: string }>> = {
  invoice_id: { kind: "invoice", what: "balance" },
  shipment_id: { kind: "shipment", what: "window" },
  account_id: { kind: "account", what: "account" },
};

/** " · balance as of 14:02 UTC, synced 2 min ago" after a record id (nothing for a record never synced). */
function RecordAge({ desk, kind, id }: { desk: AccountSnapshot; kind: FieldSpec["kind"]; id: string }) {
  const of = AGE_OF[kind];
  const sync = of && syncOfRecord(desk, of.kind, id);
  if (!of || !sync?.syncedAt) return null;
  return <SyncAge sync={sync} what={of.what} prefix=" · " />;
}

function isMoney(v: unknown): v is Money {
  return typeof v === "object" && v !== null && typeof (v as Money).minor === "number" && typeof (v as Money).currency === "string";
}

/** Where a copied span came from, for its title: "Copied word for word from the customer message (part 2)". */
function copiedFrom(sp: CopiedSpan): string {
  const label = sp.source && sp.source in TEXT_SOURCE_LABELS ? TEXT_SOURCE_LABELS[sp.source as TextSource] : "untrusted task text";
  return `Copied word for word from the ${label}${sp.partIndex !== undefined ? ` (part ${sp.partIndex + 1})` : ""}: a person must approve this step`;
}

/**
 * Free text with the spans copied from untrusted task text marked (`<mark>`, titled with the part
 * they came from); every character shown as `VisibleText` shows it. Spans are sorted and apart.
 */
function MarkedText({ text, copied, className }: { text: string; copied: readonly CopiedSpan[]; className?: string }) {
  const pieces: React.ReactNode[] = [];
  let at = 0;
  for (const sp of copied) {
    if (sp.start < at || sp.end > text.length) continue;
    if (sp.start > at) pieces.push(<VisibleText key={`t${at}`} text={text.slice(at, sp.start)} />);
    pieces.push(
      <mark key={`m${sp.start}`} data-testid="copied-span" title={copiedFrom(sp)} className="rounded bg-red-100 px-0.5 text-red-950 ring-1 ring-red-300">
        <VisibleText text={text.slice(sp.start, sp.end)} />
      </mark>,
    );
    at = sp.end;
  }
  if (at < text.length) pieces.push(<VisibleText key={`t${at}`} text={text.slice(at)} />);
  return <span className={`[overflow-wrap:anywhere] ${className ?? ""}`.trim()}>{pieces}</span>;
}

/**
 * Renders one argument value as a labelled, typed value (money formatted, dates readable). Text
 * with `copied` spans (lib/queue/risk.ts `copiedSpans`: taken word for word from untrusted task
 * text) shows them marked.
 */
export function ArgValue({ field, value, desk, copied = [] }: { field: FieldSpec; value: unknown; desk: AccountSnapshot; copied?: readonly CopiedSpan[] }) {
  if (typeof value === "string" && copied.length > 0 && (field.kind === "textarea" || field.kind === "text" || field.kind === "schema")) {
    return <MarkedText className={field.kind === "textarea" ? "whitespace-pre-wrap" : undefined} text={value} copied={copied} />;
  }
  if (value === undefined || value === null || value === "") return <span className="italic text-slate-500">missing</span>;
  switch (field.kind) {
    case "money":
      return isMoney(value) ? <span className="tabular-nums font-medium">{formatMoney(value)}</span> : <code>{JSON.stringify(value)}</code>;
    case "date_window": {
      const w = value as { from?: string; to?: string };
      if (typeof w?.from !== "string" || typeof w?.to !== "string") return <code>{JSON.stringify(value)}</code>;
      return (
        <span>
          {w.from === w.to ? formatIsoDate(w.from) : `${formatIsoDate(w.from)} – ${formatIsoDate(w.to)}`}{" "}
          <span className="text-xs text-slate-500">({w.from === w.to ? w.from : `${w.from} → ${w.to}`})</span>
        </span>
      );
    }
    case "invoice_id":
    case "shipment_id":
    case "ticket_id":
    case "account_id": {
      if (typeof value !== "string") return <code>{JSON.stringify(value)}</code>;
      const r = idWithOwner(desk, field.kind, value);
      return (
        <span>
          <code className="font-mono">{r.id}</code>
          {r.owner && <span className="text-slate-600"> · {r.owner}</span>}
          {r.missing && <span className="text-red-700"> · not found</span>}
          <RecordAge desk={desk} kind={field.kind} id={value} />
        </span>
      );
    }
    case "team":
      return <span>{field.options?.find((o) => o.value === value)?.label ?? String(value)}</span>;
    case "textarea":
      return <VisibleText className="whitespace-pre-wrap" text={String(value)} />;
    case "schema":
      if (typeof value === "boolean") return <span>{value ? "Yes" : "No"}</span>;
      // an imported tool's money ({minor, currency}, e.g. a bound refund amount) reads as money, as issue_refund's does
      if (isMoney(value)) return <span className="tabular-nums font-medium">{formatMoney(value)}</span>;
      if (typeof value === "string" && field.schema?.format === "date") return <span>{formatIsoDate(value)} <span className="text-xs text-slate-500">({value})</span></span>;
      return typeof value === "object" ? <code className="whitespace-pre-wrap break-all text-xs">{JSON.stringify(value)}</code> : <VisibleText text={String(value)} />;
    default:
      // a value of a tool the page has no fields for (its JSON may be long and unbroken: it wraps on a phone)
      return typeof value === "string" ? <VisibleText text={value} /> : <code className="whitespace-pre-wrap break-all text-xs">{JSON.stringify(value)}</code>;
  }
}

/**
 * A step's arguments as a definition list: each field of its tool (or each raw key, for an
 * unknown tool) labelled, with its typed value.
 */
export function StepArgList({
  tool,
  args,
  desk,
  className = "mt-1 grid grid-cols-[9rem_1fr] gap-y-1",
  valueClassName,
  catalog,
}: {
  /** The run's catalog, for imported tools (default: built-in tools). */
  catalog?: ToolMetaCatalog;
  tool: string;
  args: Record<string, unknown>;
  desk: AccountSnapshot;
  className?: string;
  valueClassName?: string;
}) {
  const fields: readonly FieldSpec[] = (catalog ? catalog.get(tool) : getToolMeta(tool))?.fields ?? Object.keys(args).map((name) => ({ name, label: name, kind: "text" as const }));
  return (
    <dl className={className}>
      {fields.map((f) => (
        <div key={f.name} className="contents">
          <dt className="text-slate-600">{f.label}</dt>
          <dd className={valueClassName}>
            <ArgValue field={f} value={args[f.name]} desk={desk} />
          </dd>
        </div>
      ))}
    </dl>
  );
}
