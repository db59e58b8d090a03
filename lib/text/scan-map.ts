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

/** Normalises `original` code point by code point (see {@link MappedText}). Never throws. */
export function normalizeWithMap(original: string): MappedText {
  let text = "";
  const start: number[] = [];
  const end: number[] = [];
  let i = 0;
  for (const cp of original) {
    const from = i;
    i += cp.length;
    const folded = normalizeForScan(cp).toLowerCase();
    if (folded === "") continue;
    if (/^\s+$/u.test(folded)) {
      if (text === "" || text.endsWith(" ")) {
        if (text !== "") end[end.length - 1] = i;
        continue;
      }
      text += " ";
      start.push(from);
      end.push(i);
      continue;
    }
    for (let k = 0; k < folded.length; k++) {
      start.push(from);
      end.push(i);
    }
    text += folded;
  }
  return { text, start, end };
}

/** The original span `[start, end)` of the normalised match `[from, to)` (to exclusive, to > from). */
export function originalSpan(m: MappedText, from: number, to: number): { start: number; end: number } {
  return { start: m.start[from], end: m.end[to - 1] };
}
