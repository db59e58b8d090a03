import type { ToolDefinition } from "./types";
import { addTicketNote } from "./add-ticket-note";
import { rescheduleDelivery } from "./reschedule-delivery";
import { sendReply } from "./send-reply";
import { issueRefund } from "./issue-refund";
import { applyCredit } from "./apply-credit";
import { waiveFee } from "./waive-fee";
import { escalateTicket } from "./escalate-ticket";

/**
 * Every tool Plandesk knows, in the order the "add step" menu lists them.
 * Adding a tool = one new file in lib/tools/ + one line here. Source: DESIGN.md "The demo domain".
 */
const TOOLS = [
  addTicketNote,
  rescheduleDelivery,
  sendReply,
  issueRefund,
  applyCredit,
  waiveFee,
  escalateTicket,
] as const;

/** A known tool name, e.g. "issue_refund". */
export type ToolName = (typeof TOOLS)[number]["name"];

/** Known tool names in menu order. */
export const toolNames: readonly ToolName[] = TOOLS.map((t) => t.name);

/** The registry: tool name → definition. Look names up with {@link getTool}, never by indexing. */
export const toolCatalog: Readonly<Record<ToolName, ToolDefinition>> = Object.freeze(
  Object.fromEntries(TOOLS.map((t) => [t.name, t as ToolDefinition])) as Record<ToolName, ToolDefinition>,
);

/** True when `name` is a known tool (own key of the catalog; "constructor" is not a tool). */
export function isToolName(name: unknown): name is ToolName {
  return typeof name === "string" && Object.prototype.hasOwnProperty.call(toolCatalog, name);
}

/** The tool called `name`, or `undefined` for an unknown name. Exact, case-sensitive match. */
export function getTool(name: string): ToolDefinition | undefined {
  return isToolName(name) ? toolCatalog[name] : undefined;
}
