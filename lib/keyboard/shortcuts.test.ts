import { describe, expect, it } from "vitest";
import { chordOf, createShortcutMatcher, describeChord, describeKeys, isTypingTarget, keyBelongsToField, NOT_IN_PALETTE, SHORTCUTS, type KeyLike, type ShortcutId } from "./shortcuts";

const el = (tagName: string, extra: { isContentEditable?: boolean; role?: string } = {}) => ({
  tagName,
  isContentEditable: extra.isContentEditable ?? false,
  getAttribute: (n: string) => (n === "role" ? (extra.role ?? null) : null),
});
const body = el("BODY");
const key = (k: string, more: Partial<KeyLike> = {}): KeyLike => ({ key: k, target: body, ...more });
const idOf = (r: ReturnType<ReturnType<typeof createShortcutMatcher>["press"]>) => (r.kind === "shortcut" ? r.shortcut.id : r.kind);

describe("chordOf", () => {
  it("names letters, shifted letters, symbols and modified keys", () => {
    expect(chordOf(key("j"))).toBe("j");
    expect(chordOf(key("J"))).toBe("j"); // Caps Lock
    expect(chordOf(key("A", { shiftKey: true }))).toBe("Shift+A");
    expect(chordOf(key("?", { shiftKey: true }))).toBe("?");
    expect(chordOf(key("Enter", { ctrlKey: true }))).toBe("Mod+Enter");
    expect(chordOf(key("Enter", { metaKey: true }))).toBe("Mod+Enter");
    expect(chordOf(key("∆", { altKey: true, code: "KeyJ" }))).toBe("Alt+J"); // Option+J on a Mac
    expect(chordOf(key("Enter", { shiftKey: true }))).toBe("Shift+Enter");
  });
  it("ignores lone modifiers and composition", () => {
    expect(chordOf(key("Shift", { shiftKey: true }))).toBeNull();
    expect(chordOf(key("a", { isComposing: true }))).toBeNull();
  });
});

describe("isTypingTarget", () => {
  it("is true for inputs, textareas, selects and contenteditable", () => {
    for (const t of ["INPUT", "TEXTAREA", "SELECT"]) expect(isTypingTarget(el(t))).toBe(true);
    expect(isTypingTarget(el("DIV", { isContentEditable: true }))).toBe(true);
    expect(isTypingTarget(el("DIV"))).toBe(false);
    expect(isTypingTarget(null)).toBe(false);
  });
});

describe("keyBelongsToField", () => {
  const fields = [el("INPUT"), el("TEXTAREA"), el("SELECT"), el("DIV", { isContentEditable: true })];
  it("gives every plain key typed in a text field to the field", () => {
    for (const target of fields) for (const k of ["j", "1", "3", "?", "/", "#", "Enter", "g"]) expect(keyBelongsToField(key(k, { target }))).toBe(true);
  });
  it("lets a Ctrl/⌘/Alt chord out of a field only when the caller allows it", () => {
    const target = el("TEXTAREA");
    expect(keyBelongsToField(key("Enter", { ctrlKey: true, target }))).toBe(true);
    expect(keyBelongsToField(key("Enter", { ctrlKey: true, target }), true)).toBe(false);
    expect(keyBelongsToField(key("j", { target }), true)).toBe(true);
  });
  it("outside a field no key belongs to one", () => {
    for (const target of [body, el("BUTTON"), el("A"), el("H2")]) expect(keyBelongsToField(key("j", { target }))).toBe(false);
  });
});

