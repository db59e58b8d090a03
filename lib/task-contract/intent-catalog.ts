import { z } from "zod";
import { intentSchema, type Intent } from "./schema";

/**
 * A desk's intent catalog as an admin edits it (docs/design.md, the task contract): the intents a task contract of that desk may name, each with the tools it permits.
 * The catalog is saved whole, like a gate-policy draft: the editor sends the catalog it started
 * from as `baseDigest` (optimistic concurrency) and the full new list. Client-safe: no server
 * imports, so the form and the server parse with the same schema.
 */

/** The most intents one desk's catalog holds (the validator and the contract form load it whole). */
export const MAX_INTENTS = 100;

/** A catalog digest: lowercase hex SHA-256 of the canonical JSON of the catalog's intents and default intent (intentCatalogDigest on the server). */
export const catalogDigestSchema = z.string().regex(/^[0-9a-f]{64}$/, "A catalog digest is 64 lowercase hex characters");

/**
 * Body of `PUT /api/admin/desks/{deskId}/intents`: the digest of the catalog the editor opened,
 * the new catalog in display order (names unique; each permitted tool at most once), why it
 * changes, and optionally the desk's default intent — the intent a task gets when the integration
 * posts no contract (docs/design.md "The task contract"): the name of an intent of the new
 * catalog, null to declare none (the built-in intent permitting only replies and notes applies), or
 * absent to keep the current one. Errors it describes (400 `bad_request` {issues}): a bad name or
 * label, a duplicate name, a tool listed twice, more than MAX_INTENTS intents, a missing note, a
 * default intent that is not an intent of the new catalog (path `defaultIntent`).
 */
export const intentCatalogDraftSchema = z
  .object({
    baseDigest: catalogDigestSchema,
    intents: z.array(intentSchema).max(MAX_INTENTS, `A desk has at most ${MAX_INTENTS} intents`),
    note: z.string().trim().min(1, "Say why the catalog changes.").max(500),
    defaultIntent: z.string().max(64).nullable().optional().meta({
      description: "The intent a task gets when the integration posts no contract: an intent of `intents`; null: none (only replies and notes are permitted); absent: unchanged.",
    }),
  })
  .strict()
  .superRefine((d, ctx) => {
    if (typeof d.defaultIntent === "string" && !d.intents.some((i) => i.name === d.defaultIntent)) {
      ctx.addIssue({ code: "custom", path: ["defaultIntent"], message: `"${d.defaultIntent}" is not an intent of this catalog; the default intent must be one of its intents` });
    }
    const seen = new Map<string, number>();
    d.intents.forEach((intent, i) => {
      const first = seen.get(intent.name);
      if (first !== undefined) ctx.addIssue({ code: "custom", path: ["intents", i, "name"], message: `"${intent.name}" is already intent ${first + 1}; names are unique` });
      else seen.set(intent.name, i);
      const tools = new Set<string>();
      intent.permittedTools.forEach((t, j) => {
        if (tools.has(t)) ctx.addIssue({ code: "custom", path: ["intents", i, "permittedTools", j], message: `${t} is listed twice` });
        tools.add(t);
      });
    });
  });
export type IntentCatalogDraft = z.output<typeof intentCatalogDraftSchema>;

/** One problem of a draft against the desk's tool catalog: where it is and what is wrong. */
export interface IntentCatalogIssue {
  path: string;
  code: "unknown_tool";
  message: string;
}

/**
 * The permitted tools of `intents` that are not tools of the current catalog (built-in or
 * imported), e.g. a typo or a tool whose import was replaced. Pure; [] when every tool is known.
 */
export function unknownPermittedTools(intents: readonly Intent[], knownTools: ReadonlySet<string>): IntentCatalogIssue[] {
  const issues: IntentCatalogIssue[] = [];
  intents.forEach((intent, i) =>
    intent.permittedTools.forEach((tool, j) => {
      if (!knownTools.has(tool)) issues.push({ path: `intents.${i}.permittedTools.${j}`, code: "unknown_tool", message: `${tool} is not a tool of the catalog` });
    }),
  );
  return issues;
}

/**
 * What a save changes, for the audit and the toast: intents added, removed and changed (label,
 * description or tools), by name. Pure.
 */
export function catalogChanges(before: readonly Intent[], after: readonly Intent[]): { added: string[]; removed: string[]; changed: string[] } {
  const old = new Map(before.map((i) => [i.name, i]));
  const now = new Map(after.map((i) => [i.name, i]));
  const same = (a: Intent, b: Intent) => a.label === b.label && a.description === b.description && a.permittedTools.join("\n") === b.permittedTools.join("\n");
  return {
    added: after.filter((i) => !old.has(i.name)).map((i) => i.name),
    removed: before.filter((i) => !now.has(i.name)).map((i) => i.name),
    changed: after.filter((i) => old.has(i.name) && !same(old.get(i.name)!, i)).map((i) => i.name),
  };
}

/**
 * The editor's form: the draft with each intent's permitted tools as checkbox values
 * (react-hook-form gives the checked values, or false when none is checked), the description
 * as typed and the default intent as a select's value ("" = none). `intentCatalogFormSchema` turns the form into the draft and validates it with the
 * draft schema the server uses.
 */
export const intentCatalogFormSchema = z
  .object({
    baseDigest: z.string(),
    note: z.string(),
    /** The select's value: an intent name, or "" for none. */
    defaultIntent: z.string().optional(),
    intents: z.array(
      z.object({
        name: z.string(),
        label: z.string(),
        description: z.string().optional(),
        permittedTools: z.union([z.array(z.string()), z.literal(false)]).optional(),
      }),
    ),
  })
  .transform(({ defaultIntent, ...f }) => ({
    ...f,
    ...(defaultIntent === undefined ? {} : { defaultIntent: defaultIntent || null }),
    intents: f.intents.map((i) => ({ ...i, permittedTools: i.permittedTools || [] })),
  }))
  .pipe(intentCatalogDraftSchema);
export type IntentCatalogForm = z.input<typeof intentCatalogFormSchema>;
