import { foldForScan, originalSpan, type FoldedText } from "../text/scan-map";
import { z } from "zod";
import { isUntrustedSource, TEXT_SOURCES, type TaskTextPart } from "./schema";
import { INSTRUCTION_KINDS, type InstructionKind } from "./instruction-kinds";

/**
 * The instruction scan: sentences in untrusted text (a customer's message, an attachment) that
 * read as instructions to the assistant or as claims of authority, in English, German, French,
 * Spanish, Norwegian, Swedish and Danish, plus the structural cues of a prompt: a role label
 * ("SYSTEM:", "Assistant:" at the start of a line), chat-template markers ("[INST]",
 * "<|im_start|>", "<<SYS>>"), text addressing the assistant, AI or bot. Such text is data; it
 * never authorises a step. The scan runs on text folded as a person reads it (`foldForScan`: NFKC,
 * case folded, look-alike letters folded, invisible characters removed, whitespace collapsed,
 * e-mail and markdown quote markers blanked, letter-spaced runs joined, leetspeak folded), so
 * "ＩＧＮＯＲＥ your previous instructions", "ignоre" with a Cyrillic о, "ig\u200Bnore",
 * "> ignore your previous\n> instructions", "i g n o r e all previous instructions" and
 * "1gn0r3 4ll pr3v10u5 1n5truct10n5" are found like the plain words. It is one of two signals:
 * the other is taint (./taint.ts), which finds an argument that copies untrusted text whatever
 * it says. Pure; no I/O.
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
/** Up to `n` filler words between the parts of a phrase (each followed by a separator: no ambiguity to backtrack over). */
const FILLER = (n: number, not = "") => String.raw`(?:${not ? `(?!(?:${not})(?![\p{L}\p{N}]))` : ""}[\p{L}\p{N}'’$]+[\s\-_.,:;*|/]{1,3}){0,${n}}`;
/** An apostrophe as typed or as a word processor writes it. */
const AP = "['’]";
/** Negations that turn a claimed approval into its opposite ("finance has not approved"). */
const NEGATION = "not|never|nicht|nie|noch|kein|keine|pas|jamais|no|nunca|ikke|inte|aldri|aldrig";

/**
 * The patterns, on folded text (lowercase, marks stripped — é → e, ü → u, å → a; ø, æ and ß stay
 * — look-alikes and leetspeak folded: `foldForScan`). `\b` is a Unicode word boundary here (letters
 * and digits of any script), not JavaScript's ASCII one. Each names its kind; `lineStart` patterns
 * count only at the start of a line of the original (a role label such as "Assistant:" in a
 * pasted chat transcript), so "our system: it failed" mid-sentence is not a role label.
 * Languages: English, German, French, Spanish, Norwegian, Swedish, Danish.
 */
