import { normalizeForScan } from "./confusables";

/**
 * Text normalised for scanning, with a map back to the original: the same normalisation as the
 * promise scan (`normalizeForScan`: NFKC, invisible characters removed, combining marks stripped,
 * Cyrillic/Greek look-alikes folded onto Latin), then case-folded (lowercase) and every run of
 * whitespace collapsed to one space. `start[k]`/`end[k]` are the UTF-16 offsets in the original
 * text of the character that produced output unit `k` (end exclusive), so a match found in `text`
 * can be shown where it stands in the original.
 */
export interface MappedText {
  text: string;
  start: number[];
  end: number[];
}

/** Normalises `original` code point by code point (see {@link MappedText}). Linear; never throws. */
export function normalizeWithMap(original: string): MappedText {
  let text = "";
  const start: number[] = [];
  const end: number[] = [];
  let lastSpace = true; // nothing yet, or the last unit is a space: whitespace adds nothing
  let asciiFrom = -1; // the start of the pending run of plain ASCII characters, copied at once
  const flushAscii = (to: number) => {
    if (asciiFrom < 0) return;
    text += original.slice(asciiFrom, to).toLowerCase();
    asciiFrom = -1;
  };
  let i = 0;
  while (i < original.length) {
    const code = original.charCodeAt(i);
    // ASCII is its own NFKC form, holds no invisible character, mark or look-alike: only its case
    // folds (the fast path of ordinary text; the result is the same as the slow path's).
    if (code < 0x80) {
      if (code === 32 || (code >= 9 && code <= 13)) {
        flushAscii(i);
        if (lastSpace) {
          if (text !== "") end[end.length - 1] = i + 1;
        } else {
          text += " ";
          start.push(i);
          end.push(i + 1);
          lastSpace = true;
        }
      } else {
        if (asciiFrom < 0) asciiFrom = i;
        start.push(i);
        end.push(i + 1);
        lastSpace = false;
      }
      i++;
      continue;
    }
    flushAscii(i);
    const cp = String.fromCodePoint(original.codePointAt(i)!);
    const from = i;
    i += cp.length;
    const folded = normalizeForScan(cp).toLowerCase();
    if (folded === "") continue;
    if (/^\s+$/u.test(folded)) {
      if (lastSpace) {
        if (text !== "") end[end.length - 1] = i;
        continue;
      }
      text += " ";
      start.push(from);
      end.push(i);
      lastSpace = true;
      continue;
    }
    for (let k = 0; k < folded.length; k++) {
      start.push(from);
      end.push(i);
    }
    text += folded;
    lastSpace = folded.endsWith(" ");
  }
  flushAscii(original.length);
  return { text, start, end };
}

/** The original span `[start, end)` of the normalised match `[from, to)` (to exclusive, to > from). */
export function originalSpan(m: MappedText, from: number, to: number): { start: number; end: number } {
  return { start: m.start[from], end: m.end[to - 1] };
}

/**
 * Text folded for the instruction scan and the taint overlap: {@link normalizeWithMap} plus the
 * disguises a person still reads through. `spaced` lists the `[from, to)` ranges of `text` that
 * were letter-spaced in the original (see {@link foldForScan}).
 */
export interface FoldedText extends MappedText {
  spaced: { from: number; to: number }[];
}

/**
 * Leetspeak digits and signs → the letter they stand for (1→i, 0→o, 3→e, 4→a, 5→s, 7→t, @→a,
 * $→s), applied only inside a word that also holds a letter ("1gn0r3" → "ignore"; "74119" and
 * "$1,200" stay as they are).
 */
export const LEET: Readonly<Record<string, string>> = { "1": "i", "0": "o", "3": "e", "4": "a", "5": "s", "7": "t", "@": "a", $: "s" };

/** A line's quoting: `>` markers (e-mail and markdown quotes, nested "> > "), at the start of a line. */
const QUOTE_MARKERS = /^(?:[ \t]*>)+/gm;
/** One character of a letter-spaced run: a letter, a digit or a leetspeak sign. */
const SPACED_CHAR = /[\p{L}\p{N}@$]/u;
/** What stands between the letters of a letter-spaced run ("i g n o r e", "i.g.n.o.r.e", "i-g-n", and "e / a" between its words). */
const SPACED_SEP = /^[ .\-_*|/·]{1,3}$/u;
/** Fewest letters a letter-spaced run has ("a l l" is three; four or more are a disguise). */
const MIN_SPACED = 4;

