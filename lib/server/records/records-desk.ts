import { DomainError } from "../../errors/domain-error";
import type { DbOrTx } from "../db/transaction";

/**
 * The desk an integration key sends records for
 * (docs/design.md "Systems of record: the one door"): a desk-bound key's own desk (a `?desk=` naming another is 404 `not_found`, as another
 * desk's data always is); a key bound to no desk must name one (`?desk=`, 400 `bad_request`
 * without), and it must exist (422 `unknown_desk`). `keyDesk`: the key's desk or null.
 */
export async function recordsDesk(db: DbOrTx, keyDesk: string | null | undefined, asked: string | undefined): Promise<string> {
  if (keyDesk) {
    if (asked !== undefined && asked !== keyDesk) throw new DomainError("not_found", "This key sends records for its own desk only.");
    return keyDesk;
  }
  if (asked === undefined) throw new DomainError("bad_request", "This key is bound to no desk: name the desk the records belong to with ?desk=.", { issues: [{ path: "desk", message: "Required" }] });
  const desk = await db.desk.findUnique({ where: { id: asked }, select: { id: true } });
  if (!desk) throw new DomainError("unknown_desk", `There is no desk ${asked.slice(0, 64)}.`);
  return desk.id;
}