const PATTERN_SOURCES: { kind: InstructionKind; src: string; lineStart?: boolean; leadIn?: boolean }[] = [
  // ── English ──
  {
    kind: "addresses_assistant",
    src: String.raw`\b(?:(?:note|message|instructions?)${SEP})?(?:to|for|dear|hey|hi|hello|attention|attn)${SEP}(?:(?:the|our|your)${SEP})?(?:ai(?:${SEP}(?:assistant|agent|model|system|bot))?|assistant|chat${SEP}?bot|bot|(?:chat${SEP}?)?gpt|copilot|llm|language${SEP}model|automated${SEP}(?:agent|system))\b`,
  },
  { kind: "addresses_assistant", src: String.raw`\bai${SEP}(?:assistant|agent)\b` },
  { kind: "addresses_assistant", src: String.raw`\b(?:you${SEP}are${SEP}an?${SEP}ai|as${SEP}an${SEP}ai(?:${SEP}(?:assistant|model))?)\b` },
  { kind: "addresses_assistant", src: String.raw`\b(?:your|the)${SEP}system${SEP}prompt\b` },
  {
    kind: "override_instructions",
    src: String.raw`\b(?:ignore|disregard|forget|override|bypass)${SEP}(?:(?:all|any|each|every)${SEP})?(?:(?:of${SEP})?(?:your|the|my|these|those)${SEP})?(?:(?:previous|prior|earlier|above|preceding|existing|original|system|safety)${SEP})?(?:instructions?|prompts?|rules?|directions?|directives?|guidelines?|policy|policies|constraints?)\b`,
  },
  { kind: "override_instructions", src: String.raw`\bnew${SEP}instructions?${SEP}:` },
  { kind: "override_instructions", src: String.raw`\byou${SEP}are${SEP}now\b` },
  { kind: "override_instructions", src: String.raw`\bfrom${SEP}now${SEP}on${SEP}(?:you|the${SEP}assistant)${SEP}(?:are|will|must|should|shall)\b` },
  { kind: "claims_approval", src: String.raw`\bpre${SEP}approved\b` },
  {
    kind: "claims_approval",
    src: String.raw`\b(?:approved|authori[sz]ed|signed${SEP}off|cleared|sanctioned)${SEP}by${SEP}(?:(?:the|our|your|my)${SEP})?(?:finance|management|manager|managers|supervisor|supervisors|legal|accounting|billing|compliance|head${SEP}office|ceo|cfo|director|admin|administrator|administration)\b`,
  },
  { kind: "claims_approval", src: String.raw`\b(?:finance|management|legal|compliance|your${SEP}supervisor)${SEP}(?:has|have)${SEP}(?:already${SEP})?(?:approved|authori[sz]ed|signed${SEP}off)\b` },
  { kind: "claims_role", src: String.raw`(?:^|[\s\[(<{])(?:system|admin|administrator|developer)${SEP}(?::|\]|>)`, leadIn: true },
  { kind: "claims_role", src: String.raw`<${SEP}/?${SEP}(?:system|instructions?)${SEP}>` },
  {
    kind: "claims_role",
    src: String.raw`\b(?:as|i${SEP}am|this${SEP}is)${SEP}(?:your|the)${SEP}(?:administrator|admin|developer|supervisor|manager|operator|creator|owner|system)\b`,
  },
  // ── Chat-template markers and role labels, any language ──
  { kind: "claims_role", src: String.raw`\[\s?/?\s?inst\s?\]|<<\s?/?\s?sys\s?>>|<\s?\|\s?(?:im_start|im_end|system|assistant|user|endoftext|eot_id|start_header_id|end_header_id)\s?\|\s?>` },
  { kind: "claims_role", src: String.raw`#{2,}\s?(?:system|instructions?|system${SEP}prompt|anweisung(?:en)?|instrucciones|instruksjoner|instruktioner)\b` },
  {
    kind: "claims_role",
    src: String.raw`\b(?:system|systeme|sistema|systemet|assistant|assistent|assistente|asistente|assistenten|ai|ki|ia|bot|chatbot|developer|entwickler|developpeur|desarrollador|utvikler|udvikler|utvecklare)\s?:`,
    lineStart: true,
  },
  // ── German ──
  {
    kind: "addresses_assistant",
    src: String.raw`\b(?:(?:hinweis|nachricht|notiz|anweisung(?:en)?)${SEP})?(?:(?:an|fur)${SEP}(?:die|den|das|der|dich|unsere[nr]?|ihre[nr]?|deine[nr]?)|(?:liebe[rs]?|hallo|hey|hi|achtung)(?:${SEP}(?:die|den|das|der|unsere[nr]?|ihre[nr]?))?)${SEP}(?:ki|ai|(?:ki|ai|virtuelle[rn]?)${SEP}?(?:assistent(?:en|in)?|agent(?:en)?|system)|chat${SEP}?bot|bot|sprachmodell)\b`,
  },
  { kind: "addresses_assistant", src: String.raw`\bki${SEP}assistent(?:en|in)?\b|\b(?:du${SEP}bist${SEP}(?:eine?${SEP})?ki|als${SEP}(?:ki|sprachmodell))\b` },
  {
    kind: "override_instructions",
    src: String.raw`\b(?:ignorier(?:e|en|t)?|vergiss|vergessen|missachte[nt]?|uberschreibe?n?|umgehe?n?)${SEP}(?:sie${SEP})?(?:(?:alle|samtliche|jegliche|jede)${SEP})?(?:(?:deine|ihre|die|der|den|dein|ihr|diese|unsere)${SEP})?(?:(?:vorherige[nr]?|bisherige[nr]?|fruhere[nr]?|obige[nr]?|alte[nr]?|ursprungliche[nr]?|vorangegangene[nr]?)${SEP})?(?:anweisung(?:en)?|instruktion(?:en)?|regeln?|vorgaben?|richtlinien?|befehle?|anordnung(?:en)?|systemanweisung(?:en)?)\b`,
  },
  { kind: "override_instructions", src: String.raw`\bneue${SEP}(?:anweisung(?:en)?|instruktion(?:en)?)${SEP}:|\b(?:ab${SEP}(?:jetzt|sofort)${SEP}bist${SEP}du|du${SEP}bist${SEP}(?:jetzt|nun|ab${SEP}jetzt)${SEP}(?:ein|eine|der|die|im))\b` },
  { kind: "claims_approval", src: String.raw`\bvorab${SEP}(?:genehmigt|freigegeben|bewilligt)\b|\bvorabgenehmigt\b` },
  {
    kind: "claims_approval",
    src: String.raw`\b(?:genehmigt|freigegeben|bewilligt|abgesegnet|autorisiert)${SEP}(?:durch|von)${SEP}(?:(?:die|den|der|das|dem|unsere[nrm]?|ihre[nrm]?|meine[nrm]?)${SEP})?(?:finanzabteilung|buchhaltung|geschaftsleitung|geschaftsfuhrung|leitung|management|vorgesetzten?|chef(?:in)?|abteilungsleit(?:er|erin|ung)|finanzen|compliance|rechtsabteilung|direktor(?:in)?|verwaltung|administrator)\b`,
  },
  {
    kind: "claims_approval",
    src: String.raw`\b(?:von|durch)${SEP}(?:(?:der|dem|die|ihrer|unserer|ihrem|unserem)${SEP})?(?:finanzabteilung|buchhaltung|geschaftsleitung|geschaftsfuhrung|leitung|management|vorgesetzten|chef(?:in)?)${SEP}(?:(?:bereits|schon|vorab)${SEP})?(?:genehmigt|freigegeben|bewilligt|abgesegnet|autorisiert)\b`,
  },
  {
    kind: "claims_approval",
    src: String.raw`\b(?:finanzabteilung|buchhaltung|geschaftsleitung|geschaftsfuhrung|management|rechtsabteilung|ihr${SEP}vorgesetzter|ihre${SEP}vorgesetzte|ihr${SEP}chef)${SEP}hat${SEP}${FILLER(4, NEGATION)}(?:genehmigt|freigegeben|bewilligt|abgesegnet|autorisiert)\b`,
  },
  { kind: "claims_role", src: String.raw`\b(?:als|ich${SEP}bin)${SEP}(?:ihr|dein|der|ihre|deine|die)${SEP}(?:administrator(?:in)?|admin|entwickler(?:in)?|systemadministrator(?:in)?|vorgesetzte[r]?)\b` },
  // ── French ──
  {
    kind: "addresses_assistant",
    src: String.raw`\b(?:(?:pour|cher|chere|bonjour|salut|attention|hey|coucou)(?:${SEP}(?:l${AP}|la|le|notre|votre|ton|cet|cette))?|a${SEP}(?:l${AP}|la|le|notre|votre|ton|cet|cette))${SEP}(?:ia|intelligence${SEP}artificielle|assistante?${SEP}(?:ia|virtuel(?:le)?|intelligent(?:e)?)|chat${SEP}?bot|modele${SEP}de${SEP}langage|agent${SEP}(?:ia|conversationnel))\b`,
  },
  { kind: "addresses_assistant", src: String.raw`\bassistante?${SEP}ia\b|\b(?:en${SEP}tant${SEP}qu${AP}${SEP}?ia|tu${SEP}es${SEP}une${SEP}ia)\b` },
  {
    kind: "override_instructions",
    src: String.raw`\b(?:ignore[rsz]?|oublie[rsz]?|neglige[rsz]?|contourne[rsz]?)${SEP}(?:(?:toutes?|tous)${SEP})?(?:(?:les|tes|vos|ces|mes)${SEP})?(?:(?:precedentes?|anciennes?)${SEP})?(?:instructions?|consignes?|regles?|directives?|indications?|ordres?|contraintes?)\b(?!${SEP}(?:de|du|d${AP})${SEP}(?:livraison|transport|expedition|retour|emballage|paiement|montage|stockage))`,
  },
  {
    kind: "override_instructions",
    src: String.raw`\bne${SEP}(?:tiens|tenez)${SEP}(?:plus${SEP}|pas${SEP})compte${SEP}(?:de${SEP}|des${SEP}|d${AP})(?:(?:toutes?${SEP})?(?:tes|vos|les)${SEP})?(?:instructions?|consignes?|regles?)\b|\b(?:fais|faites)${SEP}abstraction${SEP}(?:de${SEP}|des${SEP})(?:(?:toutes?${SEP})?(?:tes|vos|les)${SEP})?(?:instructions?|consignes?|regles?)\b`,
  },
  { kind: "override_instructions", src: String.raw`\bnouvelles?${SEP}(?:instructions?|consignes?)${SEP}:|\b(?:tu${SEP}es|vous${SEP}etes)${SEP}(?:desormais|maintenant|a${SEP}present)${SEP}(?:un|une|en${SEP}mode)\b` },
  { kind: "claims_approval", src: String.raw`\bpre${SEP}approuve(?:e|es|s)?\b` },
  {
    kind: "claims_approval",
    src: String.raw`\b(?:approuve|valide|autorise|accorde|signe)(?:e|es|s)?${SEP}par${SEP}(?:(?:la|le|les|l${AP}|votre|notre|mon|ma|nos|vos)${SEP})?(?:direction|comptabilite|service${SEP}(?:financier|comptable|juridique)|finance|finances|manager|responsable|superviseur|directeur|directrice|administrateur|juridique|hierarchie|pdg)\b`,
  },
  {
    kind: "claims_approval",
    src: String.raw`\b(?:la${SEP}direction|la${SEP}comptabilite|le${SEP}service${SEP}financier|votre${SEP}superviseur|votre${SEP}responsable|le${SEP}service${SEP}juridique)${SEP}a${SEP}(?:deja${SEP})?(?:approuve|valide|autorise|donne${SEP}son${SEP}accord)\b`,
  },
  { kind: "claims_role", src: String.raw`\b(?:en${SEP}tant${SEP}qu${AP}${SEP}?|je${SEP}suis${SEP}(?:votre|ton|l${AP})${SEP}?)(?:administrateur|developpeur|superviseur|votre${SEP}administrateur)\b` },
  // ── Spanish ──
  {
    kind: "addresses_assistant",
    src: String.raw`\b(?:(?:para|querido|querida|estimado|estimada|hola|atencion|oye)(?:${SEP}(?:el|la|tu|su|nuestro|nuestra))?|(?:a${SEP}(?:la|el|tu|su|nuestro|nuestra)|al))${SEP}(?:ia|inteligencia${SEP}artificial|asistente${SEP}(?:de${SEP})?(?:ia|virtual)|chat${SEP}?bot|modelo${SEP}de${SEP}lenguaje|agente${SEP}(?:de${SEP})?ia)\b`,
  },
  { kind: "addresses_assistant", src: String.raw`\basistente${SEP}de${SEP}ia\b|\b(?:como${SEP}(?:una${SEP})?ia|eres${SEP}una${SEP}ia)\b` },
  {
    kind: "override_instructions",
    src: String.raw`\b(?:ignora|ignore|ignorar|ignoren|olvida|olvide|olvidar|olviden|omite|omita|descarta|descarte|anula|anule)${SEP}(?:(?:todas?|todos|cualquier)${SEP})?(?:(?:las|tus|sus|estas|esas|los)${SEP})?(?:(?:anteriores|previas|antiguas)${SEP})?(?:instrucciones|instruccion|indicaciones|reglas|directrices|ordenes|normas|restricciones|politicas?)\b(?!${SEP}(?:de|del)${SEP}(?:entrega|envio|transporte|devolucion|embalaje|pago|montaje))`,
  },
  {
    kind: "override_instructions",
    src: String.raw`\b(?:haz|haga|hagan|hagas)${SEP}caso${SEP}omiso${SEP}(?:de${SEP}|a${SEP})?(?:(?:todas?${SEP})?(?:las|tus|sus)${SEP})?(?:instrucciones|reglas|indicaciones)\b|\bno${SEP}(?:hagas|haga)${SEP}caso${SEP}(?:de|a)${SEP}(?:(?:las|tus|sus)${SEP})?(?:instrucciones|reglas|indicaciones)\b`,
  },
  { kind: "override_instructions", src: String.raw`\bnuevas${SEP}instrucciones${SEP}:|\b(?:a${SEP}partir${SEP}de${SEP}ahora${SEP}eres|ahora${SEP}eres${SEP}(?:un|una|el|la))\b` },
  { kind: "claims_approval", src: String.raw`\bpre${SEP}aprobad[oa]s?\b` },
  {
    kind: "claims_approval",
    src: String.raw`\b(?:aprobad[oa]s?|autorizad[oa]s?|validad[oa]s?)${SEP}por${SEP}(?:(?:el|la|los|las|tu|su|nuestro|nuestra|mi)${SEP})?(?:departamento${SEP}(?:de${SEP})?(?:finanzas|contabilidad|legal)|finanzas|gerencia|direccion|contabilidad|supervisor(?:a)?|jefe|jefa|gerente|director(?:a)?|administracion|administrador)\b`,
  },
  {
    kind: "claims_approval",
    src: String.raw`\b(?:la${SEP}gerencia|finanzas|la${SEP}direccion|tu${SEP}supervisor|su${SEP}supervisor|el${SEP}departamento${SEP}de${SEP}finanzas|contabilidad)${SEP}(?:ya${SEP})?(?:ha|han)${SEP}(?:aprobado|autorizado|validado)\b`,
  },
  { kind: "claims_role", src: String.raw`\b(?:como|soy)${SEP}(?:tu|su|el)${SEP}(?:administrador|desarrollador|supervisor)\b` },
  // ── Norwegian, Swedish, Danish ──
  {
    kind: "addresses_assistant",
    src: String.raw`\b(?:til|till|hei|hej|kjære|kjaere|kære|kaere|kara|hallo|obs|merk)${SEP}(?:(?:den|din|deres|var|er|jeres)${SEP})?(?:ai|ki|(?:ai|ki)${SEP}?(?:en|n|assistent(?:en)?|agent(?:en)?|modell(?:en)?|system(?:et)?)|virtuelle${SEP}assistent(?:en)?|(?:chat${SEP}?)?bot(?:en|ten)?|sprakmodell(?:en)?|sprogmodel(?:len)?)\b`,
  },
  { kind: "addresses_assistant", src: String.raw`\b(?:ai|ki)${SEP}assistent(?:en)?\b|\b(?:du${SEP}er${SEP}en${SEP}(?:ai|ki)|du${SEP}ar${SEP}en${SEP}(?:ai|ki)|som${SEP}en${SEP}(?:ai|ki))\b` },
  {
    kind: "override_instructions",
    src: String.raw`\b(?:ignorer|ignorere|ignorera|glem|glom|overse|overstyr|tilsidesett|tilsidesæt|tilsidesaet|se${SEP}bort${SEP}fra|bortse${SEP}fran|strunta${SEP}i)${SEP}(?:(?:alle|alla|samtlige|samtliga)${SEP})?(?:(?:dine|dina|de|disse|dessa)${SEP})?(?:(?:tidligere|tidigare|forrige|foregaende|gamle|gamla|opprinnelige|oprindelige|ursprungliga)${SEP})?(?:instruksjon(?:er|ene)?|instruks(?:er|ene)?|instruktion(?:er|erne|erna)?|regl(?:er|ene|erne|erna)|retningslinjer(?:ne)?|riktlinjer(?:na)?|direktiv(?:er|en|ene)?|anvisning(?:er|ar|erne|arna)?|føringer(?:ne)?)\b(?!${SEP}(?:for|om|til|till|pa|ved|vid)${SEP}(?:levering(?:en)?|leverans(?:en)?|henting|afhentning|retur(?:en)?|frakt(?:en)?|pakking|emballering))`,
  },
  {
    kind: "override_instructions",
    src: String.raw`\b(?:nye|nya)${SEP}(?:instruksjoner|instrukser|instruktioner)${SEP}:|\b(?:fra${SEP}na${SEP}av${SEP}er${SEP}du|fra${SEP}nu${SEP}af${SEP}er${SEP}du|fran${SEP}och${SEP}med${SEP}nu${SEP}ar${SEP}du)\b`,
  },
  { kind: "claims_approval", src: String.raw`\bforhands${SEP}?god(?:kjent|kjente|kendt|kendte|kand|kant|kanda|kanns)\b` },
  {
    kind: "claims_approval",
    src: String.raw`\b(?:godkjent|godkjente|godkendt|godkendte|godkand|godkant|godkanda|klarert|autorisert|autoriseret|autoriserad|attestert|attesteret|attesterad)${SEP}(?:av|af)${SEP}(?:(?:din|dine|deres|var|min|er|jeres|dere)${SEP})?(?:økonomi\p{L}*|ekonomi\p{L}*|ledelsen|ledningen|ledningsgruppen|sjefen|chefen|lederen|regnskap\p{L}*|regnskab\p{L}*|finans\p{L}*|direktøren|direktoren|administrasjonen|administrationen)\b`,
  },
  {
    kind: "claims_approval",
    src: String.raw`\b(?:ledelsen|ledningen|økonomi(?:avdelingen|afdelingen)|ekonomiavdelningen|sjefen|chefen|din${SEP}sjef|din${SEP}chef|finansavdelingen|finansafdelingen|finansavdelningen)${SEP}(?:har${SEP})(?:(?:allerede|redan|alt)${SEP})?(?:godkjent|godkendt|godkant|godkjend|klarert|attestert)\b`,
  },
  {
    kind: "claims_role",
    src: String.raw`\b(?:som|jeg${SEP}er|jag${SEP}ar)${SEP}(?:din|deres|er|jeres|den)${SEP}(?:administrator|systemadministrator|utvikler|udvikler|utvecklare|overordnede|overordnade)\b`,
  },
];

