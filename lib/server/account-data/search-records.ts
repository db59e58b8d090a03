import { formatMoney, type Currency } from "../../money/format-money";
import { prisma } from "../db/db";
import type { Viewer } from "../auth/viewer";

/** The built-in kinds of account record a step argument can name by id. */
export type RecordKindName = "invoice" | "shipment" | "ticket" | "account";

/**
 * One record as the id field of the edit form offers it. Money in minor units; dates ISO. `kind`
 * is a built-in kind or a kind the desk declared (lib/records/record-kind-declaration.ts); a
 * declared record carries its title and available amount (its roles) and, when its owner is not
 * an account itself (an owner chain), an empty `accountId` and `accountName`.
 */
export interface RecordOption {
  kind: string;
  id: string;
  accountId: string;
  accountName: string;
  /** One line for people, e.g. "in_74119 · Halvorsen Freight · open · $2,120.00 open". */
  label: string;
  status?: string;
  openBalance?: { minor: number; currency: string };
  fees?: { code: string; amount: { minor: number; currency: string } }[];
  /** A declared record's title role (e.g. an order's number). */
  title?: string;
  /** A declared record's balance role: the available amount. */
  available?: { minor: number; currency: string };
}

const BUILT_IN_KINDS: ReadonlySet<string> = new Set<RecordKindName>(["invoice", "shipment", "ticket", "account"]);

/** Results per search. */
export const SEARCH_LIMIT = 20;

/**
 * Records of `kind` whose id starts with `q` (an index range scan, at most SEARCH_LIMIT, id
 * order), for the edit form's id fields: an operator may name a record outside the ticket's
 * account (and the validator then warns about it), so the form searches instead of listing a
 * whole table. A desk is a boundary: operators find records of their own desk's accounts only
 * (a `desk` other than theirs finds nothing); supervisors and admins find those of `desk` when
 * given (the edit form passes its run's desk: only those records can be a step's target), else
 * of every desk. A kind the desk declared (`order`) is searched the same way on the one desk in
 * scope — without a desk (a supervisor who names none) nothing, since a declared kind is a desk's.
 * `q` is trimmed; an empty `q` answers nothing. Never throws for any string.
 */
export async function searchRecords(viewer: Pick<Viewer, "role" | "desk">, kind: string, q: string, opts: { desk?: string } = {}): Promise<RecordOption[]> {
  const prefix = q.trim().slice(0, 128);
  if (!prefix) return [];
  if (viewer.role === "operator" && opts.desk !== undefined && opts.desk !== viewer.desk) return [];
  const range = { gte: prefix, lt: `${prefix}\uffff` };
  const scoped = viewer.role === "operator" ? viewer.desk : opts.desk;
  if (!BUILT_IN_KINDS.has(kind)) return scoped === undefined ? [] : searchDeclaredRecords(scoped, kind, range);
  // ids are per desk: the desk is the first column of every kind's primary key (desk, id)
  const desk = scoped !== undefined ? { desk: scoped } : {};
  const base = { orderBy: { id: "asc" as const }, take: SEARCH_LIMIT };
  if (kind === "account") {
    const rows = await prisma.customerAccount.findMany({ ...base, where: { ...desk, id: range }, select: { id: true, name: true } });
    return rows.map((a) => ({ kind, id: a.id, accountId: a.id, accountName: a.name, label: `${a.id} · ${a.name}` }));
  }
  if (kind === "ticket") {
    const rows = await prisma.ticket.findMany({ ...base, where: { ...desk, id: range }, select: { id: true, subject: true, accountId: true, account: { select: { name: true } } } });
    return rows.map((t) => ({ kind, id: t.id, accountId: t.accountId, accountName: t.account.name, label: `#${t.id} · ${t.account.name} · ${t.subject}` }));
  }
  if (kind === "shipment") {
    const rows = await prisma.shipment.findMany({ ...base, where: { ...desk, id: range }, include: { account: { select: { name: true } } } });
    return rows.map((s) => ({
      kind,
      id: s.id,
      accountId: s.accountId,
      accountName: s.account.name,
      status: s.status,
      label: `${s.id} · ${s.account.name} · ${s.destination} · ${s.windowFrom}${s.windowTo !== s.windowFrom ? ` → ${s.windowTo}` : ""}`,
    }));
  }
  const rows = await prisma.invoice.findMany({ ...base, where: { ...desk, id: range }, include: { account: { select: { name: true } } } });
  return rows.map((i) => {
    const openBalance = { minor: i.openMinor, currency: i.currency };
    return {
      kind,
      id: i.id,
      accountId: i.accountId,
      accountName: i.account.name,
      status: i.status,
      openBalance,
      fees: Array.isArray(i.fees) ? (i.fees as RecordOption["fees"]) : [],
      label: `${i.id} · ${i.account.name} · ${i.status} · ${formatMoney({ minor: i.openMinor, currency: i.currency as Currency })} open`,
    };
  });
}

/**
 * Live records of declared kind `kind` on `desk` whose id is in `range` — a range of the primary
 * key (desk, kind, id), at most SEARCH_LIMIT in id order — with their owner accounts' names (read
 * by primary key, on the same desk) and a label from their roles, e.g.
 * "o_118 · Brightside Home Goods · O-118 · open · $40.00 available". A kind that is not declared
 * on the desk has no records: nothing is found.
 */
async function searchDeclaredRecords(desk: string, kind: string, range: { gte: string; lt: string }): Promise<RecordOption[]> {
  const rows = await prisma.deskRecord.findMany({
    where: { desk, kind, id: range, deletedAt: null },
    orderBy: { id: "asc" },
    take: SEARCH_LIMIT,
    select: { id: true, ownerAccountId: true, title: true, status: true, availableMinor: true, currency: true },
  });
  const owners = [...new Set(rows.map((r) => r.ownerAccountId).filter((a): a is string => a !== null))];
  const names = new Map(owners.length ? (await prisma.customerAccount.findMany({ where: { id: { in: owners }, desk }, select: { id: true, name: true } })).map((a) => [a.id, a.name]) : []);
  return rows.map((r) => {
    const accountId = r.ownerAccountId ?? "";
    const accountName = names.get(accountId) ?? "";
    const available = r.availableMinor !== null && r.currency ? { minor: Number(r.availableMinor), currency: r.currency } : undefined;
    const label = [r.id, accountName, r.title, r.status, available ? `${formatMoney({ minor: available.minor, currency: available.currency as Currency })} available` : null].filter((p) => p).join(" · ");
    return { kind, id: r.id, accountId, accountName, label, ...(r.title !== null ? { title: r.title } : {}), ...(r.status !== null ? { status: r.status } : {}), ...(available ? { available } : {}) };
  });
}
