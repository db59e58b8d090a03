import { z } from "zod";
import { MAX_PARTS_PER_REVISION, taskContractSchema, taskTextPartInputSchema } from "./schema";

/**
 * A change of a task: a new body and/or a comment that changes acceptance (docs/design.md §8), text
 * parts with their sources (`parts: [{source, text}]`, source one of customer_message,
 * attachment, staff, system: customer and attachment text is data, never instruction), and/or the
 * task contract (`contract: {intent, constraints}`, or null to remove it). Shared by the
 * supervisor's form, the operator route and the integration's API route. Empty strings count as
 * absent; at least one of body, comment, parts or contract must be given. The body is recorded as
 * a system part and a comment as a staff part.
 */
export const reviseTaskBodySchema = z
  .object({
    body: z.preprocess((v) => (typeof v === "string" && v.trim() === "" ? undefined : v), z.string().trim().min(1).max(20000).optional()),
    comment: z.preprocess((v) => (typeof v === "string" && v.trim() === "" ? undefined : v), z.string().trim().min(1).max(5000).optional()),
    parts: z.array(taskTextPartInputSchema).max(MAX_PARTS_PER_REVISION).optional(),
    contract: taskContractSchema.nullable().optional(),
  })
  .strict()
  .refine((v) => v.body !== undefined || v.comment !== undefined || (v.parts !== undefined && v.parts.length > 0) || v.contract !== undefined, {
    message: "Write a new task text or a comment",
    path: ["comment"],
  });
export type ReviseTaskBody = z.infer<typeof reviseTaskBodySchema>;
/** The form's raw input shape (before empty strings are dropped). */
export type ReviseTaskInput = z.input<typeof reviseTaskBodySchema>;