describe("createShortcutMatcher", () => {
  it("matches single keys and chords", () => {
    const m = createShortcutMatcher();
    expect(idOf(m.press(key("j"), 0))).toBe("queueNext");
    expect(idOf(m.press(key("A", { shiftKey: true }), 0))).toBe("approveNext");
    expect(idOf(m.press(key("a"), 0))).toBe("approve");
    expect(idOf(m.press(key("?", { shiftKey: true }), 0))).toBe("help");
    expect(idOf(m.press(key("x"), 0))).toBe("none");
  });

  it("never fires a plain shortcut inside an input, textarea, select or contenteditable", () => {
    const m = createShortcutMatcher();
    for (const target of [el("INPUT"), el("TEXTAREA"), el("SELECT"), el("DIV", { isContentEditable: true })]) {
      for (const k of ["j", "k", "a", "e", "r", "?", "Enter"]) expect(idOf(m.press(key(k, { target }), 0))).toBe("none");
      expect(idOf(m.press(key("A", { shiftKey: true, target }), 0))).toBe("none");
      expect(idOf(m.press(key("g", { target }), 0))).toBe("none");
      expect(idOf(m.press(key("q", { target }), 0))).toBe("none");
    }
  });

  it("lets the form's Ctrl/⌘/Alt chords fire inside inputs", () => {
    const m = createShortcutMatcher();
    expect(idOf(m.press(key("Enter", { ctrlKey: true, target: el("TEXTAREA") }), 0))).toBe("save");
    expect(idOf(m.press(key("j", { altKey: true, code: "KeyJ", target: el("INPUT") }), 0))).toBe("nextStep");
    expect(idOf(m.press(key("n", { altKey: true, code: "KeyN", target: el("INPUT") }), 0))).toBe("addStep");
  });

  it("respects modifiers: Ctrl+A, Ctrl+J, Alt+A are not a, j, a", () => {
    const m = createShortcutMatcher();
    expect(idOf(m.press(key("a", { ctrlKey: true }), 0))).toBe("none");
    expect(idOf(m.press(key("j", { metaKey: true }), 0))).toBe("none");
    expect(idOf(m.press(key("a", { altKey: true, code: "KeyA" }), 0))).toBe("none");
    expect(idOf(m.press(key("Enter", { shiftKey: true }), 0))).toBe("none");
  });

  it("leaves Enter to links and buttons", () => {
    const m = createShortcutMatcher();
    expect(idOf(m.press(key("Enter", { target: el("A") }), 0))).toBe("none");
    expect(idOf(m.press(key("Enter", { target: el("BUTTON") }), 0))).toBe("none");
    expect(idOf(m.press(key("Enter", { target: el("DIV", { role: "menuitem" }) }), 0))).toBe("none");
    expect(idOf(m.press(key("Enter", { target: el("H1") }), 0))).toBe("queueOpen");
  });

  it("matches the sequence g q within the time window, and not after it", () => {
    const m = createShortcutMatcher();
    expect(idOf(m.press(key("g"), 0))).toBe("pending");
    expect(idOf(m.press(key("q"), 500))).toBe("goQueue");
    expect(idOf(m.press(key("q"), 600))).toBe("none"); // q alone is nothing
    expect(idOf(m.press(key("g"), 1000))).toBe("pending");
    expect(idOf(m.press(key("q"), 4000))).toBe("none"); // too late
  });

  it("a key that breaks a sequence is matched on its own", () => {
    const m = createShortcutMatcher();
    expect(idOf(m.press(key("g"), 0))).toBe("pending");
    expect(idOf(m.press(key("j"), 100))).toBe("queueNext");
    expect(idOf(m.press(key("q"), 200))).toBe("none");
  });

  it("a lone modifier keeps a sequence waiting (Shift before ?)", () => {
    const m = createShortcutMatcher();
    expect(idOf(m.press(key("g"), 0))).toBe("pending");
    expect(idOf(m.press(key("Shift", { shiftKey: true }), 50))).toBe("pending");
    expect(idOf(m.press(key("q"), 100))).toBe("goQueue");
  });

  it("only considers shortcuts the caller marks active", () => {
    const m = createShortcutMatcher();
    expect(idOf(m.press(key("j"), 0, (s) => s.scope !== "queue"))).toBe("none");
    expect(idOf(m.press(key("e"), 0, (s) => s.scope === "run"))).toBe("edit");
  });
});

