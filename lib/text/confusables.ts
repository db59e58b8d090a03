/**
 * Lookalike-aware id matching, used ONLY to phrase a "did you mean …?" hint. Ids are always
 * resolved by exact string equality: an id that merely looks like a real one (Cyrillic 'о',
 * a trailing space, other case) never resolves. Source: docs/design.md §2 ("ids are strings checked
 * to exist in account data"), (confusable ids). Inspired by Unicode UTS #39 skeletons,
 * but deliberately small: NFKC, lowercase, trim, drop invisible characters, then map common
 * Cyrillic/Greek/digit lookalikes onto one Latin representative.
 */

/**
 * Cyrillic and Greek letters that look like Latin ones → that Latin letter (lowercase keys;
 * applied after NFKC + lowercasing). Shared by id skeletons and the text scan
 * (`normalizeForScan`). Source: Unicode confusables.txt (UTS #39), the common subset.
 */
export const SCRIPT_LOOKALIKES: Readonly<Record<string, string>> = {
  // Cyrillic
  "а": "a", "в": "b", "е": "e", "ё": "e", "к": "k", "м": "m", "н": "h", "о": "o",
  "р": "p", "с": "c", "т": "t", "у": "y", "х": "x", "ѕ": "s", "і": "i", "ї": "i", "ј": "j",
  "ԁ": "d", "ӏ": "l", "ԛ": "q", "ԝ": "w", "ь": "b", "п": "n", "г": "r", "һ": "h", "ү": "y",
  // Greek
  "α": "a", "β": "b", "γ": "y", "ε": "e", "η": "n", "ι": "i", "κ": "k", "ν": "v", "ο": "o",
  "ρ": "p", "τ": "t", "υ": "u", "χ": "x", "ω": "w", "ς": "c", "σ": "o", "μ": "u",
};

/** Lookalike → representative for ids: the script lookalikes plus digits, i/l and dashes that are easily swapped in ids. */
const CONFUSABLES: Record<string, string> = {
  ...SCRIPT_LOOKALIKES,
  "з": "3", "і": "l", "ї": "l", "ι": "l",
  // Latin lookalikes and digits that are easily swapped in ids
  "0": "o", "1": "l", "i": "l", "|": "l", "ı": "l", "ł": "l",
  // Dashes and underscores
  "‐": "-", "‑": "-", "‒": "-", "–": "-", "—": "-", "―": "-", "−": "-", "﹘": "-",
  "＿": "_", "‗": "_",
};

/**
 * Zero-width and other invisible characters that are not format characters (\p{Cf}) but render
 * as nothing: combining grapheme joiner, Hangul fillers, Khmer inherent vowels, Mongolian
 * selectors, variation selectors. Together with \p{Cf} (soft hyphen, ZWSP, ZWNJ, ZWJ, word
 * joiner, bidi controls, BOM, tags…) they are what `INVISIBLE` and `normalizeForScan` drop.
 */
const INVISIBLE_NON_FORMAT = String.raw`\u034F\u115F\u1160\u17B4\u17B5\u180B-\u180F\u3164\uFE00-\uFE0F\uFFA0`;

/** Zero-width and other invisible characters that never belong in an id or change what a text says. */
const INVISIBLE = new RegExp(`[\\p{Cf}${INVISIBLE_NON_FORMAT}]|[\\u{E0100}-\\u{E01EF}]`, "gu");

/**
 * Text as a person reads it, for scanning what it says (the promise scan, lib/validation/commitments.ts):
 * Unicode NFKC (fullwidth and compatibility forms → plain: "ｒｅｆｕｎｄ" → "refund", NBSP → space),
 * invisible characters removed (`INVISIBLE`: every format character \p{Cf} — soft hyphen U+00AD,
 * ZWSP U+200B, ZWNJ/ZWJ, word joiner U+2060, BOM U+FEFF, bidi controls — plus invisible fillers
 * and variation selectors), combining marks stripped ("refünd" → "refund"), and Cyrillic/Greek
 * letters folded onto the Latin letter they look like (`SCRIPT_LOOKALIKES`, case kept:
 * "rеfund" with a Cyrillic е → "refund"). Digits and punctuation are kept, so amounts and dates
 * still parse. Never throws; output length ≤ input length for ordinary text.
 */
export function normalizeForScan(text: string): string {
  const plain = text
    .normalize("NFKC")
    .replace(INVISIBLE, "")
    .normalize("NFKD")
    .replace(/\p{Mn}/gu, "")
    .normalize("NFKC");
  let out = "";
  for (const ch of plain) {
    const lower = ch.toLowerCase();
    const folded = SCRIPT_LOOKALIKES[lower];
    out += folded === undefined ? ch : lower === ch ? folded : folded.toUpperCase();
  }
  return out;
}

