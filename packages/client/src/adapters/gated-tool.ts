/**
 * A tool the adapters gate through Plandesk, described once for all three frameworks
 *: its Plandesk name, a description for the model, the zod schema of its arguments,
 * and your implementation, which receives the APPROVED arguments (parsed by that schema) and the
 * claim. Plus the optional `stepReasons` argument through which the model explains a step.
 */
import { z } from "zod";
import type { ExecutionContext, StepResult, ToolArgs, ToolImplementation, ToolOutcome } from "./core.js";
import { ToolFailure } from "./core.js";
import type { StepReasons } from "../client.js";

/** One gated tool. `S` is the zod object schema of its arguments (the Plandesk tool's arguments). */
export interface GatedToolSpec<S extends z.ZodObject = z.ZodObject> {
  /** What the model reads about the tool. */
  description: string;
  /** The arguments as the model must send them; the approved arguments are parsed by it too. */
  inputSchema: S;
  /** Writes the step with the APPROVED arguments; see {@link ToolImplementation} for outcomes and throws. */
  execute: (args: z.output<S>, ctx: ExecutionContext) => Promise<ToolOutcome>;
}

/** A set of gated tools by Plandesk tool name. */
export type GatedToolSet = Record<string, GatedToolSpec>;

/**
 * Identity helper that keeps the argument types of one tool (so `execute` is typed from the
 * schema) while checking it against {@link GatedToolSpec}.
 */
export function gatedTool<S extends z.ZodObject>(spec: GatedToolSpec<S>): GatedToolSpec<S> {
  return spec;
}

/**
 * The reasons' fields as the console accepts them (`title` ≤ 200 characters, `rationale` ≤ 4000,
 * up to 50 `evidence` items — a record `{recordType, recordId, note?}` or a read step of the plan
 * `{readStepId, note?}` — `risk` and `stopCondition` ≤ 2000); all optional.
 */
export const stepReasonsShape = {
  title: z.string().max(200).optional(),
  rationale: z.string().max(4000).optional(),
  evidence: z
    .array(
      z.union([
        z.object({ recordType: z.string().min(1).max(64), recordId: z.string().min(1).max(128), note: z.string().max(500).optional() }).strict(),
        z.object({ readStepId: z.string().min(1).max(64), note: z.string().max(500).optional() }).strict(),
      ]),
    )
    .max(50)
    .optional(),
  risk: z.string().max(2000).optional(),
  stopCondition: z.string().max(2000).optional(),
};

/** Name of the optional argument through which the model explains a step (docs/api.md step reasons). */
export const REASONS_ARG = "stepReasons" as const;

/** The zod schema of the reasons argument: title, rationale, evidence, risk, stopCondition. */
export const stepReasonsArgSchema = z
  .object(stepReasonsShape)
  .strict()
  .describe("Why this step: a short title, the rationale, the records it relies on (evidence: [{recordType, recordId}]), the risk, and when not to do it (stopCondition). Shown to the person who approves it.");

/**
 * The schema the model sees: the tool's own schema plus the optional `stepReasons` object.
 * Plandesk receives the arguments without it (see {@link splitReasons}).
 */
export function withReasonsArg<S extends z.ZodObject>(schema: S): z.ZodObject<S["shape"] & { stepReasons: z.ZodOptional<typeof stepReasonsArgSchema> }> {
  return schema.extend({ stepReasons: stepReasonsArgSchema.optional() }) as unknown as z.ZodObject<S["shape"] & { stepReasons: z.ZodOptional<typeof stepReasonsArgSchema> }>;
}

/**
 * Splits what the model sent into the tool's arguments and its reasons (the `stepReasons` key,
 * kept only when it has the reasons' shape; otherwise dropped — reasons never block a call).
 */
export function splitReasons(input: ToolArgs): { args: ToolArgs; reasons?: StepReasons } {
  if (!Object.prototype.hasOwnProperty.call(input, REASONS_ARG)) return { args: input };
  const { [REASONS_ARG]: raw, ...args } = input;
  const parsed = stepReasonsArgSchema.safeParse(raw);
  return parsed.success ? { args, reasons: parsed.data } : { args };
}

/**
 * The executor's implementations of a tool set: each parses the approved arguments with the
 * tool's own schema first (an approved edit this tool cannot take is reported `failed` — nothing
 * written — with the schema's message) and then calls the tool's `execute`.
 */
export function implementationsOf(tools: GatedToolSet): Record<string, ToolImplementation> {
  return Object.fromEntries(
    Object.entries(tools).map(([name, spec]) => [
      name,
      async (args: ToolArgs, ctx: ExecutionContext) => {
        const parsed = spec.inputSchema.safeParse(args);
        if (!parsed.success) throw new ToolFailure(`The approved arguments do not fit ${name}: ${parsed.error.issues.map((i) => `${i.path.join(".") || "(args)"}: ${i.message}`).join("; ")}`);
        return spec.execute(parsed.data, ctx);
      },
    ]),
  );
}

/** One line for logs and examples: "st_x reschedule_delivery → succeeded: Moved …". */
export function describeResult(r: StepResult): string {
  switch (r.status) {
    case "refused":
      return `${r.stepId} ${r.tool} → refused ${r.code}: ${r.message}`;
    case "skipped":
      return `${r.stepId} ${r.tool} → skipped: ${r.message}`;
    default:
      return `${r.stepId} ${r.tool} ${JSON.stringify(r.args)} → ${r.status}: ${r.detail}`;
  }
}