describe("the key map", () => {
  it("has one entry per id and unique key sequences", () => {
    expect(new Set(SHORTCUTS.map((s) => s.id)).size).toBe(SHORTCUTS.length);
    expect(new Set(SHORTCUTS.map((s) => s.keys.join(" "))).size).toBe(SHORTCUTS.length);
  });
  it("lets only chords with Ctrl/⌘/Alt fire inside inputs", () => {
    for (const s of SHORTCUTS.filter((x) => x.inInputs)) expect(s.keys.at(-1)).toMatch(/^(Mod|Alt)\+/);
  });
  it("describes Mod as Ctrl, or ⌘ on a Mac", () => {
    expect(describeChord("Mod+Enter")).toBe("Ctrl+Enter");
    expect(describeChord("Mod+Enter", true)).toBe("⌘+Enter");
    expect(describeChord("Shift+A")).toBe("Shift+A");
  });
  it("no key sequence starts another (a prefix would make the longer one unreachable or the shorter one wait)", () => {
    for (const a of SHORTCUTS)
      for (const b of SHORTCUTS) {
        if (a === b || a.keys.length >= b.keys.length) continue;
        expect(a.keys.every((k, i) => b.keys[i] === k), `${a.id} is a prefix of ${b.id}`).toBe(false);
      }
  });
  it("lists every action of the run page, each with its own key, in the palette", () => {
    const runPage: ShortcutId[] = ["edit", "approve", "approveNext", "reject", "handOff", "take", "suggestStep", "save", "nextStep", "previousStep", "addStep", "moveStepUp", "moveStepDown", "removeStep"];
    for (const id of runPage) {
      const s = SHORTCUTS.find((x) => x.id === id);
      expect(s, id).toBeDefined();
      expect(s!.keys.length, id).toBeGreaterThan(0);
      expect(NOT_IN_PALETTE.has(id), id).toBe(false);
    }
    expect(SHORTCUTS.find((s) => s.id === "handOff")!.description).toMatch(/^Request approval/);
    expect(SHORTCUTS.find((s) => s.id === "take")!.description).toMatch(/^Take this run/);
    expect(SHORTCUTS.find((s) => s.id === "suggestStep")!.description).toMatch(/^Suggest a step/);
    expect([...NOT_IN_PALETTE].sort()).toEqual(["palette", "queueOpen"]);
  });
  it("shows a shortcut's keys as the help list and the palette do", () => {
    expect(describeKeys({ keys: ["g", "q"] })).toBe("g then q");
    expect(describeKeys({ keys: ["Mod+K"] }, true)).toBe("⌘+K");
    expect(describeKeys({ keys: ["Alt+Shift+J"] })).toBe("Alt+Shift+J");
  });
});

describe("the run page's added keys", () => {
  it("Take and Suggest a step by t and Shift+S, never inside a text field", () => {
    const m = createShortcutMatcher();
    expect(idOf(m.press(key("t"), 0))).toBe("take");
    expect(idOf(m.press(key("S", { shiftKey: true }), 0))).toBe("suggestStep");
    for (const target of [el("INPUT"), el("TEXTAREA"), el("SELECT"), el("DIV", { isContentEditable: true })]) {
      expect(idOf(m.press(key("t", { target }), 0))).toBe("none");
      expect(idOf(m.press(key("S", { shiftKey: true, target }), 0))).toBe("none");
    }
  });
  it("Move and Remove by Alt+Shift+K / J / X, also from a step's field (Option on a Mac reads the physical key)", () => {
    const m = createShortcutMatcher();
    const target = el("INPUT");
    expect(idOf(m.press(key("K", { altKey: true, shiftKey: true, code: "KeyK", target }), 0))).toBe("moveStepUp");
    expect(idOf(m.press(key("J", { altKey: true, shiftKey: true, code: "KeyJ", target }), 0))).toBe("moveStepDown");
    expect(idOf(m.press(key("˛", { altKey: true, shiftKey: true, code: "KeyX", target }), 0))).toBe("removeStep");
    // Alt+J without Shift is still the next step
    expect(idOf(m.press(key("j", { altKey: true, code: "KeyJ", target }), 0))).toBe("nextStep");
  });
});
