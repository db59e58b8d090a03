/**
 * How one changed argument of the semantic diff reads for people (issue 14): a label from the
 * tool catalog's field labels instead of a raw path, money with its currency, dates in the one
 * date presentation with their shift, and word-level highlights for changed text (the `diff`
 * package does the alignment; only the presentation is ours). Pure and client-safe (no
 * `node:` imports), so the review screen and the audit page render the same words.
 */
import { diffWordsWithSpace } from "diff";
import { withVisibleMarkers } from "../text/hidden-characters";
import { isIsoDate } from "../time/dates";
import { formatDateShift, formatIsoDate } from "../text/format";
import { formatMoney, type Money } from "../money/format-money";
import type { FieldSpec } from "../tools/types";
import type { PathSegment } from "./plan-diff";

/** Labels of the nested keys people meet in the built-in tools ("window.from" → "from"). */
const SUBKEY_LABEL: Record<string, string> = { from: "first day", to: "last day", minor: "amount", currency: "currency" };

/**
 * The label of an argument path for people: the catalog field's label for the top-level key,
 * then the nested keys in words, e.g. `["args", "window", "from"]` with reschedule_delivery's
 * fields → "Delivery window, first day"; `["args", "items", 2, "sku"]` → "items, item 3, sku".
 * Falls back to the key itself when the tool has no label for it.
 */
export function fieldLabel(segments: readonly PathSegment[], fields: readonly FieldSpec[] = []): string {
  const rel = segments[0] === "args" ? segments.slice(1) : segments;
  if (rel.length === 0) return "arguments";
  const [top, ...rest] = rel;
  const head = typeof top === "string" ? (fields.find((f) => f.name === top)?.label ?? top) : `item ${top + 1}`;
  return [head, ...rest.map((s) => (typeof s === "number" ? `item ${s + 1}` : (SUBKEY_LABEL[s] ?? s)))].join(", ");
}

function isMoney(v: unknown): v is Money {
  return !!v && typeof v === "object" && typeof (v as Money).minor === "number" && typeof (v as Money).currency === "string" && Object.keys(v).length === 2;
}

/**
 * One value for people: money as "$1,489.00" / "NOK 14.89", an ISO date as "Mon 7 Dec 2026"
 * (with "(+4 days)" when `previous` is the date it replaced), absent as "(none)", other strings
 * as written, other JSON as compact JSON.
 */
export function displayValue(v: unknown, previous?: unknown): string {
  if (v === undefined) return "(none)";
  if (isMoney(v)) return formatMoney(v);
  if (typeof v === "string" && isIsoDate(v)) return typeof previous === "string" && isIsoDate(previous) ? formatDateShift(v, previous) : formatIsoDate(v);
  return typeof v === "string" ? v : JSON.stringify(v);
}

/** A run of text in a word-level comparison: unchanged, only before (`removed`), or only after (`added`). */
export interface TextPart {
  text: string;
  kind: "same" | "added" | "removed";
}

/**
 * Word-level comparison of two texts (the `diff` package's `diffWordsWithSpace`: whitespace is
 * compared too), for highlighting what
 * changed inside a paragraph instead of showing it twice. Whitespace-only differences count.
 */
export function wordDiff(before: string, after: string): TextPart[] {
  // With the whitespace: a space moved or turned into a no-break space is a change a person must see.
  return diffWordsWithSpace(before, after).map((c) => ({ text: c.value, kind: c.added ? "added" : c.removed ? "removed" : "same" }));
}

/** True when a change is worth a word-level highlight: both sides are text that is not a date and one of them has more than three words. */
export function isProse(before: unknown, after: unknown): boolean {
  if (typeof before !== "string" || typeof after !== "string") return false;
  const words = (t: string) => t.split(/\s+/).length;
  const dated = isIsoDate(before as unknown) || isIsoDate(after as unknown);
  return !dated && (words(before) > 3 || words(after) > 3);
}

/**
 * True when two strings differ only in whitespace or hidden characters (a space moved, a space
 * turned into a no-break space, a zero-width character added): invisible in plain text, so the
 * review screen marks the change and shows the whitespace ({@link showWhitespace}).
 */
export function whitespaceOnlyChange(before: unknown, after: unknown): boolean {
  if (typeof before !== "string" || typeof after !== "string" || before === after) return false;
  const bare = (t: string) => t.replace(/[\s\p{Cf}\u00a0\u2000-\u200b\u202f\u205f\u3000\ufeff]/gu, "");
  return bare(before) === bare(after);
}

/**
 * `text` with whitespace made visible: a space as "␣", a tab as "⇥", a newline as "↵", and every
 * other space-like or hidden character as "⟨NAME⟩" (lib/text/hidden-characters.ts).
 */
export function showWhitespace(text: string): string {
  return withVisibleMarkers(text).replace(/ /g, "␣").replace(/\t/g, "⇥").replace(/\n/g, "↵");
}
