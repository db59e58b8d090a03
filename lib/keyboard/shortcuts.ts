/**
 * The console's keyboard shortcuts ("keyboard-first"): one key map that the key
 * listener, the "?" help dialog and the tests read, and the pure matching of key events to
 * shortcuts — chords (`Shift+A`, `Mod+Enter`), sequences (`g q`), and the rule that a plain key
 * never fires while someone types in an input, textarea, select or contenteditable element.
 * No DOM or React here: events are plain objects ({@link KeyLike}).
 */

/** Where a shortcut works: everywhere, on the queue, on a run, inside the plan's edit form, or on the outcome review queue. */
export type ShortcutScope = "global" | "queue" | "run" | "edit" | "review";

/** Every shortcut's id; components register handlers by id (components/keyboard-shortcuts.tsx). */
export type ShortcutId =
  | "help"
  | "goQueue"
  | "queueNext"
  | "queuePrevious"
  | "queueOpen"
  | "edit"
  | "approve"
  | "approveNext"
  | "reject"
  | "handOff"
  | "take"
  | "suggestStep"
  | "skip"
  | "snooze"
  | "save"
  | "nextStep"
  | "previousStep"
  | "addStep"
  | "moveStepUp"
  | "moveStepDown"
  | "removeStep"
  | "search"
  | "palette"
  | "labelBetter"
  | "labelBetterLetter"
  | "labelSame"
  | "labelSameLetter"
  | "labelWorse"
  | "labelWorseLetter";

/** One shortcut: its key sequence (chords, see {@link chordOf}), what it does, where it works. */
export interface Shortcut {
  id: ShortcutId;
  /** The sequence of chords, e.g. `["g", "q"]`, `["Shift+A"]`, `["Mod+Enter"]` (Mod: Ctrl, or ⌘ on a Mac). */
  keys: readonly string[];
  description: string;
  scope: ShortcutScope;
  /** Fires also while focus is in a text field (only chords with Ctrl/⌘/Alt may). */
  inInputs?: boolean;
  /** Leaves the key alone while focus is on a link, button or other control, which handles it natively (Enter). */
  notOnControls?: boolean;
}

/** The key map, in the order the help dialog lists it. */
export const SHORTCUTS: readonly Shortcut[] = [
  { id: "help", keys: ["?"], description: "Show all keyboard shortcuts", scope: "global" },
  { id: "goQueue", keys: ["g", "q"], description: "Go to the queue", scope: "global" },
  { id: "palette", keys: ["Mod+K"], description: "Open the command palette (every page and action)", scope: "global", inInputs: true },
  { id: "search", keys: ["/"], description: "Search the queue by ticket, account or run (or just type a ticket number)", scope: "queue" },
  { id: "queueNext", keys: ["j"], description: "Next run in the queue (on /outcomes/review: the next run to judge)", scope: "queue" },
  { id: "queuePrevious", keys: ["k"], description: "Previous run in the queue (on /outcomes/review: the previous run to judge)", scope: "queue" },
  { id: "queueOpen", keys: ["Enter"], description: "Open the current run", scope: "queue", notOnControls: true },
  { id: "edit", keys: ["e"], description: "Edit the plan (focus on the first value the agent made in the first step waiting for approval)", scope: "run" },
  { id: "approve", keys: ["a"], description: "Approve what is on screen (warnings to acknowledge are shown first; Alt+A there acknowledges and approves)", scope: "run" },
  { id: "approveNext", keys: ["Shift+A"], description: "Approve, then open the next waiting run", scope: "run" },
  { id: "reject", keys: ["r"], description: "Reject (focus in the reason; Ctrl+Enter there rejects and opens the next run)", scope: "run" },
  { id: "handOff", keys: ["h"], description: "Request approval: hand the run to the suggested person who can approve it (focus in the note; Ctrl+Enter sends and opens the next run)", scope: "run" },
  { id: "take", keys: ["t"], description: "Take this run (focus on the line saying it is yours)", scope: "run" },
  { id: "suggestStep", keys: ["Shift+S"], description: "Suggest a step (for a tool you may not author; focus in its first field)", scope: "run" },
  { id: "skip", keys: ["n"], description: "Not now: skip this run, leaving it out of your next until it changes (others still get it), then open the next waiting run", scope: "run" },
  { id: "snooze", keys: ["z"], description: "Snooze: choose until when (1 h, 4 h, tomorrow) this run stays out of your next, then open the next waiting run", scope: "run" },
  { id: "save", keys: ["Mod+Enter"], description: "Save the edit", scope: "edit", inInputs: true },
  { id: "nextStep", keys: ["Alt+J"], description: "Next step's first field", scope: "edit", inInputs: true },
  { id: "previousStep", keys: ["Alt+K"], description: "Previous step's first field", scope: "edit", inInputs: true },
  { id: "addStep", keys: ["Alt+N"], description: "Add a step (then a tool's first letter adds it; Enter when two tools share the letter)", scope: "edit", inInputs: true },
  { id: "moveStepUp", keys: ["Alt+Shift+K"], description: "Move the step you are in up (focus stays on the moved step)", scope: "edit", inInputs: true },
  { id: "moveStepDown", keys: ["Alt+Shift+J"], description: "Move the step you are in down (focus stays on the moved step)", scope: "edit", inInputs: true },
  { id: "removeStep", keys: ["Alt+Shift+X"], description: "Remove the step you are in (focus moves to the next step)", scope: "edit", inInputs: true },
  { id: "labelBetter", keys: ["1"], description: "Label the current run better (focus in the reason; Enter saves)", scope: "review" },
  { id: "labelBetterLetter", keys: ["b"], description: "Label the current run better (as 1)", scope: "review" },
  { id: "labelSame", keys: ["2"], description: "Label the current run same (focus in the reason; Enter saves)", scope: "review" },
  { id: "labelSameLetter", keys: ["s"], description: "Label the current run same (as 2)", scope: "review" },
  { id: "labelWorse", keys: ["3"], description: "Label the current run worse (focus in the reason; Enter saves)", scope: "review" },
  { id: "labelWorseLetter", keys: ["w"], description: "Label the current run worse (as 3)", scope: "review" },
];

