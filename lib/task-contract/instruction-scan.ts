import { normalizeWithMap, originalSpan } from "../text/scan-map";
import { z } from "zod";
import { isUntrustedSource, TEXT_SOURCES, type TaskTextPart } from "./schema";
import { INSTRUCTION_KINDS, type InstructionKind } from "./instruction-kinds";

/**
 * The instruction scan: sentences in untrusted text (a customer's message, an attachment) that
 * read as instructions to the assistant or as claims of authority. Such text is data; it never
 * authorises a step. The scan runs on text normalised as a person reads it (NFKC, case folded,
 * look-alike letters folded, invisible characters removed, whitespace collapsed:
 * `normalizeWithMap`), so "ＩＧＮＯＲＥ your previous instructions", "ignоre" with a Cyrillic о or
 * "ig\u200Bnore" are found like the plain words. Pure; no I/O.
 */


export { INSTRUCTION_KINDS, INSTRUCTION_KIND_LABELS, type InstructionKind } from "./instruction-kinds";

/** One flagged span: the part it is in, its UTF-16 offsets in that part's text (end exclusive) and what it looks like. */
export const instructionFlagSchema = z.object({
  partIndex: z.number().int(),
  source: z.enum(TEXT_SOURCES),
  start: z.number().int(),
  end: z.number().int(),
  kind: z.enum(INSTRUCTION_KINDS),
  /** The flagged text as written in the part. */
  excerpt: z.string(),
});
/** A parsed {@link instructionFlagSchema}. */
export type InstructionFlag = z.output<typeof instructionFlagSchema>;

/** Between words: up to three spaces or separators (bounded, so no pattern backtracks over a long run of dashes). */
const SEP = String.raw`[\s\-_.,:;*|/]{0,3}`;

/** The patterns, on normalised lowercase text. Each names its kind. */
const PATTERNS: { kind: InstructionKind; re: RegExp }[] = [
  {
    kind: "addresses_assistant",
    re: new RegExp(
      String.raw`\b(?:(?:note|message|instructions?)${SEP})?(?:to|for|dear|hey|hi|hello|attention|attn)${SEP}(?:(?:the|our|your)${SEP})?(?:ai(?:${SEP}(?:assistant|agent|model|system|bot))?|assistant|chat${SEP}bot|llm|language${SEP}model|automated${SEP}(?:agent|system))\b`,
      "gu",
    ),
  },
  { kind: "addresses_assistant", re: new RegExp(String.raw`\bai${SEP}(?:assistant|agent)\b`, "gu") },
  { kind: "addresses_assistant", re: new RegExp(String.raw`\b(?:you${SEP}are${SEP}an?${SEP}ai|as${SEP}an${SEP}ai(?:${SEP}(?:assistant|model))?)\b`, "gu") },
  {
    kind: "override_instructions",
    re: new RegExp(
      String.raw`\b(?:ignore|disregard|forget|override|bypass)${SEP}(?:(?:all|any|each|every)${SEP})?(?:(?:of${SEP})?(?:your|the|my|these|those)${SEP})?(?:(?:previous|prior|earlier|above|preceding|existing|original|system|safety)${SEP})?(?:instructions?|prompts?|rules?|directions?|directives?|guidelines?|policy|policies|constraints?)\b`,
      "gu",
    ),
  },
  { kind: "override_instructions", re: new RegExp(String.raw`\bnew${SEP}instructions?${SEP}:`, "gu") },
  { kind: "override_instructions", re: new RegExp(String.raw`\byou${SEP}are${SEP}now\b`, "gu") },
  { kind: "claims_approval", re: new RegExp(String.raw`\bpre${SEP}approved\b`, "gu") },
  {
    kind: "claims_approval",
    re: new RegExp(
      String.raw`\b(?:approved|authori[sz]ed|signed${SEP}off|cleared|sanctioned)${SEP}by${SEP}(?:(?:the|our|your|my)${SEP})?(?:finance|management|manager|managers|supervisor|supervisors|legal|accounting|billing|compliance|head${SEP}office|ceo|cfo|director|admin|administrator|administration)\b`,
      "gu",
    ),
  },
  { kind: "claims_approval", re: new RegExp(String.raw`\b(?:finance|management|legal|compliance|your${SEP}supervisor)${SEP}(?:has|have)${SEP}(?:already${SEP})?(?:approved|authori[sz]ed|signed${SEP}off)\b`, "gu") },
  { kind: "claims_role", re: new RegExp(String.raw`(?:^|[\s\[(<{])(?:system|admin|administrator|developer)${SEP}(?::|\]|>)`, "gu") },
  { kind: "claims_role", re: new RegExp(String.raw`<${SEP}/?${SEP}(?:system|instructions?)${SEP}>`, "gu") },
  {
    kind: "claims_role",
    re: new RegExp(String.raw`\b(?:as|i${SEP}am|this${SEP}is)${SEP}(?:your|the)${SEP}(?:administrator|admin|developer|supervisor|manager|operator|creator|owner|system)\b`, "gu"),
  },
];

