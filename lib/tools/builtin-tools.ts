import type { BuiltinTool } from "./builtin-tool";
import { addTicketNote } from "./add-ticket-note/tool";
import { rescheduleDelivery } from "./reschedule-delivery/tool";
import { sendReply } from "./send-reply/tool";
import { issueRefund } from "./issue-refund/tool";
import { applyCredit } from "./apply-credit/tool";
import { waiveFee } from "./waive-fee/tool";
import { escalateTicket } from "./escalate-ticket/tool";
import { cancelShipment } from "./cancel-shipment/tool";

/**
 * Every built-in tool, in the order the "add step" menu lists them. A tool is a module in
 * lib/tools/<tool>/ (what pages see of it in `meta.ts`, listed in lib/tools/builtin-meta.ts;
 * definition, effect, seed data in `tool.ts`; its reference write in `reference-write.ts`) plus
 * one line here; the compiler then names each registry that lacks it
 * (`Record<ToolName, …>`: the reference writes in lib/server/demo/reference-writes.ts).
 */
const TOOLS = [
  addTicketNote,
  rescheduleDelivery,
  sendReply,
  issueRefund,
  applyCredit,
  waiveFee,
  escalateTicket,
  cancelShipment,
] as const;

/** A built-in tool name, e.g. "issue_refund". */
export type ToolName = (typeof TOOLS)[number]["name"];

/** The module of built-in tool `N`, with its own schema type (e.g. for typed example arguments). */
export type BuiltinToolOf<N extends ToolName> = Extract<(typeof TOOLS)[number], { name: N }>;

/** Built-in tool names in menu order. */
export const toolNames: readonly ToolName[] = TOOLS.map((t) => t.name);

/** The built-in registry: tool name → module. Look names up with {@link getTool}, never by indexing. */
export const toolCatalog: Readonly<Record<ToolName, BuiltinTool>> = Object.freeze(
  Object.fromEntries(TOOLS.map((t) => [t.name, t as unknown as BuiltinTool])) as Record<ToolName, BuiltinTool>,
);

/** True when `name` is a built-in tool (own key of the registry; "constructor" is not a tool). */
export function isToolName(name: unknown): name is ToolName {
  return typeof name === "string" && Object.prototype.hasOwnProperty.call(toolCatalog, name);
}

/** The built-in tool called `name`, or `undefined` for any other name. Exact, case-sensitive match. */
export function getTool(name: string): BuiltinTool | undefined {
  return isToolName(name) ? toolCatalog[name] : undefined;
}

/** The built-in tools in menu order. */
export function builtinTools(): readonly BuiltinTool[] {
  return toolNames.map((n) => toolCatalog[n]);
}
