import { DECLARED_KIND_NAME, isRecordKind } from "../../records/record-kinds";
import type { StoredRecord } from "../../records/stored-record";
import type { DbOrTx } from "../db/transaction";

type Envelope = { sourceVersion: bigint | null; sourceUpdatedAt: Date | null; syncedAt: Date | null; deletedAt: Date | null };

const iso = (d: Date | null) => (d ? d.toISOString() : null);

function stored(kind: string, id: string, desk: string | null, fields: Record<string, unknown>, e: Envelope): StoredRecord {
  return {
    kind,
    id,
    desk,
    fields,
    sourceVersion: e.sourceVersion === null ? null : Number(e.sourceVersion),
    sourceUpdatedAt: iso(e.sourceUpdatedAt),
    syncedAt: iso(e.syncedAt),
    deletedAt: iso(e.deletedAt),
  };
}

/**
 * The record `kind`/`id` as `desk` holds it (tombstoned ones too, with `deletedAt`), or null when
 * this desk has none — absent and another desk's are the same null. One read by primary key
 * (an account, invoice, shipment or holiday by desk and id: ids are per desk; a declared kind's
 * record by desk, kind and id, with the declaration version it was validated against as
 * `kindVersion`).
 */
export async function readRecord(db: DbOrTx, desk: string, kind: string, id: string): Promise<StoredRecord | null> {
  if (!isRecordKind(kind)) {
    if (!DECLARED_KIND_NAME.test(kind)) return null;
    const r = await db.deskRecord.findUnique({ where: { desk_kind_id: { desk, kind, id } } });
    if (!r) return null;
    return { ...stored(kind, id, desk, (r.fields ?? {}) as Record<string, unknown>, r), kindVersion: r.kindVersion };
  }
  switch (kind) {
    case "account": {
      const a = await db.customerAccount.findUnique({ where: { desk_id: { desk, id } } });
      if (!a) return null;
      return stored(kind, id, a.desk, { name: a.name, ...(Array.isArray(a.tags) ? { tags: a.tags } : {}) }, a);
    }
    case "invoice": {
      const i = await db.invoice.findUnique({ where: { desk_id: { desk, id } } });
      if (!i) return null;
      const fields = { accountId: i.accountId, status: i.status, currency: i.currency, totalMinor: i.totalMinor, openMinor: i.openMinor, fees: i.fees, dueDate: i.dueDate };
      return stored(kind, id, desk, fields, i);
    }
    case "shipment": {
      const s = await db.shipment.findUnique({ where: { desk_id: { desk, id } } });
      if (!s) return null;
      const fields = { accountId: s.accountId, destination: s.destination, windowFrom: s.windowFrom, windowTo: s.windowTo, status: s.status, address: s.address };
      return stored(kind, id, desk, fields, s);
    }
    case "holiday": {
      const h = await db.holiday.findUnique({ where: { desk_id: { desk, id } } });
      if (!h) return null;
      return stored(kind, id, desk, { destination: h.destination, date: h.date, name: h.name }, h);
    }
  }
}
