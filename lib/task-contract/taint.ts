import { foldForScan, originalSpan, type FoldedText } from "../text/scan-map";
import type { TextSource } from "./text-sources";

/**
 * Taint: which text of a step's argument was copied from untrusted task text. A value is
 * *derived from untrusted text* when it shares a run of consecutive words with an untrusted part
 * (a customer's message, an attachment, or a part the instruction scan flagged) that is long
 * enough to be a copy rather than a shared name, id or date:
 * - at least {@link TAINT_MIN_WORDS} words, or
 * - at least {@link TAINT_SHINGLE_WORDS} words that are together at least {@link TAINT_MIN_CHARS}
 *   folded characters long (long words: German and Scandinavian compounds).
 * Both sides are compared folded as a person reads them (`foldForScan`: NFKC, invisible
 * characters, combining marks, look-alike letters, case, spacing, letter-spacing, leetspeak), as
 * words: runs of letters and digits, with ids, dates and amounts ("sh_5521", "2026-04-10",
 * "1,200") one word each; punctuation between words does not count. Any language: words are
 * Unicode letters and digits; in scripts written without spaces (Chinese, Japanese, Thai…) each
 * character is a word worth half a word, so a copy there is at least 12 characters.
 * Source: docs/design.md "Untrusted text: taint and the instruction scan".
 *
 * Cost: the untrusted parts' word 4-grams are hashed into a Map once per validation (linear in the
 * task text, which is bounded: 20 parts per revision of at most 20,000 characters each), and
 * each argument is then scanned once (linear in the argument; a run found is skipped past).
 * Pure; no I/O.
 */

/** Fewest consecutive shared words that make a copy (a clause, not a name or an id). */
export const TAINT_MIN_WORDS = 6;
/** Fewest shared words of a shorter copy that counts by its length in characters ({@link TAINT_MIN_CHARS}); also the shingle size. */
export const TAINT_SHINGLE_WORDS = 4;
/** Fewest folded characters (words and the single spaces between them) of a copy of {@link TAINT_SHINGLE_WORDS}–5 words. */
export const TAINT_MIN_CHARS = 40;

/** At most this many places of one 4-gram are remembered (a phrase a customer repeats is found at its first places). */
const MAX_PLACES = 8;

/** A word of folded text: its folded characters and its offsets `[from, to)` in the folded text. */
interface Word {
  text: string;
  hash: number;
  from: number;
  to: number;
  /** A character of a script written without spaces between words (it counts as half a word). */
  unspaced: boolean;
}

/** Scripts written without spaces between words: each character is a word of its own, worth half a word. */
const UNSPACED = String.raw`\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Thai}\p{Script=Lao}\p{Script=Khmer}\p{Script=Myanmar}`;
const UNSPACED_CHAR = new RegExp(`^[${UNSPACED}]$`, "u");
/** A word: one character of an unspaced script, or letters and digits with ids, dates and amounts joined into one word by the marks inside them. */
const WORD = new RegExp(String.raw`[${UNSPACED}]|(?:(?![${UNSPACED}])[\p{L}\p{N}])+(?:[_\-./:#,'’](?:(?![${UNSPACED}])[\p{L}\p{N}])+)*`, "gu");

/** The words of folded text, each with a 32-bit FNV-1a hash of its characters. Linear. */
function wordsOf(f: FoldedText): Word[] {
  const out: Word[] = [];
  for (const m of f.text.matchAll(WORD)) {
    let h = 0x811c9dc5;
    for (let k = 0; k < m[0].length; k++) h = Math.imul(h ^ m[0].charCodeAt(k), 0x01000193);
    out.push({ text: m[0], hash: h >>> 0, from: m.index, to: m.index + m[0].length, unspaced: UNSPACED_CHAR.test(m[0]) });
  }
  return out;
}

/** The hash of the {@link TAINT_SHINGLE_WORDS} words from `i` (collisions are ruled out by comparing the words). */
function shingleAt(words: readonly Word[], i: number): number {
  let h = 17;
  for (let k = 0; k < TAINT_SHINGLE_WORDS; k++) h = Math.imul(h, 31) + words[i + k].hash;
  return h >>> 0;
}

/** One untrusted part as the index holds it. */
interface IndexedPart {
  partIndex: number;
  source: TextSource;
  text: string;
  folded: FoldedText;
  words: Word[];
}

/** The untrusted parts of a task, hashed for {@link findCopiedRuns}. Built by {@link buildTaintIndex}. */
export interface TaintIndex {
  parts: IndexedPart[];
  /** 4-gram hash → its places: [index into `parts`, word index], customer and attachment parts first. */
  places: Map<number, [number, number][]>;
}