/**
 * The comparison skeleton of `s`: NFKC, lowercase, trimmed, invisible characters removed,
 * lookalikes folded (e.g. "in_7411９ " and "іn_74119" → the skeleton of "in_74119").
 * Two strings with equal skeletons are visually confusable. Never throws.
 */
export function skeleton(s: string): string {
  let out = "";
  for (const ch of s.normalize("NFKC").toLowerCase().replace(INVISIBLE, "").trim()) {
    out += CONFUSABLES[ch] ?? ch;
  }
  return out;
}

/**
 * Levenshtein edit distance (insert/delete/substitute = 1) between two strings, by code point.
 * O(|a|·|b|) time, O(|b|) memory; callers bound input length (ids are ≤ 128 chars by schema).
 */
export function levenshtein(a: string, b: string): number {
  const x = Array.from(a);
  const y = Array.from(b);
  if (x.length === 0) return y.length;
  if (y.length === 0) return x.length;
  let prev = Array.from({ length: y.length + 1 }, (_, j) => j);
  for (let i = 1; i <= x.length; i++) {
    const cur = [i];
    for (let j = 1; j <= y.length; j++) {
      cur[j] = Math.min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (x[i - 1] === y[j - 1] ? 0 : 1));
    }
    prev = cur;
  }
  return prev[y.length];
}

/** A "did you mean" candidate: the real id and how it relates to what was typed. */
export interface NearestMatch {
  /** The real, existing id to suggest. */
  id: string;
  /** Edit distance between the skeletons (0 = visually identical). */
  distance: number;
  /** True when the input is visually confusable with `id` (equal skeletons) but not equal. */
  lookalike: boolean;
}

/** Longest input we bother to compare (longer strings are not plausible typos of an id). */
const MAX_COMPARE_LENGTH = 256;

/**
 * The candidate closest to `input` by skeleton edit distance, or `null` when nothing is close
 * (distance > max(2, ⌊skeletonLength/3⌋)) or `input` is itself a candidate (exact match needs no
 * hint). Ties break on raw edit distance, then on candidate order. Never throws.
 * Example: `nearest("in_74119 ", ["in_74119", "in_74120"])` → `{id: "in_74119", distance: 0, lookalike: true}`.
 */
export function nearest(input: string, candidates: Iterable<string>): NearestMatch | null {
  if (input.length > MAX_COMPARE_LENGTH) return null;
  const sk = skeleton(input);
  const limit = Math.max(2, Math.floor(Array.from(sk).length / 3));
  let best: { id: string; distance: number; raw: number } | null = null;
  for (const c of candidates) {
    if (c === input) return null;
    if (c.length > MAX_COMPARE_LENGTH) continue;
    const distance = levenshtein(sk, skeleton(c));
    if (distance > limit) continue;
    const raw = levenshtein(input, c);
    if (!best || distance < best.distance || (distance === best.distance && raw < best.raw)) {
      best = { id: c, distance, raw };
    }
  }
  return best ? { id: best.id, distance: best.distance, lookalike: best.distance === 0 } : null;
}

/** Non-Latin lookalikes → the Latin letter a person most likely meant (for search guesses only). */
const LATIN_GUESS: Record<string, string> = {
  "а": "a", "в": "b", "е": "e", "ё": "e", "к": "k", "м": "m", "н": "h", "о": "o", "р": "p", "с": "c", "т": "t",
  "у": "y", "х": "x", "ѕ": "s", "і": "i", "ї": "i", "ј": "j", "ԁ": "d", "ӏ": "l", "ԛ": "q", "ԝ": "w", "ь": "b",
  "α": "a", "β": "b", "ε": "e", "ι": "i", "κ": "k", "ν": "v", "ο": "o", "ρ": "p", "τ": "t", "υ": "u", "χ": "x",
  "ı": "i", "ł": "l",
};

/**
 * Plausible spellings of a mistyped id, for a BOUNDED database lookup of "did you mean"
 * candidates (never a full scan): the input as typed (trimmed), its NFKC form without
 * invisible characters, lowercased, and with non-Latin lookalikes replaced by the Latin letter
 * they imitate. Distinct, non-empty, at most 4 entries. Pure; never throws.
 * Example: `lookalikeGuesses(" іn_7411９")` → `["іn_7411９", "іn_74119", "in_74119"]`.
 */
export function lookalikeGuesses(input: string): string[] {
  if (input.length > MAX_COMPARE_LENGTH) return [];
  const trimmed = input.trim();
  const clean = trimmed.normalize("NFKC").replace(INVISIBLE, "").trim();
  const lower = clean.toLowerCase();
  const latin = Array.from(lower, (ch) => LATIN_GUESS[ch] ?? ch).join("");
  return [...new Set([trimmed, clean, lower, latin])].filter((s) => s.length > 0).slice(0, 4);
}
