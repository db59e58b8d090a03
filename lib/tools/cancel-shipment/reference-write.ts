import type { ReferenceWrite } from "../reference-write";
import { writeFailed } from "../reference-write";
import type { CancelShipmentArgs } from "./tool";

/**
 * The reference write of `cancel_shipment`: sets the desk's shipment's status to `cancelled`, only if it
 * is still `scheduled` (the update is conditional on status and version, so a shipment dispatched
 * meanwhile is never cancelled). Errors: `effect_failed` {reason: missing | dispatched |
 * delivered | cancelled | concurrent_change}.
 */
export const writeCancelShipment: ReferenceWrite<CancelShipmentArgs> = async (tx, { shipmentId }, desk) => {
  const sh = await tx.shipment.findUnique({ where: { desk_id: { desk, id: shipmentId } } });
  if (!sh) throw writeFailed(`Shipment ${shipmentId} does not exist.`, { reason: "missing" });
  if (sh.status !== "scheduled") {
    const reason = sh.status === "in_transit" || sh.status === "held" ? "dispatched" : sh.status;
    throw writeFailed(`Shipment ${shipmentId} is ${sh.status.replace(/_/g, " ")} now; only a shipment not yet dispatched can be cancelled.`, { reason, status: sh.status });
  }
  const res = await tx.shipment.updateMany({
    where: { desk, id: shipmentId, version: sh.version, status: "scheduled" },
    data: { status: "cancelled", version: { increment: 1 } },
  });
  if (res.count !== 1) throw writeFailed(`Shipment ${shipmentId} changed during the write; nothing was cancelled.`, { reason: "concurrent_change" });
  return {
    summary: `Cancelled ${shipmentId}.`,
    record: { type: "shipment", id: shipmentId, before: { status: sh.status, version: sh.version }, after: { status: "cancelled", version: sh.version + 1 } },
  };
};