/**
 * `src` with each `\b` as a Unicode word boundary (letters and digits of any script): one that
 * opens the pattern or an alternative (`\b` first, or after `|` or `(?:`) is the start of a word,
 * any other the end of one. (Every `\b` of the patterns stands before or after a word.)
 */
function unicodeBoundaries(src: string): string {
  return src.replace(/\\b/g, (_b, at: number) => (at === 0 || src.endsWith("|", at) || src.endsWith("(?:", at) ? String.raw`(?<![\p{L}\p{N}])` : String.raw`(?![\p{L}\p{N}])`));
}

/** Each pattern compiled twice: with word boundaries, and without (for letter-spaced runs, whose boundaries are lost). */
const PATTERNS = PATTERN_SOURCES.map(({ kind, src, lineStart, leadIn }) => ({
  kind,
  lineStart: lineStart ?? false,
  leadIn: leadIn ?? false,
  strict: new RegExp(unicodeBoundaries(src), "gu"),
  loose: new RegExp(src.replaceAll(String.raw`\b`, ""), "gu"),
}));

/** How far past a letter-spaced run a phrase it starts may reach (folded characters). */
const SPACED_REACH = 160;

/**
 * Flags instruction-like text in one string: every match of the patterns, as original offsets
 * `[start, end)` in `text`, overlapping matches merged (the first kind kept). Sorted by start.
 * Linear-ish in the text: each pattern is bounded (no unbounded repetition between words).
 */
