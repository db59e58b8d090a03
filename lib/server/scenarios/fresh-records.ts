import { addHours, formatISO } from "date-fns";
import { customAlphabet } from "nanoid";
import { buildDemoDesk } from "../../demo/desk-data";
import { buildRetailDesk, RETAIL_DESK, retailContracts } from "../../demo/retail-desk";
import { DEFAULT_DESK } from "../../desk/desks";
import { DomainError } from "../../errors/domain-error";
import type { RecordInput } from "../../records/record-kinds";
import { demoContracts } from "../../task-contract/demo-catalog";
import { taskContractSchema } from "../../task-contract/schema";
import { prisma } from "../db/db";
import { DEMO_INTEGRATION_ID } from "../demo/seed";
import { applyRecords } from "../records/apply-records";
import { syncRecord } from "../records/sync-record";
import { openTask } from "../tasks/open-task";

/*
 * Fresh copies of seeded demo records for the named scenarios (docs/testing.md "Scenarios"): each
 * make gets its own ticket and task, its own customer accounts, invoices (with their open balance)
 * and shipments, so no scenario's run holds money, supersedes a plan or changes a record another
 * scenario relies on — scenarios run in any order and in parallel. The records go in as the demo
 * desk's did: account data through the records door (lib/server/records/apply-records.ts), the
 * ticket through the ticketing integration's door (`openTask`).
 */

/** Which seeded records a fresh copy is like, and what it changes of them. */
export interface FreshCopyRequest {
  /** The desk of the seeded records (the copy's desk too). */
  desk: typeof DEFAULT_DESK | typeof RETAIL_DESK.id;
  /** The seeded ticket whose copy (with its task, its account and its contract) the scenario works on. */
  ticket: string;
  /** Seeded invoices the plan names (each copied with its account). */
  invoices?: readonly string[];
  /** Seeded shipments the plan names (each copied with its account). */
  shipments?: readonly string[];
  /** The copied ticket's subject and text instead of the seeded ones. */
  ticketText?: { subject: string; body: string };
  /** Tags the copy of a seeded account (by its seeded id) carries besides the seeded ones. */
  accountTags?: Readonly<Record<string, readonly string[]>>;
}

/** A fresh copy: its ticket and task, the fresh id of every seeded record it copied, and the rewrite of a seeded plan's ids. */
export interface FreshCopy {
  ticketId: string;
  taskId: string;
  /** Seeded id → the copy's id (the ticket, accounts, invoices and shipments). */
  ids: Readonly<Record<string, string>>;
  /** `value` (JSON data, e.g. a seeded plan's steps) with every copied seeded id replaced by the copy's. */
  rewrite<T>(value: T): T;
}

/** A suffix unique per make (lowercase letters and digits), so copies never share an id. */
const suffix = customAlphabet("0123456789abcdefghijklmnopqrstuvwxyz", 10);

/** The seeded data and contracts of `desk` for `now`. */
function seededDesk(desk: FreshCopyRequest["desk"], now: Date) {
  if (desk === RETAIL_DESK.id) return { data: buildRetailDesk(now), contracts: retailContracts() };
  return { data: buildDemoDesk(now), contracts: demoContracts((n) => formatISO(addHours(now, 24 * n), { representation: "date" })) };
}

/**
 * Makes a fresh copy of seeded records on `req.desk` at `now` (UTC): the ticket's account and the
 * accounts of the named invoices and shipments (same names and tags, ids `<seeded id>-<suffix>`),
 * those invoices and shipments (same fields, balances and windows, on the copied accounts), all
 * through the records door at source version 1; then the ticket (id `<seeded id>-<suffix>`, same
 * subject, text and contract with the ids rewritten, opened as long ago as the seeded one was)
 * through the ticketing integration's door, which opens its task at revision 1. Errors: 404
 * `not_found` for a seeded id the desk does not have; a refusal of either door surfaces unchanged.
 */
