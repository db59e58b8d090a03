/*
 * Where the parts of a task's text come from, and how each reads for people: apart from the task
 * contract's schema (./schema.ts, which re-exports them) so the run page's task panel loads no zod
 * (docs/design.md "Page weight"). Plain data.
 */

/** Where a part of a task's text came from. Customer and attachment text is data, never instruction. */
export const TEXT_SOURCES = ["customer_message", "attachment", "staff", "system"] as const;
export type TextSource = (typeof TEXT_SOURCES)[number];

/** Sources whose text is untrusted: it may be quoted as data but never authorises anything. */
export const UNTRUSTED_SOURCES: readonly TextSource[] = ["customer_message", "attachment"];

/** True when text from `source` is untrusted (a customer's message or an attachment). */
export function isUntrustedSource(source: TextSource): boolean {
  return UNTRUSTED_SOURCES.includes(source);
}

/** How a source reads for people ("customer message"). */
export const TEXT_SOURCE_LABELS: Record<TextSource, string> = {
  customer_message: "customer message",
  attachment: "attachment",
  staff: "staff",
  system: "system",
};