/** The parts of a keyboard event this module reads (a DOM KeyboardEvent fits). */
export interface KeyLike {
  key: string;
  /** The physical key, e.g. "KeyJ": used for Alt chords, since Option+J types "∆" on a Mac. */
  code?: string;
  ctrlKey?: boolean;
  metaKey?: boolean;
  altKey?: boolean;
  shiftKey?: boolean;
  isComposing?: boolean;
  target?: TargetLike | null;
}

/** The parts of an event target this module reads (a DOM Element fits). */
export interface TargetLike {
  tagName?: string;
  isContentEditable?: boolean;
  getAttribute?: (name: string) => string | null;
}

const MODIFIER_KEYS = new Set(["Shift", "Control", "Alt", "Meta", "AltGraph", "CapsLock", "OS", "Hyper", "Super"]);

/**
 * The chord a key event stands for, or null for a lone modifier or a composing key: "j",
 * "Shift+A", "?", "Enter", "Mod+Enter" (Ctrl or ⌘), "Alt+J" (from the physical key). Shift is
 * named only for letters and named keys: "?" is "?" however the layout makes it.
 */
export function chordOf(e: KeyLike): string | null {
  if (e.isComposing || MODIFIER_KEYS.has(e.key) || e.key === "Dead" || e.key === "Unidentified") return null;
  let key = e.key;
  if (e.altKey && e.code) {
    const m = /^(?:Key([A-Z])|Digit([0-9]))$/.exec(e.code);
    if (m) key = m[1] ?? m[2];
  }
  const letter = /^[a-z]$/i.test(key);
  const parts: string[] = [];
  if (e.ctrlKey || e.metaKey) parts.push("Mod");
  if (e.altKey) parts.push("Alt");
  if (e.shiftKey && (letter || key.length > 1)) parts.push("Shift");
  // a letter alone is lower case (Caps Lock does not matter); with any modifier it is named in upper case
  parts.push(letter ? (parts.length > 0 ? key.toUpperCase() : key.toLowerCase()) : key);
  return parts.join("+");
}

/** True when focus is somewhere a person types: an input, textarea, select or contenteditable element. */
export function isTypingTarget(t: TargetLike | null | undefined): boolean {
  if (!t) return false;
  if (t.isContentEditable) return true;
  const tag = (t.tagName ?? "").toUpperCase();
  return tag === "INPUT" || tag === "TEXTAREA" || tag === "SELECT";
}

/** True when focus is on a control that handles Enter itself (link, button, summary, or an ARIA widget). */
export function isControlTarget(t: TargetLike | null | undefined): boolean {
  if (!t) return false;
  const tag = (t.tagName ?? "").toUpperCase();
  if (tag === "A" || tag === "BUTTON" || tag === "SUMMARY") return true;
  const role = t.getAttribute?.("role");
  return !!role && ["button", "link", "menuitem", "option", "tab", "checkbox", "switch", "combobox"].includes(role);
}

