/**
 * Text tells the truth: characters a person cannot see (zero-width characters, bidi controls, the
 * BOM, tags, soft hyphens, no-break spaces that look like spaces) are found, shown as visible
 * markers, and the text a scan reads is the text as displayed (bidi overrides applied). Pure,
 * client-safe (the cards use it too).
 */

/** One character a person cannot see (or cannot tell from another), with its short name. */
export interface HiddenCharacter {
  /** Index in UTF-16 code units. */
  index: number;
  /** "U+202E". */
  codePoint: string;
  /** "RLO" (right-to-left override), "ZWSP", "NBSP"… */
  name: string;
}

/** Short names of the characters that matter most; others are named by their code point. */
const NAMES: Record<number, string> = {
  0x00a0: "NBSP",
  0x00ad: "SHY",
  0x034f: "CGJ",
  0x061c: "ALM",
  0x115f: "HCF",
  0x1160: "HJF",
  0x180e: "MVS",
  0x2007: "FIGSP",
  0x200b: "ZWSP",
  0x200c: "ZWNJ",
  0x200d: "ZWJ",
  0x200e: "LRM",
  0x200f: "RLM",
  0x202a: "LRE",
  0x202b: "RLE",
  0x202c: "PDF",
  0x202d: "LRO",
  0x202e: "RLO",
  0x202f: "NNBSP",
  0x2060: "WJ",
  0x2066: "LRI",
  0x2067: "RLI",
  0x2068: "FSI",
  0x2069: "PDI",
  0x3164: "HF",
  0xfeff: "BOM",
  0xffa0: "HWHF",
};

/**
 * Invisible or deceptive characters: every format character (\p{Cf}: bidi controls, zero-width
 * characters, BOM, soft hyphen, tags), invisible fillers and variation selectors, and spaces that
 * are not U+0020 yet look like it (no-break and narrow spaces). Tabs and newlines are visible
 * layout and are not included.
 */
const HIDDEN = /[\p{Cf}\u00A0\u034F\u115F\u1160\u17B4\u17B5\u180B-\u180F\u2000-\u200A\u202F\u205F\u3000\u3164\uFE00-\uFE0F\uFFA0]|[\u{E0100}-\u{E01EF}]/gu;

/** Every hidden character of `text`, in order. Linear in the text. */
export function findHiddenCharacters(text: string): HiddenCharacter[] {
  const out: HiddenCharacter[] = [];
  for (const m of text.matchAll(HIDDEN)) {
    const cp = m[0].codePointAt(0)!;
    const hex = cp.toString(16).toUpperCase().padStart(4, "0");
    out.push({ index: m.index!, codePoint: `U+${hex}`, name: NAMES[cp] ?? `U+${hex}` });
  }
  return out;
}

/** True when `text` holds a hidden character. */
export function hasHiddenCharacters(text: string): boolean {
  HIDDEN.lastIndex = 0;
  const hit = HIDDEN.test(text);
  HIDDEN.lastIndex = 0;
  return hit;
}

/** One piece of text as a card shows it: plain text, or a marker standing for a hidden character. */
export type MarkedPiece = { kind: "text"; text: string } | { kind: "marker"; name: string; codePoint: string };

/**
 * `text` split into plain runs and markers, one marker per hidden character (rendered e.g. as
 * "⟨RLO⟩"): what the operator reviews is every character, with nothing hidden and no direction
 * change applied. Linear in the text.
 */
export function markHiddenCharacters(text: string): MarkedPiece[] {
  const pieces: MarkedPiece[] = [];
  let at = 0;
  for (const h of findHiddenCharacters(text)) {
    if (h.index > at) pieces.push({ kind: "text", text: text.slice(at, h.index) });
    pieces.push({ kind: "marker", name: h.name, codePoint: h.codePoint });
    at = h.index + String.fromCodePoint(parseInt(h.codePoint.slice(2), 16)).length;
  }
  if (at < text.length) pieces.push({ kind: "text", text: text.slice(at) });
  return pieces;
}

/** `text` with each hidden character replaced by "⟨NAME⟩" (for plain-text places: titles, diffs). */
export function withVisibleMarkers(text: string): string {
  return markHiddenCharacters(text)
    .map((p) => (p.kind === "text" ? p.text : `⟨${p.name}⟩`))
    .join("");
}

const LRE = 0x202a;
const RLE = 0x202b;
const PDF = 0x202c;
const LRO = 0x202d;
const RLO = 0x202e;
const LRI = 0x2066;
const RLI = 0x2067;
const FSI = 0x2068;
const PDI = 0x2069;

/**
 * `text` in the order a person sees it displayed, for scans that must read what the reader reads:
 * a right-to-left override (RLO … PDF, or to the end of the paragraph) shows its characters in
 * reverse ("\u202Ednufer\u202C" reads "refund"), nested overrides and embeddings by the same
 * rule; the controls themselves are removed. A simplification of the Unicode bidi algorithm that
 * is exact for overrides; embeddings and isolates of left-to-right text do not reorder it.
 * Linear in the text (each override span is reversed once per nesting level).
 */
export function toDisplayOrder(text: string): string {
  type Frame = { rtl: boolean; override: boolean; out: string[] };
  const stack: Frame[] = [{ rtl: false, override: false, out: [] }];
  const close = () => {
    if (stack.length === 1) return;
    const f = stack.pop()!;
    // right-to-left: the pieces (single characters, nested runs kept whole) in reverse order
    const s = f.override && f.rtl ? f.out.slice().reverse().join("") : f.out.join("");
    stack[stack.length - 1].out.push(s);
  };
  for (const ch of text) {
    const cp = ch.codePointAt(0)!;
    if (cp === RLO || cp === LRO) stack.push({ rtl: cp === RLO, override: true, out: [] });
    else if (cp === RLE || cp === LRE || cp === RLI || cp === LRI || cp === FSI) stack.push({ rtl: cp === RLE || cp === RLI, override: false, out: [] });
    else if (cp === PDF || cp === PDI) close();
    else if (ch === "\n") {
      while (stack.length > 1) close(); // a paragraph ends every override
      stack[0].out.push(ch);
    } else stack[stack.length - 1].out.push(ch);
  }
  while (stack.length > 1) close();
  return stack[0].out.join("");
}
