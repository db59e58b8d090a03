import { addTicketNoteMeta } from "./add-ticket-note/meta";
import { applyCreditMeta } from "./apply-credit/meta";
import { cancelShipmentMeta } from "./cancel-shipment/meta";
import { escalateTicketMeta } from "./escalate-ticket/meta";
import { issueRefundMeta } from "./issue-refund/meta";
import { rescheduleDeliveryMeta } from "./reschedule-delivery/meta";
import { sendReplyMeta } from "./send-reply/meta";
import { waiveFeeMeta } from "./waive-fee/meta";
import type { ToolMeta } from "./types";

/**
 * The built-in tools' page-facing data (lib/tools/<tool>/meta.ts), in the order the "add step"
 * menu lists them — the order of lib/tools/builtin-tools.ts, which a test holds it to. What the
 * browser imports instead of the tool modules (docs/design.md "Page weight").
 */
const METAS: readonly ToolMeta[] = [addTicketNoteMeta, rescheduleDeliveryMeta, sendReplyMeta, issueRefundMeta, applyCreditMeta, waiveFeeMeta, escalateTicketMeta, cancelShipmentMeta];

const BY_NAME: ReadonlyMap<string, ToolMeta> = new Map(METAS.map((m) => [m.name, m]));

/** Built-in tool names in menu order (the same list as `toolNames` of lib/tools/builtin-tools.ts). */
export const builtinToolMetaNames: readonly string[] = METAS.map((m) => m.name);

/** The page-facing data of the built-in tool called `name` (exact, case-sensitive), or undefined. */
export function getToolMeta(name: string): ToolMeta | undefined {
  return BY_NAME.get(name);
}
