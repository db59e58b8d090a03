import { DomainError } from "../../errors/domain-error";
import { getTool, isToolName, type ToolName } from "../../tools/builtin-tools";
import type { ReferenceWriteResult } from "../../tools/reference-write";
import { recordKey, type RecordVersions } from "../../records/record-key";
import { referencedIds } from "../account-data/load-account-snapshot";
import type { Tx } from "../db/transaction";
import { REFERENCE_WRITES } from "./reference-writes";

// The reference executor's write of one step, shared by the demo executor's direct write
// (demo-effects.ts) and its staged runs' promotion (staged-effects.ts).

/**
 * What a demo write did: the tool's reference write result (`summary`, `record` before/after or
 * null) for one claimed step, and `targetVersions` — the source version the written record has now
 * (`{"invoice:in_74119": 9}`, `{}` when no record changed), which the executor reports with the
 * outcome like the answer of a real system of record. `appliedAt` is ISO UTC.
 */
export interface DemoEffect extends ReferenceWriteResult {
  runId: string;
  stepId: string;
  tool: string;
  appliedAt: string;
  targetVersions: RecordVersions;
}

/** An `effect_failed` refusal {reason, …}: the write is impossible now; nothing is written. */
export const effectFailed = (message: string, details: Record<string, unknown> = {}) => new DomainError("effect_failed", message, details);

/**
 * The live source versions of the records `step`'s arguments name, as an executor reads them right
 * before its write (the fence's `targetVersions`): by primary key (desk, id) on the run's desk
 * `desk`, records without a source version left out.
 */
export async function liveVersionsOf(tx: Tx, desk: string, step: { tool: string; args: unknown }): Promise<RecordVersions> {
  const refs = referencedIds([step], { argumentsOnly: true });
  const out: RecordVersions = {};
  const put = (kind: string, rows: { id: string; sourceVersion: bigint | null }[]) => {
    for (const r of rows) if (r.sourceVersion !== null) out[recordKey(kind, r.id)] = Number(r.sourceVersion);
  };
  const select = { id: true, sourceVersion: true } as const;
  if (refs.invoice.size) put("invoice", await tx.invoice.findMany({ where: { desk, id: { in: [...refs.invoice] } }, select }));
  if (refs.shipment.size) put("shipment", await tx.shipment.findMany({ where: { desk, id: { in: [...refs.shipment] } }, select }));
  if (refs.account.size) put("account", await tx.customerAccount.findMany({ where: { desk, id: { in: [...refs.account] } }, select }));
  return out;
}

/**
 * What the demo's system of record does to a record it changed (`record` of a reference write):
 * source version + 1 (from 0 for a record written before the door), source time = sync time =
 * `now` (UTC), in the write's transaction; the record is the run's desk `desk`'s. Returns the new version as `{"<kind>:<id>": v}`, `{}`
 * when no record changed.
 */
export async function advanceSource(tx: Tx, desk: string, record: ReferenceWriteResult["record"], now: Date): Promise<RecordVersions> {
  if (!record) return {};
  const where = { desk_id: { desk, id: record.id } };
  const row =
    record.type === "invoice"
      ? await tx.invoice.findUniqueOrThrow({ where, select: { sourceVersion: true } })
      : await tx.shipment.findUniqueOrThrow({ where, select: { sourceVersion: true } });
  const next = (row.sourceVersion ?? BigInt(0)) + BigInt(1);
  const data = { sourceVersion: next, sourceUpdatedAt: now, syncedAt: now };
  if (record.type === "invoice") await tx.invoice.update({ where, data });
  else await tx.shipment.update({ where, data });
  record.after = { ...record.after, sourceVersion: Number(next) };
  return { [recordKey(record.type, record.id)]: Number(next) };
}

/**
 * The write of `tool` with `args` (the step as approved): the built-in tool's reference write
 * (lib/server/demo/reference-writes.ts) on the run's desk `desk`, its arguments parsed again by the tool's own schema.
 * Errors: `effect_failed` {reason: "unknown_tool"} for a tool that is not built in (an imported
 * tool has no reference write), {reason: "invalid_arguments"} when the stored arguments no longer
 * parse; any reason its write gives.
 */
export async function writeEffect(tx: Tx, tool: string, args: Record<string, unknown>, desk: string): Promise<ReferenceWriteResult> {
  const parsed = referenceArgs(tool, args);
  return REFERENCE_WRITES[parsed.tool](tx, parsed.args as never, desk);
}

/**
 * The arguments of a `tool` step as its reference write takes them (`args` parsed again by the
 * built-in tool's own schema), without writing: what staging checks before it keeps a write.
 * Errors: `effect_failed` {reason: "unknown_tool" | "invalid_arguments"} (see `writeEffect`).
 */
export function referenceArgs(tool: string, args: Record<string, unknown>): { tool: ToolName; args: unknown } {
  const def = getTool(tool);
  if (!def || !isToolName(tool)) throw effectFailed(`The demo executor cannot write ${tool} steps.`, { reason: "unknown_tool" });
  const parsed = def.argsSchema.safeParse(args);
  if (!parsed.success) throw effectFailed(`The arguments of this ${tool} step do not parse any more; nothing is written.`, { reason: "invalid_arguments" });
  return { tool, args: parsed.data };
}
