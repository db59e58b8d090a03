/** The pipeline's stages, in the order they run (plain data: ./types.ts and ./issue-schema.ts share it). Source: docs/design.md §1, docs/api.md. */
export const VALIDATION_STAGES = [
  "shape",
  "structure",
  "allowlist",
  "argument_bounds",
  "task_contract",
  "content",
  "desk_rule",
  "authorship",
  "gate",
] as const;
/** One of {@link VALIDATION_STAGES}: the stage a validation issue was found in. */
export type ValidationStage = (typeof VALIDATION_STAGES)[number];
