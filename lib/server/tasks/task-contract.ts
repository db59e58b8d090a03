import { z } from "zod";
import { DomainError } from "../../errors/domain-error";
import { taskContractSchema, taskTextPartSchema, type Intent, type TaskContract, type TaskTextPart } from "../../task-contract/schema";
import type { TaskContractContext } from "../../validation/types";
import type { DbOrTx } from "../db/transaction";
import { readJsonColumn } from "../db/json-column";

/**
 * The task contract on the server: reading a task's stored contract and text parts, the desk's
 * intent catalog, and checking a posted contract against the desk before it is stored.
 */

const partsSchema = z.array(taskTextPartSchema);

/**
 * The task's text parts with their sources: the stored parts, or — for a task stored before parts
 * existed — its body as one system part of revision 1.
 */
export function partsOf(task: { body: string; textParts: unknown }): TaskTextPart[] {
  if (task.textParts === null || task.textParts === undefined) return [{ source: "system", text: task.body, revision: 1 }];
  return readJsonColumn(partsSchema, task.textParts, "task text parts");
}

/** The task's stored contract, or null when it has none. */
export function contractOf(task: { contract: unknown }): TaskContract | null {
  if (task.contract === null || task.contract === undefined) return null;
  return readJsonColumn(taskContractSchema, task.contract, "task contract");
}

type IntentRow = { name: string; label: string; description: string; permittedTools: unknown };
const toIntent = (r: IntentRow): Intent => ({ name: r.name, label: r.label, description: r.description, permittedTools: readJsonColumn(z.array(z.string()), r.permittedTools, "intent tools") });

/** The desk's intent catalog in catalog order (at most 100 intents; one indexed query). */
export async function listIntents(db: DbOrTx, desk: string): Promise<Intent[]> {
  const rows = await db.deskIntent.findMany({ where: { desk }, orderBy: [{ position: "asc" }, { name: "asc" }], take: 100 });
  return rows.map(toIntent);
}

/** One intent of the desk's catalog, or null. */
export async function findIntent(db: DbOrTx, desk: string, name: string): Promise<Intent | null> {
  const row = await db.deskIntent.findUnique({ where: { desk_name: { desk, name } } });
  return row ? toIntent(row) : null;
}

/**
 * The desk's default intent: the intent a task of that desk gets when the integration posts no
 * contract, from the desk's catalog; null when the desk declares none (or names an intent its
 * catalog no longer has): then the built-in intent permitting only replies and notes applies
 * (lib/validation/contract-rules.ts `NO_CONTRACT_EFFECTS`). Two indexed reads.
 */
export async function deskDefaultIntent(db: DbOrTx, desk: string): Promise<Intent | null> {
  const row = await db.desk.findUnique({ where: { id: desk }, select: { defaultIntent: true } });
  return row?.defaultIntent ? findIntent(db, desk, row.defaultIntent) : null;
}

/**
 * What the validator needs of a task (lib/validation/contract-rules.ts): its contract, the
 * contract's intent from the task's desk — or, without a contract, the desk's default intent
 * ({@link deskDefaultIntent}) — and its text parts.
 */
export async function taskContractContext(db: DbOrTx, task: { body: string; textParts: unknown; contract: unknown }, desk: string): Promise<Omit<TaskContractContext, "supervisorMayAllow">> {
  const contract = contractOf(task);
  const intent = contract ? await findIntent(db, desk, contract.intent) : await deskDefaultIntent(db, desk);
  return { contract, intent, parts: partsOf(task) };
}

/**
 * Checks a posted contract against the task's desk: its intent must be in the desk's catalog and
 * every account in scope must be an account of that desk. Errors: 422 `validation_failed`
 * {issues: [{path, code, message}]} (codes `unknown_intent`, `unknown_account`).
 */
export async function checkContractForDesk(db: DbOrTx, contract: TaskContract, desk: string): Promise<void> {
  const issues: { path: string; code: string; message: string }[] = [];
  if (!(await findIntent(db, desk, contract.intent))) {
    const known = (await listIntents(db, desk)).map((i) => i.name);
    issues.push({ path: "contract.intent", code: "unknown_intent", message: `"${contract.intent}" is not an intent of this desk (${known.join(", ") || "the desk has no intents"})` });
  }
  const scope = contract.constraints.accountsInScope ?? [];
  if (scope.length) {
    const found = await db.customerAccount.findMany({ where: { id: { in: scope }, desk }, select: { id: true }, take: scope.length });
    const have = new Set(found.map((a) => a.id));
    scope.forEach((id, i) => {
      if (!have.has(id)) issues.push({ path: `contract.constraints.accountsInScope.${i}`, code: "unknown_account", message: `Account ${id} is not an account of this desk` });
    });
  }
  if (issues.length) throw new DomainError("validation_failed", "The task contract does not fit this desk.", { issues });
}