/**
 * Flags instruction-like text in one string: every match of the patterns, as original offsets
 * `[start, end)` in `text`, overlapping matches merged (the first kind kept). Sorted by start.
 */
export function scanInstructionText(text: string): { start: number; end: number; kind: InstructionKind }[] {
  const mapped = normalizeWithMap(text);
  const hits: { from: number; to: number; kind: InstructionKind }[] = [];
  for (const { kind, re } of PATTERNS) {
    re.lastIndex = 0;
    for (const m of mapped.text.matchAll(re)) {
      let from = m.index;
      let to = from + m[0].length;
      while (from < to && /[\s\-_.,:;*|/\[(<{]/.test(mapped.text[from])) from++; // the lead-in the pattern needed is not the flag
      while (to > from && /[\s\-_.,;*|/]/.test(mapped.text[to - 1])) to--;
      if (to > from) hits.push({ from, to, kind });
    }
  }
  hits.sort((a, b) => a.from - b.from || b.to - a.to);
  const merged: typeof hits = [];
  for (const h of hits) {
    const last = merged[merged.length - 1];
    if (last && h.from < last.to) last.to = Math.max(last.to, h.to);
    else merged.push({ ...h });
  }
  return merged.map((h) => ({ ...originalSpan(mapped, h.from, h.to), kind: h.kind }));
}

/**
 * Flags instruction-like text in every part of a task's text. Customer messages and attachments are
 * untrusted anyway; a staff or system part is scanned too, because its source is only what the
 * integration says (a ticket comment posted as `comment` is recorded as staff text, and is often a
 * customer's words pasted) — a part that carries such text is then untrusted as well
 * ({@link untrustedPartIndexes}). `partIndex` is the part's index in `parts`.
 */
export function scanInstructions(parts: readonly Pick<TaskTextPart, "source" | "text">[]): InstructionFlag[] {
  const flags: InstructionFlag[] = [];
  parts.forEach((p, partIndex) => {
    for (const h of scanInstructionText(p.text)) {
      flags.push({ partIndex, source: p.source, start: h.start, end: h.end, kind: h.kind, excerpt: p.text.slice(h.start, h.end) });
    }
  });
  return flags;
}


/**
 * The indexes of the parts whose text is untrusted: customer messages and attachments
 * (isUntrustedSource), and any other part that `flags` (scanInstructions of the same parts) found
 * instruction-like text in. A step quoting such a part is never approved by the gate policy alone.
 */
export function untrustedPartIndexes(parts: readonly Pick<TaskTextPart, "source">[], flags: readonly Pick<InstructionFlag, "partIndex">[]): Set<number> {
  const out = new Set(flags.map((f) => f.partIndex));
  parts.forEach((p, i) => {
    if (isUntrustedSource(p.source)) out.add(i);
  });
  return out;
}
