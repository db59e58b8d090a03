import { z } from "zod";
import { isIsoDate } from "../time/dates";
import { currencySchema, MAX_MONEY_MINOR } from "../money/money";
import { TEXT_SOURCES } from "./text-sources";

/**
 * The task contract as data: what a task is for (an *intent* from the desk's catalog), which tools
 * that intent permits, and the *constraints* a plan for it must keep (delivery window, a
 * compensation cap, "no refund", the accounts in scope). One zod schema per concept, shared by the
 * integration's revision body, the supervisor's form and the validator. Plain data, no I/O.
 */

export { TEXT_SOURCES, UNTRUSTED_SOURCES, isUntrustedSource, TEXT_SOURCE_LABELS, type TextSource } from "./text-sources";

/** Most parts one revision may add, and longest text of one part (characters). */
export const MAX_PARTS_PER_REVISION = 20;
export const MAX_PART_TEXT = 20000;

/** One part of a task's text with its source, as the integration posts it: `{source, text}`. */
export const taskTextPartInputSchema = z
  .object({
    source: z.enum(TEXT_SOURCES),
    text: z.string().trim().min(1, "A text part cannot be empty").max(MAX_PART_TEXT),
  })
  .strict();
export type TaskTextPartInput = z.output<typeof taskTextPartInputSchema>;

/** A stored part of the task's live text: its source, text and the task revision that added it. */
export const taskTextPartSchema = taskTextPartInputSchema.extend({ revision: z.number().int().min(1) });
export type TaskTextPart = z.output<typeof taskTextPartSchema>;

/** An intent name: snake_case, e.g. "delivery_exception". */
export const intentNameSchema = z
  .string()
  .trim()
  .regex(/^[a-z][a-z0-9_]{1,47}$/, "An intent is a snake_case name such as delivery_exception");

/** One entry of a desk's intent catalog: its name, label, description and the tools it permits. */
export const intentSchema = z
  .object({
    name: intentNameSchema,
    label: z.string().trim().min(1).max(80),
    description: z.string().trim().max(300).default(""),
    permittedTools: z.array(z.string().trim().min(1).max(64)).max(100),
  })
  .strict();
export type Intent = z.output<typeof intentSchema>;

const isoDate = z.string().refine(isIsoDate, "Use an ISO date YYYY-MM-DD");
const accountIdSchema = z.string().trim().min(1).max(64);

/**
 * A compensation cap: the most money (minor units + currency) the steps of one plan may move in
 * total for this task (refunds, credits, waived fees).
 */
export const compensationCapSchema = z
  .object({
    minor: z.number().int().min(0).max(MAX_MONEY_MINOR),
    currency: currencySchema,
  })
  .strict();

/**
 * The constraints of a task (all optional; absent = unconstrained):
 * - `deliveryNotBefore` / `deliveryNotAfter`: ISO dates; a delivery window a step sets must lie
 *   within them (inclusive);
 * - `compensationCap`: money the plan's steps may move in total (minor units + currency);
 * - `noRefund`: true when the task forbids refunds (`issue_refund`);
 * - `accountsInScope`: the account ids a step may write to; absent = the ticket's account: the
 *   agent's submission may not write to another (`outside_task_accounts`), a person's edit may,
 *   with the approver's acknowledgement (the cross-account warning).
 */
export const taskConstraintsSchema = z
  .object({
    deliveryNotBefore: isoDate.optional(),
    deliveryNotAfter: isoDate.optional(),
    compensationCap: compensationCapSchema.optional(),
    noRefund: z.boolean().optional(),
    accountsInScope: z.array(accountIdSchema).min(1, "Name at least one account, or leave the scope out").max(20).optional(),
  })
  .strict()
  .refine((c) => !c.deliveryNotBefore || !c.deliveryNotAfter || c.deliveryNotBefore <= c.deliveryNotAfter, {
    message: "The earliest delivery date must not be after the latest",
    path: ["deliveryNotAfter"],
  });
export type TaskConstraints = z.output<typeof taskConstraintsSchema>;

/** The task contract: `{intent, constraints}`; the intent must be in the desk's catalog (checked by the service). */
export const taskContractSchema = z
  .object({
    intent: intentNameSchema,
    constraints: taskConstraintsSchema.default({}),
  })
  .strict();
export type TaskContract = z.output<typeof taskContractSchema>;
export type TaskContractInput = z.input<typeof taskContractSchema>;

/** Tools that refund money (forbidden by `noRefund`). */
export const REFUND_TOOLS: readonly string[] = ["issue_refund"];

/**
 * Body of a supervisor's correction of the contract from the console: the contract and a note
 * saying why (recorded on the new task revision and in the audit log).
 */
export const setTaskContractBodySchema = z
  .object({
    /** The revision the supervisor looked at (409 `stale_task` when the task moved on). */
    taskRevision: z.number().int().min(1),
    contract: taskContractSchema,
    note: z.string().trim().min(1, "Say why the contract changes").max(500),
  })
  .strict();
export type SetTaskContractBody = z.output<typeof setTaskContractBodySchema>;
