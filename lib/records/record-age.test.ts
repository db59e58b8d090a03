import { describe, expect, it } from "vitest";
import type { AccountSnapshot } from "../desk/snapshot";
import { argumentTargets, describeSync, staleRecordMessage, staleTarget } from "./record-age";
import { getToolMeta } from "../tools/builtin-meta";

const now = new Date("2026-12-05T14:04:00Z");
const synced = (syncedAt: string | null, sourceUpdatedAt: string | null = null) => ({ sourceVersion: 8, sourceUpdatedAt, syncedAt });
const usd = (minor: number) => ({ minor, currency: "USD" as const });

function desk(invoiceSync?: ReturnType<typeof synced>): AccountSnapshot {
  return {
    ticket: { id: "74991", accountId: "acc_halvorsen", subject: "x" },
    accounts: { acc_halvorsen: { id: "acc_halvorsen", name: "Halvorsen Freight", sync: synced("2026-12-05T14:03:00Z") } },
    tickets: {},
    invoices: { in_74119: { id: "in_74119", accountId: "acc_halvorsen", status: "open", total: usd(212000), openBalance: usd(212000), fees: [], ...(invoiceSync ? { sync: invoiceSync } : {}) } },
    shipments: {},
    holidays: {},
    desk: "freight",
  };
}
const invoice = [{ kind: "invoice", id: "in_74119" }];

describe("how old a record's local copy is, in words", () => {
  it("says when the source changed it (time of day, UTC) and how long ago Plandesk synced it", () => {
    expect(describeSync(synced("2026-12-05T14:02:00Z", "2026-12-05T14:02:00Z"), now, "balance")).toBe("balance as of 14:02 UTC, synced 2 min ago");
    expect(describeSync(synced("2026-12-05T10:52:00Z", "2026-12-05T10:40:00Z"), now, "window")).toBe("window as of 10:40 UTC, synced 3 h 12 min ago");
    expect(describeSync(synced("2026-12-05T14:03:40Z", "2026-12-05T14:03:00Z"), now)).toBe("as of 14:03 UTC, synced just now");
  });

  it("names the day when the source changed it on another day, and leaves the time out when the source did not say", () => {
    expect(describeSync(synced("2026-12-05T14:00:00Z", "2026-12-03T09:15:00Z"), now, "balance")).toBe("balance as of 3 Dec 09:15 UTC, synced 4 min ago");
    expect(describeSync(synced("2026-12-05T14:00:00Z"), now, "balance")).toBe("balance synced 4 min ago");
  });

  it("a record never synced (or without sync data) says nothing new", () => {
    expect(describeSync(synced(null, "2026-12-05T14:02:00Z"), now, "balance")).toBeNull();
    expect(describeSync(undefined, now, "balance")).toBeNull();
  });
});

describe("the freshness bound on a step's target records", () => {
  it("no bound: never stale, however old", () => {
    expect(staleTarget(invoice, desk(synced("2025-01-01T00:00:00Z")), null, now)).toBeNull();
  });

  it("older than the bound is stale, with the record key, sync time and whole minutes; exactly the bound is fresh", () => {
    expect(staleTarget(invoice, desk(synced("2026-12-05T10:52:00Z")), 60, now)).toEqual({ record: "invoice:in_74119", kind: "invoice", id: "in_74119", syncedAt: "2026-12-05T10:52:00Z", ageMinutes: 192, maxRecordAgeMinutes: 60 });
    expect(staleTarget(invoice, desk(synced("2026-12-05T13:04:00Z")), 60, now)).toBeNull();
    expect(staleTarget(invoice, desk(synced("2026-12-05T13:03:59Z")), 60, now)?.ageMinutes).toBe(60);
  });

  it("a record never synced is stale under a bound; one absent from the snapshot or built without sync data is not judged here", () => {
    expect(staleTarget(invoice, desk(synced(null)), 60, now)).toMatchObject({ syncedAt: null, ageMinutes: null });
    expect(staleTarget([{ kind: "invoice", id: "in_00000" }], desk(synced(null)), 60, now)).toBeNull();
    expect(staleTarget(invoice, desk(), 60, now)).toBeNull();
    expect(staleTarget([{ kind: "ticket", id: "74991" }], desk(synced(null)), 60, now)).toBeNull();
    expect(staleTarget([{ kind: "account", id: "acc_halvorsen" }], desk(), 1, now)).toBeNull();
  });

  it("the refusal's message a person acts on", () => {
    const stale = staleTarget(invoice, desk(synced("2026-12-05T10:52:00Z")), 60, now)!;
    expect(staleRecordMessage(stale, "issue_refund", "approve")).toBe("invoice in_74119 was last synced 3 h 12 min ago; this desk's policy allows 60 min for issue_refund: sync it, then approve.");
    const never = staleTarget(invoice, desk(synced(null)), 60, now)!;
    expect(staleRecordMessage(never, "issue_refund", "claim it again")).toBe("invoice in_74119 was never synced; this desk's policy allows 60 min for issue_refund: sync it, then claim it again.");
  });
});

describe("a step's target records, as the card reads them", () => {
  it("the invoice, shipment and account its id arguments name; not tickets, not other arguments", () => {
    const refund = getToolMeta("issue_refund")!.fields;
    expect(argumentTargets(refund, { invoiceId: "in_74119", amount: { minor: 100, currency: "USD" }, reason: "in_99999" })).toEqual([{ kind: "invoice", id: "in_74119" }]);
    expect(argumentTargets(getToolMeta("reschedule_delivery")!.fields, { shipmentId: "sh_5521" })).toEqual([{ kind: "shipment", id: "sh_5521" }]);
    expect(argumentTargets(getToolMeta("add_ticket_note")!.fields, { ticketId: "74991", note: "x" })).toEqual([]);
    expect(argumentTargets(refund, { invoiceId: "" })).toEqual([]);
  });
});

describe("the freshness bound on a record of a declared kind", () => {
  it("an order synced longer ago than the bound is stale, as an invoice would be; a ticket never is", () => {
    const withOrder = (syncedAt: string | null): AccountSnapshot => ({
      ...desk(),
      declared: { order: { o_118: { kind: "order", id: "o_118", accountId: "acc_halvorsen", title: "O-118", available: usd(4000), holds: [], status: "open", closed: false, window: null, sync: synced(syncedAt) } } },
    });
    const order = [{ kind: "order", id: "o_118" }];
    expect(staleTarget(order, withOrder("2026-12-05T12:00:00Z"), 60, now)).toEqual({ record: "order:o_118", kind: "order", id: "o_118", syncedAt: "2026-12-05T12:00:00Z", ageMinutes: 124, maxRecordAgeMinutes: 60 });
    expect(staleTarget(order, withOrder("2026-12-05T13:30:00Z"), 60, now)).toBeNull();
    expect(staleTarget(order, withOrder(null), 60, now)).toMatchObject({ record: "order:o_118", syncedAt: null, ageMinutes: null });
    expect(staleTarget([{ kind: "ticket", id: "74991" }], withOrder(null), 60, now)).toBeNull();
  });
});
