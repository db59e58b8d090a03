import { differenceInMinutes } from "date-fns";
import type { AccountSnapshot, RecordSync } from "../desk/snapshot";
import { formatMinutes } from "../text/format";
import { recordKey } from "./record-key";
import { findDeclared, isBuiltinKind } from "../desk/lookup";

/**
 * How old Plandesk's local copy of a record is, and the freshness bound a gate-policy rule sets on
 * the records a step targets (`maxRecordAgeMinutes`, lib/gate-policy/rules.ts). A record's age is
 * the time since it was last synced (`sync.syncedAt`, when Plandesk applied the source's change),
 * not since the source changed it (`sync.sourceUpdatedAt`: a record nobody touched for a month is
 * current if it was synced a minute ago). Under a bound, a record never synced (`syncedAt` null)
 * counts as stale: nothing says the copy is current. Pure; times UTC.
 */

/** The kinds of record the records door syncs (a ticket is Plandesk's own, never synced). */
export const SYNCED_KINDS = ["invoice", "shipment", "account"] as const;
/** One of `SYNCED_KINDS`. */
export type SyncedKind = (typeof SYNCED_KINDS)[number];

/** A target record synced longer ago than the bound allows (or never): what `stale_account_data` reports. */
export interface StaleRecord {
  /** Record key, e.g. "invoice:in_74119" (lib/records/record-key.ts). */
  record: string;
  /** A synced built-in kind, or a kind the desk declared (its records come through the door too). */
  kind: SyncedKind | (string & {});
  id: string;
  /** When Plandesk last applied the source's change (ISO UTC); null: never synced. */
  syncedAt: string | null;
  /** Whole minutes since `syncedAt` at the decision; null: never synced. */
  ageMinutes: number | null;
  /** The governing rule's bound in minutes. */
  maxRecordAgeMinutes: number;
}

/** The sync of record `kind`/`id` in `desk`, or undefined when the record is absent or was built without one (hand-built snapshots). */
export function syncOfRecord(desk: AccountSnapshot, kind: SyncedKind, id: string): RecordSync | undefined {
  const own = (m: object) => Object.prototype.hasOwnProperty.call(m, id);
  if (kind === "invoice") return own(desk.invoices) ? desk.invoices[id].sync : undefined;
  if (kind === "shipment") return own(desk.shipments) ? desk.shipments[id].sync : undefined;
  return own(desk.accounts) ? desk.accounts[id].sync : undefined;
}

/**
 * The first of `targets` (in the order given) whose local copy in `desk` is older than
 * `maxRecordAgeMinutes` at `now` — synced more than that many minutes ago, or never synced — or
 * null when all are fresh enough, the bound is null, or a target is not in `desk` (a target of a
 * declared kind is read from `desk.declared`; a record that
 * does not resolve is the validator's `not found`, not a freshness question). Exactly the bound is
 * still fresh.
 */
export function staleTarget(targets: readonly { kind: string; id: string }[], desk: AccountSnapshot, maxRecordAgeMinutes: number | null, now: Date): StaleRecord | null {
  if (maxRecordAgeMinutes == null) return null;
  for (const t of targets) {
    const builtIn = (SYNCED_KINDS as readonly string[]).includes(t.kind);
    if (!builtIn && isBuiltinKind(t.kind)) continue; // a ticket is Plandesk's own
    const kind = t.kind;
    const sync = builtIn ? syncOfRecord(desk, kind as SyncedKind, t.id) : findDeclared(desk, kind, t.id)?.sync;
    if (!sync) continue;
    const base = { record: recordKey(kind, t.id), kind, id: t.id, maxRecordAgeMinutes };
    if (!sync.syncedAt) return { ...base, syncedAt: null, ageMinutes: null };
    const at = new Date(sync.syncedAt);
    if (now.getTime() - at.getTime() > maxRecordAgeMinutes * 60_000) return { ...base, syncedAt: sync.syncedAt, ageMinutes: differenceInMinutes(now, at) };
  }
  return null;
}

const KIND_OF_FIELD: Record<string, SyncedKind> = { invoice_id: "invoice", shipment_id: "shipment", account_id: "account" };

/**
 * The synced records a step's arguments name, from its tool's fields (`{name, kind}`; an id field
 * of kind invoice_id, shipment_id or account_id holding a non-empty string), in field order — the
 * client's reading of the server's `referencedIds(…, {argumentsOnly: true})` for built-in tools.
 */
export function argumentTargets(fields: readonly { name: string; kind: string }[], args: Record<string, unknown>): { kind: SyncedKind; id: string }[] {
  return fields.flatMap((f) => {
    const kind = KIND_OF_FIELD[f.kind];
    const v = Object.prototype.hasOwnProperty.call(args, f.name) ? args[f.name] : undefined;
    return kind && typeof v === "string" && v.length > 0 ? [{ kind, id: v }] : [];
  });
}

/**
 * The refusal's message for people: "invoice in_74119 was last synced 3 h 12 min ago; this desk's
 * policy allows 60 min for issue_refund: sync it, then approve" (`then` is "approve" at approval,
 * "claim it again" at claim); a record never synced "was never synced".
 */
export function staleRecordMessage(stale: StaleRecord, tool: string, then: string): string {
  const age = stale.ageMinutes === null ? "was never synced" : `was last synced ${formatMinutes(stale.ageMinutes)} ago`;
  return `${stale.kind} ${stale.id} ${age}; this desk's policy allows ${stale.maxRecordAgeMinutes} min for ${tool}: sync it, then ${then}.`;
}

/** The details of `stale_account_data`: `{record, syncedAt, ageMinutes, maxRecordAgeMinutes}` plus the step. */
export function staleRecordDetails(stale: StaleRecord, stepId: string): Record<string, unknown> {
  return { stepId, record: stale.record, syncedAt: stale.syncedAt, ageMinutes: stale.ageMinutes, maxRecordAgeMinutes: stale.maxRecordAgeMinutes };
}

/**
 * How old a record's local copy is, for people, or null when it was never synced (nothing new to
 * say): "as of 14:02 UTC, synced 2 min ago" — the time the source last changed it (its UTC
 * time of day; with the date, "3 Dec 14:02 UTC", when that is not `now`'s UTC day) and the age of
 * the copy. `what` names the fact, e.g. "balance" → "balance as of 14:02 UTC, synced 2 min ago".
 * A copy synced under a minute ago reads "synced just now".
 */
export function describeSync(sync: RecordSync | undefined, now: Date, what?: string): string | null {
  if (!sync?.syncedAt) return null;
  const synced = new Date(sync.syncedAt);
  if (Number.isNaN(synced.getTime())) return null;
  const mins = differenceInMinutes(now, synced);
  const ago = mins < 1 ? "synced just now" : `synced ${formatMinutes(mins)} ago`;
  const source = sync.sourceUpdatedAt ? new Date(sync.sourceUpdatedAt) : null;
  if (!source || Number.isNaN(source.getTime())) return what ? `${what} ${ago}` : ago;
  const iso = source.toISOString();
  const time = iso.slice(11, 16);
  const sameDay = iso.slice(0, 10) === now.toISOString().slice(0, 10);
  const when = sameDay ? `${time} UTC` : `${source.getUTCDate()} ${MONTHS[source.getUTCMonth()]} ${time} UTC`;
  return `${what ? `${what} ` : ""}as of ${when}, ${ago}`;
}

const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];
