"use client";

import { useOpenShortcutHelp } from "./keyboard-shortcuts";

/** The header's "?" button: opens the list of keyboard shortcuts (the same as pressing "?"); not on phones, which have no keyboard to use them with. */
export function ShortcutsButton() {
  const open = useOpenShortcutHelp();
  return (
    <button type="button" onClick={open} aria-label="Keyboard shortcuts" title="Keyboard shortcuts (?)" className="hidden rounded-md border border-slate-300 px-2 py-1 text-sm text-slate-800 hover:bg-slate-50 sm:inline-block">
      <span aria-hidden="true">?</span>
    </button>
  );
}
