"use client";

import { useOpenShortcutHelp } from "./keyboard-shortcuts";

/** The header's "?" button: opens the list of keyboard shortcuts (the same as pressing "?"). */
export function ShortcutsButton() {
  const open = useOpenShortcutHelp();
  return (
    <button type="button" onClick={open} aria-label="Keyboard shortcuts" title="Keyboard shortcuts (?)" className="rounded-md border border-slate-300 px-2 py-1 text-sm text-slate-800 hover:bg-slate-50">
      <span aria-hidden="true">?</span>
    </button>
  );
}
