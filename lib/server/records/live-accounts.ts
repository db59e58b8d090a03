import { Prisma } from "../../generated/prisma/client";
import type { Tx } from "../db/transaction";

/**
 * Of `ids`, the accounts stored on `desk` and not tombstoned (one indexed read by primary key):
 * what the records door asks before a record may name an account (an invoice's, a shipment's, a
 * declared kind's owner). Another desk's account and a missing one are alike absent.
 */
export async function liveAccountsOfDesk(tx: Tx, desk: string, ids: readonly string[]): Promise<Set<string>> {
  const rows = await tx.$queryRaw<{ id: string }[]>`SELECT "id" FROM "customer_account" WHERE "id" IN (${Prisma.join([...ids])}) AND "desk" = ${desk} AND "deletedAt" IS NULL`;
  return new Set(rows.map((r) => r.id));
}
