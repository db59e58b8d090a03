/*
 * Test fixture (not used by production code): a local MCP server over stdio, built with the
 * official SDK, publishing tools whose JSON Schemas cover what the catalog import must handle —
 * strings, integers with bounds, booleans, enums, date and date-time formats, nested objects and
 * arrays — with MCP annotations (read-only, non-destructive, destructive), plus a tool whose
 * name Plandesk refuses. Start: `node --import tsx testing/mcp-test-server.ts`.
 */
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { z } from "zod";

const server = new McpServer({ name: "freight-ops", version: "1.2.0" });
const ok = async () => ({ content: [{ type: "text" as const, text: "ok" }] });

server.registerTool(
  "book_inspection",
  {
    title: "Book inspection",
    description: "Books a damage inspection of a shipment at the warehouse.",
    inputSchema: {
      shipmentId: z.string().min(1).describe("The shipment to inspect"),
      date: z.iso.date().describe("Inspection day (YYYY-MM-DD)"),
      slot: z.enum(["morning", "afternoon"]),
      inspectors: z.number().int().min(1).max(4),
      urgent: z.boolean(),
      notBefore: z.iso.datetime().optional(),
      contact: z.object({ name: z.string().min(1), phone: z.string().optional() }),
      checks: z.array(z.string().min(1)).max(5),
    },
    annotations: { destructiveHint: false, idempotentHint: false },
  },
  ok,
);
server.registerTool(
  "lookup_carrier_status",
  { title: "Carrier status", description: "Reads a consignment's status from the carrier.", inputSchema: { shipmentId: z.string() }, annotations: { readOnlyHint: true } },
  ok,
);
server.registerTool(
  "cancel_pickup",
  { title: "Cancel pickup", description: "Cancels a booked pickup; the slot is lost.", inputSchema: { pickupId: z.string(), reason: z.string().max(500) }, annotations: { destructiveHint: true } },
  ok,
);
server.registerTool("carrier.notify", { description: "A name with a dot.", inputSchema: { text: z.string() } }, ok);

void server.connect(new StdioServerTransport());
