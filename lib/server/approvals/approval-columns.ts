import type { AccountSnapshot } from "../../desk/snapshot";
import type { Step } from "../../plan/schema";
import { findDeclared, isBuiltinKind } from "../../desk/lookup";
import { recordKey, type RecordVersions } from "../../records/record-key";
import { builtinCatalog, type ToolCatalog } from "../../tools/versioned-catalog";
import { referencedIds } from "../account-data/load-account-snapshot";
import { toJsonColumn } from "../db/json-column";

/**
 * What an approval of `step` binds besides the digest: the record the step writes to (as JSON and
 * as indexed columns), the money it lets move (minor units + currency), so money in flight on a
 * record is summed in SQL, and the source versions of the records it names (`recordVersions`,
 * see `recordVersionsSeen`), which the fence compares with the live target before the write.
 * `target` is null when the step's id does not resolve. `catalog` (default: the built-in tools) is
 * the run's: an imported tool bound to a declared kind targets that kind's record
 * (`targetKind: "order"`), so its money is held like an invoice's.
 */
export function approvalTargetColumns(step: Pick<Step, "tool" | "args">, desk: AccountSnapshot, catalog: Pick<ToolCatalog, "get"> = builtinCatalog) {
  const tool = catalog.get(step.tool);
  const target = tool?.target(step.args as never, desk) ?? null;
  const amount = tool?.amount(step.args as never);
  return {
    target: toJsonColumn(target ?? null),
    targetKind: target?.kind ?? null,
    targetId: target?.id ?? null,
    amountMinor: amount?.minor ?? null,
    amountCurrency: amount?.currency ?? null,
    recordVersions: toJsonColumn({ ...recordVersionsSeen(step, desk), ...declaredVersionsSeen(target, desk) }),
  };
}

/** The source version of a declared record the step targets, keyed `"<kind>:<id>"` (`{}` for a built-in kind or no version). */
function declaredVersionsSeen(target: { kind: string; id: string } | null, desk: AccountSnapshot): RecordVersions {
  if (!target || isBuiltinKind(target.kind)) return {};
  const version = findDeclared(desk, target.kind, target.id)?.sync?.sourceVersion;
  return typeof version === "number" ? { [recordKey(target.kind, target.id)]: version } : {};
}

/**
 * The record versions a decision on `step` saw (docs/design.md "The moment of the write"): for
 * every record the step's ARGUMENTS name (invoice, shipment, account; `referencedIds(…,
 * {argumentsOnly: true})`), its source version in `desk` — the account snapshot the decision was
 * made on — keyed `recordKey(kind, id)`, e.g. `{"invoice:in_74119": 8}`. A record absent from the
 * snapshot, or with a null source version (written before the records door), is left out: the fence
 * has nothing to compare it with. Tickets have no source version. `{}` when nothing is versioned.
 */
export function recordVersionsSeen(step: Pick<Step, "tool" | "args">, desk: AccountSnapshot): RecordVersions {
  const refs = referencedIds([step], { argumentsOnly: true });
  const maps = { invoice: desk.invoices, shipment: desk.shipments, account: desk.accounts } as const;
  const out: RecordVersions = {};
  for (const kind of ["invoice", "shipment", "account"] as const) {
    for (const id of refs[kind]) {
      const record = Object.prototype.hasOwnProperty.call(maps[kind], id) ? maps[kind][id] : undefined;
      const version = record?.sync?.sourceVersion;
      if (typeof version === "number") out[recordKey(kind, id)] = version;
    }
  }
  return out;
}
