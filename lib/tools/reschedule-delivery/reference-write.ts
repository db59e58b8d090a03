import type { ReferenceWrite } from "../reference-write";
import { writeFailed } from "../reference-write";
import type { RescheduleDeliveryArgs } from "./tool";

/**
 * The reference write of `reschedule_delivery`: moves the desk's shipment's window (ISO dates), if the
 * shipment exists and was neither delivered nor cancelled meanwhile. Errors: `effect_failed`
 * {reason: missing | delivered | cancelled | concurrent_change}.
 */
export const writeRescheduleDelivery: ReferenceWrite<RescheduleDeliveryArgs> = async (tx, { shipmentId, window }, desk) => {
  const sh = await tx.shipment.findUnique({ where: { desk_id: { desk, id: shipmentId } } });
  if (!sh) throw writeFailed(`Shipment ${shipmentId} does not exist.`, { reason: "missing" });
  if (sh.status === "delivered") throw writeFailed(`Shipment ${shipmentId} was delivered meanwhile.`, { reason: "delivered" });
  if (sh.status === "cancelled") throw writeFailed(`Shipment ${shipmentId} was cancelled meanwhile.`, { reason: "cancelled" });
  const res = await tx.shipment.updateMany({
    where: { desk, id: shipmentId, version: sh.version },
    data: { windowFrom: window.from, windowTo: window.to, version: { increment: 1 } },
  });
  if (res.count !== 1) throw writeFailed(`Shipment ${shipmentId} changed during the write; nothing was moved.`, { reason: "concurrent_change" });
  return {
    summary: `Moved ${shipmentId} to ${window.from}…${window.to}.`,
    record: {
      type: "shipment",
      id: shipmentId,
      before: { window: { from: sh.windowFrom, to: sh.windowTo }, version: sh.version },
      after: { window, version: sh.version + 1 },
    },
  };
};
