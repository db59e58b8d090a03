import { z } from "zod";

/**
 * Step ids: short, url-safe strings (nanoid or agent-chosen) — the one documented pattern
 * `^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$`: a letter or digit first, so no id is a special
 * property name such as `__proto__`; anything else is refused (422, shape stage).
 */
export const stepIdSchema = z
  .string()
  .min(1)
  .max(64)
  .regex(/^[A-Za-z0-9][A-Za-z0-9_-]*$/, "Step id must start with a letter or digit and contain only letters, digits, '_' and '-'");