export function scanInstructionText(text: string): { start: number; end: number; kind: InstructionKind }[] {
  return scanFolded(text, foldForScan(text));
}

/** {@link scanInstructionText} of `text` already folded (`folded` = foldForScan(text)). */
export function scanFolded(text: string, folded: FoldedText): { start: number; end: number; kind: InstructionKind }[] {
  const t = folded.text;
  const hits: { from: number; to: number; kind: InstructionKind }[] = [];
  const push = (from: number, to: number, kind: InstructionKind, lineStart: boolean, leadIn: boolean) => {
    // the lead-in a pattern needed (a space, or the bracket before "[system]") is not the flag
    while (from < to && (leadIn ? /[\s\-_.,:;*|/\[(<{]/ : /[\s\-_.,:;*|/]/).test(t[from])) from++;
    while (to > from && /[\s\-_.,;*|/]/.test(t[to - 1])) to--;
    if (to <= from) return;
    if (lineStart && !atLineStart(text, folded.start[from])) return;
    hits.push({ from, to, kind });
  };
  for (const { kind, strict, loose, lineStart, leadIn } of PATTERNS) {
    strict.lastIndex = 0;
    for (const m of t.matchAll(strict)) push(m.index, m.index + m[0].length, kind, lineStart, leadIn);
    // A letter-spaced run ("i g n o r e a l l …") is joined without its word boundaries: read a
    // phrase that starts inside it without them.
    for (const run of folded.spaced) {
      const window = t.slice(run.from, Math.min(t.length, run.to + SPACED_REACH));
      loose.lastIndex = 0;
      for (const m of window.matchAll(loose)) {
        if (m.index >= run.to - run.from) break;
        push(run.from + m.index, run.from + m.index + m[0].length, kind, lineStart, leadIn);
      }
    }
  }
  hits.sort((a, b) => a.from - b.from || b.to - a.to);
  const merged: typeof hits = [];
  for (const h of hits) {
    const last = merged[merged.length - 1];
    if (last && h.from < last.to) last.to = Math.max(last.to, h.to);
    else merged.push({ ...h });
  }
  return merged.map((h) => ({ ...originalSpan(folded, h.from, h.to), kind: h.kind }));
}

/** True when only spaces, tabs, quote markers and brackets stand between the line's start and offset `at` of `text`. */
function atLineStart(text: string, at: number): boolean {
  for (let i = at - 1; i >= 0; i--) {
    const c = text[i];
    if (c === "\n" || c === "\r") return true;
    if (!/[ \t>\[(<{*#\-|]/.test(c) && !/\p{Cf}/u.test(c)) return false;
  }
  return true;
}

/**
 * Flags instruction-like text in every part of a task's text. Customer messages and attachments are
 * untrusted anyway; a staff or system part is scanned too, because its source is only what the
 * integration says (a ticket comment posted as `comment` is recorded as staff text, and is often a
 * customer's words pasted) — a part that carries such text is then untrusted as well
 * ({@link untrustedPartIndexes}). `partIndex` is the part's index in `parts`; `folded[i]`, when
 * given, is `foldForScan(parts[i].text)` (a caller that folds each part once for several scans).
 */
export function scanInstructions(parts: readonly Pick<TaskTextPart, "source" | "text">[], folded?: readonly FoldedText[]): InstructionFlag[] {
  const flags: InstructionFlag[] = [];
  parts.forEach((p, partIndex) => {
    for (const h of scanFolded(p.text, folded?.[partIndex] ?? foldForScan(p.text))) {
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