export async function freshCopyOf(req: FreshCopyRequest, now: Date): Promise<FreshCopy> {
  const { data, contracts } = seededDesk(req.desk, now);
  const find = <T extends { id: string }>(list: readonly T[], id: string, what: string): T => {
    const found = list.find((x) => x.id === id);
    if (!found) throw new DomainError("not_found", `The ${req.desk} demo desk has no seeded ${what} ${id}.`);
    return found;
  };
  const ticket = find(data.tickets, req.ticket, "ticket");
  const invoices = (req.invoices ?? []).map((id) => find(data.invoices, id, "invoice"));
  const shipments = (req.shipments ?? []).map((id) => find(data.shipments, id, "shipment"));
  const accounts = [...new Set([ticket.accountId, ...invoices.map((i) => i.accountId), ...shipments.map((s) => s.accountId)])].map((id) => find(data.accounts, id, "account"));

  const tail = suffix();
  const ids: Record<string, string> = {};
  for (const x of [ticket, ...accounts, ...invoices, ...shipments]) ids[x.id] = `${x.id}-${tail}`;
  const rewrite = rewriterOf(ids);

  const envelope = { op: "put" as const, sourceVersion: 1, sourceUpdatedAt: now };
  const records: RecordInput[] = [
    ...accounts.map((a) => {
      const tags = [...(a.tags ?? []), ...(req.accountTags?.[a.id] ?? [])];
      return { ...envelope, kind: "account" as const, id: ids[a.id], fields: { name: a.name, ...(tags.length ? { tags } : {}) } };
    }),
    ...invoices.map(({ id, ...f }) => ({ ...envelope, kind: "invoice" as const, id: ids[id], fields: { ...f, accountId: ids[f.accountId], currency: "USD" } })),
    ...shipments.map(({ id, ...f }) => ({ ...envelope, kind: "shipment" as const, id: ids[id], fields: { ...f, accountId: ids[f.accountId] } })),
  ];
  const outcomes = await applyRecords(req.desk, records, { now });
  const refused = outcomes.findIndex((o) => !o.ok);
  if (refused >= 0) {
    const o = outcomes[refused] as { ok: false; error: { code: string; message: string } };
    throw new Error(`scenario: the records door refused ${records[refused].kind} ${records[refused].id}: ${o.error.code} ${o.error.message}`);
  }

  const contract = contracts[ticket.id] ? taskContractSchema.parse(rewrite(contracts[ticket.id])) : undefined;
  const text = req.ticketText ?? { subject: ticket.subject, body: ticket.body };
  const { task } = await openTask(
    { ticketId: ids[ticket.id], accountId: ids[ticket.accountId], subject: rewrite(text.subject), parts: [{ source: "system", text: rewrite(text.body) }], ...(contract ? { contract } : {}) },
    { kind: "integration", id: DEMO_INTEGRATION_ID },
    { desk: req.desk, at: addHours(now, -ticket.ageHours) },
  );
  return { ticketId: ids[ticket.id], taskId: task.id, ids, rewrite };
}

/**
 * Sets the open balance of invoice `invoiceId` of `desk` to `openMinor`, as the account system
 * would: its next source version through the records door (`syncRecord`, as the demo
 * integration). Errors: 404 `not_found` for an invoice the desk does not have; the door's refusals.
 */
export async function putOpenBalance(desk: string, invoiceId: string, openMinor: number, now: Date): Promise<void> {
  const row = await prisma.invoice.findUnique({ where: { desk_id: { desk, id: invoiceId } } });
  if (!row) throw new DomainError("not_found", `There is no invoice ${invoiceId} on the ${desk} desk.`);
  const fields = { accountId: row.accountId, status: row.status, currency: row.currency, totalMinor: row.totalMinor, openMinor, fees: row.fees ?? [], dueDate: row.dueDate };
  await syncRecord(desk, "invoice", invoiceId, "put", { ...fields, sourceVersion: Number(row.sourceVersion ?? 0n) + 1, sourceUpdatedAt: now.toISOString() }, { kind: "integration", id: DEMO_INTEGRATION_ID }, { now });
}

/** Replaces each id of `ids` standing alone in a JSON value (not inside a longer id such as `in_74991`) with its copy's id. */
function rewriterOf(ids: Readonly<Record<string, string>>): <T>(value: T) => T {
  const escaped = Object.keys(ids)
    .sort((a, b) => b.length - a.length)
    .map((id) => id.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"));
  const pattern = new RegExp(`(?<![A-Za-z0-9_.:~-])(${escaped.join("|")})(?![A-Za-z0-9_:~-])`, "g");
  return <T>(value: T): T => JSON.parse(JSON.stringify(value).replace(pattern, (id) => ids[id])) as T;
}
