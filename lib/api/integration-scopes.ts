import { z } from "zod";

/*
 * What an integration key may do (issue #37: "a ticketing key can also write records"). A key
 * holds one or more scopes, chosen when an admin creates it; every endpoint that takes an
 * integration key declares the one scope it needs (lib/api/contract.ts `Caller`), the route
 * wrapper refuses a key without it (403 `key_scope_missing {scope, keyScopes}`), and the OpenAPI
 * document says which. Client-safe: no server imports.
 */

/** Every scope an integration key can hold, in the order the admin page lists them. */
export const INTEGRATION_SCOPES = ["tasks", "records"] as const;

/** One scope of an integration key. */
export type IntegrationScope = (typeof INTEGRATION_SCOPES)[number];

/** A scope's name, as the admin API takes and answers it. */
export const integrationScopeSchema = z.enum(INTEGRATION_SCOPES);

/** What each scope lets a key do, in words for the admin page and the OpenAPI document. */
export const SCOPE_DESCRIPTIONS: Record<IntegrationScope, string> = {
  tasks: "open tasks, revise them and report ticket events (POST /api/v1/tasks, …/revisions, …/events)",
  records: "write and read records through the records door (PUT, DELETE and GET /api/v1/records/{kind}/{id}, POST /api/v1/records/batch)",
};

/**
 * The scopes stored in `integration_key.scopes` (space-separated, like OAuth scopes), in
 * {@link INTEGRATION_SCOPES} order; unknown words are ignored (a scope removed from a later
 * version grants nothing).
 */
export function parseStoredScopes(stored: string): IntegrationScope[] {
  const words = new Set(stored.split(/\s+/));
  return INTEGRATION_SCOPES.filter((s) => words.has(s));
}

/** `scopes` as stored in `integration_key.scopes`: distinct, in {@link INTEGRATION_SCOPES} order, space-separated. */
export function storedScopes(scopes: readonly IntegrationScope[]): string {
  return INTEGRATION_SCOPES.filter((s) => scopes.includes(s)).join(" ");
}