/**
 * `original` folded for scanning, with a map back to it (Linear in the text; never throws):
 * - quote markers at the start of a line (`> `, `>> `, `> > `) are blanked first, so a quoted
 *   passage reads as its words (a line break in a quote does not split a phrase);
 * - then {@link normalizeWithMap} (NFKC, invisible characters, combining marks, look-alike
 *   letters, case, whitespace);
 * - letter-spaced runs — at least four single letters or digits, each separated by one to three
 *   of space . - _ * | / · ("i g n o r e", "I.G.N.O.R.E", "a l l / o f") — are joined ("ignore"); their ranges in
 *   the folded text are `spaced` (word boundaries inside them are lost, so the scan reads them
 *   without boundaries);
 * - leetspeak is folded inside words that hold a letter ({@link LEET}: "1gn0r3" → "ignore").
 * Every character of `text` maps back to the original character that produced it.
 */
export function foldForScan(original: string): FoldedText {
  const m = normalizeWithMap(original.replace(QUOTE_MARKERS, (q) => " ".repeat(q.length)));
  const joined = joinSpacedLetters(m);
  return { ...foldLeet(joined), spaced: joined.spaced };
}

/** `m` with letter-spaced runs joined (see {@link foldForScan}); `spaced` are the joined ranges. */
function joinSpacedLetters(m: MappedText): FoldedText {
  // Tokens: single characters separated by short separator runs. Find runs of ≥ MIN_SPACED of them.
  const t = m.text;
  const keep = new Uint8Array(t.length).fill(1);
  const runs: { from: number; to: number; drop: number }[] = [];
  let i = 0;
  while (i < t.length) {
    // a single spaced character: not preceded or followed by another word character
    if (!isSingle(t, i)) {
      i++;
      // skip the rest of a word at once
      while (i < t.length && isSpacedChar(t, i) && isSpacedChar(t, i - 1)) i++;
      continue;
    }
    const letters = [i];
    const seps: [number, number][] = [];
    let j = i + 1;
    for (;;) {
      let k = j;
      while (k < t.length && k - j < 3 && SPACED_SEP.test(t[k])) k++;
      if (k === j || k >= t.length || !SPACED_SEP.test(t.slice(j, k)) || !isSingle(t, k)) break;
      seps.push([j, k]);
      letters.push(k);
      j = k + 1;
    }
    if (letters.length >= MIN_SPACED) {
      let drop = 0;
      for (const [a, b] of seps) {
        for (let x = a; x < b; x++) keep[x] = 0;
        drop += b - a;
      }
      runs.push({ from: i, to: letters[letters.length - 1] + 1, drop });
      i = letters[letters.length - 1] + 1;
    } else i = letters.length > 1 ? letters[1] : i + 1;
  }
  if (runs.length === 0) return { ...m, spaced: [] };
  let text = "";
  const start: number[] = [];
  const end: number[] = [];
  const newIndex = new Int32Array(t.length + 1);
  for (let x = 0; x < t.length; x++) {
    newIndex[x] = text.length;
    if (!keep[x]) continue;
    text += t[x];
    start.push(m.start[x]);
    end.push(m.end[x]);
  }
  newIndex[t.length] = text.length;
  return { text, start, end, spaced: runs.map((r) => ({ from: newIndex[r.from], to: newIndex[r.to - 1] + 1 })) };
}

/** True when `t[i]` is a letter, digit or leet sign standing alone (no word character right before or after it). */
function isSingle(t: string, i: number): boolean {
  return isSpacedChar(t, i) && !isSpacedChar(t, i - 1) && !isSpacedChar(t, i + 1);
}

/** `SPACED_CHAR` at `t[i]` (false outside the text), with a fast path for ASCII. */
function isSpacedChar(t: string, i: number): boolean {
  const c = t.charCodeAt(i);
  if (Number.isNaN(c)) return false;
  if (c < 0x80) return (c >= 97 && c <= 122) || (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || c === 64 || c === 36;
  return SPACED_CHAR.test(t[i]);
}

/** A leetspeak character next to a letter: the only text `foldLeet` changes. */
const LEET_NEXT_TO_LETTER = /\p{L}[013457@$]|[013457@$]\p{L}/u;

/** `m` with leetspeak folded inside words that hold a letter (one character for one: the map is unchanged). */
function foldLeet(m: MappedText): MappedText {
  if (!LEET_NEXT_TO_LETTER.test(m.text)) return m;
  let changed = false;
  const text = m.text.replace(/[\p{L}\p{N}@$]+/gu, (w) => {
    if (!/\p{L}/u.test(w) || !/[013457@$]/.test(w)) return w;
    changed = true;
    return w.replace(/[013457@$]/g, (c) => LEET[c]);
  });
  return changed ? { ...m, text } : m;
}
