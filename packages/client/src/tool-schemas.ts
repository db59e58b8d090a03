/**
 * The argument schemas of the console's built-in tools, as zod objects made from the OpenAPI
 * document's JSON Schemas (`components.schemas.<tool>Arguments`, the schemas the console
 * validates with) through `z.fromJSONSchema` — for gated tools that write a built-in tool's step.
 */
import { z } from "zod";
import { TOOL_ARGUMENTS } from "./generated/tool-arguments.js";

/** The names of the console's built-in tools (add_ticket_note, reschedule_delivery, …). */
export const BUILT_IN_TOOLS: readonly string[] = Object.keys(TOOL_ARGUMENTS);

/**
 * The zod object schema of built-in tool `name`'s arguments. Throws `Error` for a name that is
 * not a built-in tool (imported tools publish theirs at `GET /api/admin/tools`).
 */
export function toolArgumentsSchema(name: string): z.ZodObject {
  const json = TOOL_ARGUMENTS[name];
  if (!json) throw new Error(`"${name}" is not a built-in Plandesk tool (${BUILT_IN_TOOLS.join(", ")}).`);
  const schema = z.fromJSONSchema(json as Parameters<typeof z.fromJSONSchema>[0]);
  if (!(schema instanceof z.ZodObject)) throw new Error(`The arguments of "${name}" are not an object schema.`);
  return schema;
}
