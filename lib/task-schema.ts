import { z } from "zod";

/**
 * A change of what "done" means for a task: a new body and/or a comment that changes acceptance
 * (DESIGN.md §8). Shared by the supervisor's form, the operator route and the agent API route.
 * Empty strings count as absent; at least one of the two must be given.
 */
export const reviseTaskBodySchema = z
  .object({
    body: z.preprocess((v) => (typeof v === "string" && v.trim() === "" ? undefined : v), z.string().trim().min(1).max(20000).optional()),
    comment: z.preprocess((v) => (typeof v === "string" && v.trim() === "" ? undefined : v), z.string().trim().min(1).max(5000).optional()),
  })
  .strict()
  .refine((v) => v.body !== undefined || v.comment !== undefined, { message: "Write a new task text or a comment", path: ["comment"] });
export type ReviseTaskBody = z.infer<typeof reviseTaskBodySchema>;
/** The form's raw input shape (before empty strings are dropped). */
export type ReviseTaskInput = z.input<typeof reviseTaskBodySchema>;
