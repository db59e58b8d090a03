import { z } from "zod";

/*
 * The read tools' argument schemas (strict), by read tool name: what `checkReads` parses a
 * reported read's `args` with. Apart from the catalog (./catalog.ts) so the pages that show reads
 * load no zod (docs/design.md "Page weight"); a test holds the two to the same names.
 */

const id = (what: string) => z.string().min(1, `${what} is required`).max(128);

const SCHEMAS: Readonly<Record<string, z.ZodObject>> = {
  read_invoice: z.object({ invoiceId: id("Invoice") }).strict(),
  read_shipment: z.object({ shipmentId: id("Shipment") }).strict(),
  read_ticket: z.object({ ticketId: id("Ticket") }).strict(),
};

/** The strict argument schema of the read tool called `name` (exact), or undefined. */
export function readArgsSchema(name: string): z.ZodObject | undefined {
  return Object.prototype.hasOwnProperty.call(SCHEMAS, name) ? SCHEMAS[name] : undefined;
}