/** A chord carries Ctrl/⌘ or Alt: only such chords may fire inside text fields. */
const hasCommandModifier = (chord: string) => chord.startsWith("Mod+") || chord.startsWith("Alt+");

/**
 * The console's one rule for keys in text fields, read by every key listener (the shortcut
 * matcher below and the queue's type-to-search): while focus is in an input, textarea, select
 * or contenteditable element, a key is the field's — true — unless it is a chord with Ctrl/⌘ or
 * Alt that `allowInFields` (a shortcut marked `inInputs`) lets through. Letters, digits, `?`,
 * `/` and Enter typed in a field are always text.
 */
export function keyBelongsToField(e: KeyLike, allowInFields = false): boolean {
  if (!isTypingTarget(e.target)) return false;
  const chord = chordOf(e);
  return !(allowInFields && chord !== null && hasCommandModifier(chord));
}

/** What {@link ShortcutMatcher.press} found: a shortcut, the first chord(s) of a sequence, or nothing. */
export type MatchResult = { kind: "shortcut"; shortcut: Shortcut } | { kind: "pending" } | { kind: "none" };

/** Matches key events to shortcuts, keeping the chords of an unfinished sequence (`g` of `g q`). */
export interface ShortcutMatcher {
  /** Feeds one key event at `nowMs` (a clock in milliseconds). `active` limits the candidates (e.g. to registered handlers). */
  press(e: KeyLike, nowMs: number, active?: (s: Shortcut) => boolean): MatchResult;
  /** Forgets an unfinished sequence. */
  reset(): void;
}

/**
 * A matcher over `shortcuts`. A sequence must be finished within `sequenceMs` (default 1500 ms)
 * of its previous chord. Never matches inside text fields unless the shortcut allows it and its
 * chord carries Ctrl/⌘ or Alt; never matches a plain shortcut when Ctrl/⌘/Alt is held (Ctrl+A
 * stays "select all"); `notOnControls` shortcuts leave links and buttons alone.
 */
export function createShortcutMatcher(shortcuts: readonly Shortcut[] = SHORTCUTS, sequenceMs = 1500): ShortcutMatcher {
  let pending: string[] = [];
  let lastAt = 0;
  const eligible = (s: Shortcut, e: KeyLike) => {
    const last = s.keys[s.keys.length - 1];
    if (keyBelongsToField(e, !!s.inInputs && hasCommandModifier(last))) return false;
    if (s.notOnControls && isControlTarget(e.target)) return false;
    return true;
  };
  const startsWith = (keys: readonly string[], prefix: readonly string[]) => prefix.length <= keys.length && prefix.every((k, i) => keys[i] === k);
  return {
    press(e, nowMs, active = () => true) {
      const chord = chordOf(e);
      if (chord === null) return pending.length ? { kind: "pending" } : { kind: "none" };
      if (pending.length && nowMs - lastAt > sequenceMs) pending = [];
      const candidates = shortcuts.filter((s) => active(s) && eligible(s, e));
      const tryWith = (seq: string[]): MatchResult | null => {
        const exact = candidates.find((s) => s.keys.length === seq.length && startsWith(s.keys, seq));
        if (exact) return { kind: "shortcut", shortcut: exact };
        if (candidates.some((s) => s.keys.length > seq.length && startsWith(s.keys, seq))) return { kind: "pending" };
        return null;
      };
      const withPending = pending.length ? tryWith([...pending, chord]) : null;
      const result = withPending ?? tryWith([chord]) ?? { kind: "none" as const };
      pending = result.kind === "pending" ? (withPending ? [...pending, chord] : [chord]) : [];
      lastAt = nowMs;
      return result;
    },
    reset() {
      pending = [];
    },
  };
}

/**
 * Shortcuts the command palette never lists: the palette itself, and Enter on the queue (it opens
 * the run under the queue's cursor, which a palette row cannot point at). Every other shortcut is
 * an action the palette offers whenever a mounted component handles it.
 */
export const NOT_IN_PALETTE: ReadonlySet<ShortcutId> = new Set<ShortcutId>(["palette", "queueOpen"]);

/** A shortcut's key sequence as the help dialog and the palette show it: "g then q", "Ctrl+K". */
export function describeKeys(s: Pick<Shortcut, "keys">, mac = false): string {
  return s.keys.map((k) => describeChord(k, mac)).join(" then ");
}

/** A chord as the help dialog shows it: "Mod+Enter" → "Ctrl+Enter" (or "⌘+Enter" on a Mac). */
export function describeChord(chord: string, mac = false): string {
  return chord.replace(/^Mod\+/, mac ? "⌘+" : "Ctrl+");
}
