/**
 * How an `admin_change` audit event reads on the admins' change log (docs/design.md §11): what
 * was changed, on which target, and each field that differs between the stored `before` and
 * `after`. Pure: no I/O. Values are shown as compact JSON, cut at `VALUE_CHARS`; a field whose
 * name says it holds a credential (secret, password, token, key hash) is shown as "(hidden)" even
 * if a writer stored it — the log is read by people, credentials never reach a page.
 */
import canonicalize from "canonicalize";
import { CURRENCIES, formatMoney, type Money } from "../money/format-money";

/** Longest value shown per field, in characters (the rest is cut with "…"). */
export const VALUE_CHARS = 160;

/** One field that differs between before and after, as display text (`—`: absent). */
export interface ChangedField {
  name: string;
  before: string;
  after: string;
}

/** An admin change as the change log shows it. */
export interface AdminChangeSummary {
  /** The stored `what`, e.g. `grant.set`. */
  what: string;
  /** In words, e.g. "Grant set"; the stored `what` when it is not a known one. */
  label: string;
  /** The changed object, e.g. "user usr_erin" (empty when the event names none). */
  target: string;
  /** The fields that differ, in name order; a creation lists every field of `after`. */
  fields: ChangedField[];
}

/** Known changes in words (the `what` of every writer of `admin_change` in lib/server). */
const LABELS: Record<string, string> = {
  "user.create": "Person created",
  "user.update": "Person changed",
  "user.sessions_end.sso": "Sessions ended by the identity provider",
  "grant.set": "Grant set",
  "passkey_requirement": "Passkey requirement changed",
  "agent.create": "Agent created",
  "agent.update": "Agent changed",
  "agent.allowed_tools": "Agent's allowed tools changed",
  "agent.executes_tools": "Agent's executed tools changed",
  "api_key.create": "Agent key created",
  "api_key.revoke": "Agent key revoked",
  "integration_key.create": "Integration key created",
  "integration_key.revoke": "Integration key revoked",
  "desk.create": "Desk created",
  "desk.intents.save": "Intent catalog saved",
  "desk.mcp_server.register": "Tool server registered",
  "desk.mcp_server.disable": "Tool server disabled",
  "desk.oidc_provider.register": "Identity provider registered",
  "desk.oidc_provider.disable": "Identity provider disabled",
  "desk.record_kind.save": "Record kind saved",
  "desk_rule.create": "Desk rule created",
  "desk_rule.save": "Desk rule saved",
  "gate_policy.save": "Gate policy saved",
  "task.contract": "Task contract changed",
  "tool_catalog.import": "Tools imported",
  "webhook.retry": "Webhook delivery retried",
};

/** Every `what` the change log knows in words. */
export const KNOWN_ADMIN_CHANGES: readonly string[] = Object.keys(LABELS);

/** Field names that hold credentials: never shown. */
const CREDENTIAL = /secret|password|token|hash|private|credential|api[-_]?key$/i;

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/** Money as stored (`{minor, currency}`, minor units). */
const isMoney = (v: unknown): v is Money =>
  isRecord(v) && Object.keys(v).length === 2 && Number.isInteger(v.minor) && (CURRENCIES as readonly unknown[]).includes(v.currency);

/** Money in words ("$250.00"), anything else as compact JSON, cut at VALUE_CHARS; `—` when absent. */
function shown(v: unknown): string {
  if (v === undefined || v === null) return "—";
  if (isMoney(v)) return formatMoney(v);
  const text = typeof v === "string" ? v : (canonicalize(v) ?? String(v));
  return text.length > VALUE_CHARS ? `${text.slice(0, VALUE_CHARS - 1)}…` : text;
}

/** Canonical JSON for comparing two values (key order ignored). */
const same = (a: unknown, b: unknown) => (canonicalize(a ?? null) ?? "") === (canonicalize(b ?? null) ?? "");

/**
 * Describes the `data` of one `admin_change` event (`{what, target: {kind, id}, before, after,
 * …}` as lib/server/admin writes it). Object values are compared field by field; anything else
 * as one field named "value". Never throws, whatever the stored shape.
 */
export function describeAdminChange(data: unknown): AdminChangeSummary {
  const d = isRecord(data) ? data : {};
  const what = typeof d.what === "string" ? d.what : "admin_change";
  const target = isRecord(d.target) ? [d.target.kind, d.target.id].filter((x) => typeof x === "string" && x).join(" ") : "";
  const before = d.before;
  const after = d.after;
  let fields: ChangedField[];
  if (isRecord(before) || isRecord(after)) {
    const b = isRecord(before) ? before : {};
    const a = isRecord(after) ? after : {};
    const names = [...new Set([...Object.keys(b), ...Object.keys(a)])].sort();
    fields = names
      .filter((n) => !same(b[n], a[n]))
      .map((n) => (CREDENTIAL.test(n) ? { name: n, before: n in b ? "(hidden)" : "—", after: n in a ? "(hidden)" : "—" } : { name: n, before: shown(b[n]), after: shown(a[n]) }));
  } else {
    fields = same(before, after) ? [] : [{ name: "value", before: shown(before), after: shown(after) }];
  }
  return { what, label: LABELS[what] ?? what, target, fields };
}