/**
 * The taint index of the parts of `parts` whose indexes are in `untrusted` (see
 * `untrustedPartIndexes`: customer and attachment parts, and parts with instruction-like text).
 * A customer's words pasted into a staff comment are the customer's: they are found in the
 * customer's part, which is indexed first, so a copy is credited to it. `folded[i]`, when given,
 * is `foldForScan(parts[i].text)` (the validator folds each part once for the scan and the index).
 */
export function buildTaintIndex(
  parts: readonly { source: TextSource; text: string }[],
  untrusted: ReadonlySet<number>,
  folded?: readonly FoldedText[],
): TaintIndex {
  const order = [...untrusted].filter((i) => i >= 0 && i < parts.length).sort((a, b) => rank(parts[a].source) - rank(parts[b].source) || a - b);
  const indexed: IndexedPart[] = order.map((i) => {
    const f = folded?.[i] ?? foldForScan(parts[i].text);
    return { partIndex: i, source: parts[i].source, text: parts[i].text, folded: f, words: wordsOf(f) };
  });
  const places = new Map<number, [number, number][]>();
  indexed.forEach((p, pi) => {
    for (let w = 0; w + TAINT_SHINGLE_WORDS <= p.words.length; w++) {
      const h = shingleAt(p.words, w);
      const at = places.get(h);
      if (!at) places.set(h, [[pi, w]]);
      else if (at.length < MAX_PLACES) at.push([pi, w]);
    }
  });
  return { parts: indexed, places };
}

/** Customer and attachment parts before the others (the text's first author is credited). */
function rank(source: TextSource): number {
  return source === "customer_message" || source === "attachment" ? 0 : 1;
}

/**
 * One copied run: where it stands in the value (`start`/`end`, UTF-16 offsets in the value as
 * written, end exclusive), the part it was copied from (`partIndex` in the task's parts, its
 * `source`, and `partStart`/`partEnd` in that part's text), and how many `words` it spans.
 */
export interface CopiedRun {
  start: number;
  end: number;
  partIndex: number;
  source: TextSource;
  partStart: number;
  partEnd: number;
  words: number;
}

/** Whether a shared run of `n` words from `from` in `words` is a copy (see the thresholds above). */
function isCopy(words: readonly Word[], from: number, n: number): boolean {
  let size = 0;
  let chars = n - 1;
  for (let k = from; k < from + n; k++) {
    size += words[k].unspaced ? 0.5 : 1;
    chars += words[k].text.length;
  }
  if (size >= TAINT_MIN_WORDS) return true;
  return size >= TAINT_SHINGLE_WORDS && chars >= TAINT_MIN_CHARS;
}

/**
 * Every run of `value` copied from an untrusted part of `index` (see the thresholds above), in
 * the order they stand in the value; each is the longest shared run at its place. Empty when
 * nothing is copied. Linear in the value (plus the length of each run found). Never throws.
 */
export function findCopiedRuns(index: TaintIndex, value: string, folded: FoldedText = foldForScan(value)): CopiedRun[] {
  if (index.places.size === 0) return [];
  const words = wordsOf(folded);
  const out: CopiedRun[] = [];
  let done = 0; // words before this index belong to a run already found
  let i = 0;
  while (i + TAINT_SHINGLE_WORDS <= words.length) {
    const at = index.places.get(shingleAt(words, i));
    let best: { pi: number; w: number; n: number; back: number } | null = null;
    for (const [pi, w] of at ?? []) {
      const src = index.parts[pi].words;
      let n = 0;
      while (i + n < words.length && w + n < src.length && words[i + n].text === src[w + n].text) n++;
      if (n < TAINT_SHINGLE_WORDS) continue; // a hash collision
      // A common 4-gram may have more places than are remembered: the place found may start later
      // than the copy does, so the run grows backwards too (never into a run already found).
      let back = 0;
      while (i - back > done && w - back > 0 && words[i - back - 1].text === src[w - back - 1].text) back++;
      if (!best || n + back > best.n + best.back) best = { pi, w, n, back };
    }
    const from = best ? i - best.back : i;
    const n = best ? best.n + best.back : 0;
    if (best && isCopy(words, from, n)) {
      const part = index.parts[best.pi];
      const w = best.w - best.back;
      const inValue = originalSpan(folded, words[from].from, words[from + n - 1].to);
      const inPart = originalSpan(part.folded, part.words[w].from, part.words[w + n - 1].to);
      out.push({ start: inValue.start, end: inValue.end, partIndex: part.partIndex, source: part.source, partStart: inPart.start, partEnd: inPart.end, words: n });
      i = done = from + n;
    } else i++;
  }
  return out;
}
